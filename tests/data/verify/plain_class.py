"""A class that is not a module, its flagged line in `__init__`: the experiment builds the object with
stand-ins for the constructor's parameters, which runs the line."""

import torch


class Interval:
    def __init__(self, lower, upper, margin=0.0):
        self.lower = torch.as_tensor(lower)
        upper = torch.as_tensor(upper)
        self.width = upper.clone().abs() - self.lower.abs() + margin  # expect: TCL001
