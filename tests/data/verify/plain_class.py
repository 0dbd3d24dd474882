"""A class that is not a module, its flagged line in `__init__`: the experiment builds the object with
stand-ins for the constructor's parameters, which runs the line."""

import torch


class Interval:
    def __init__(self, lower, upper, margin=0.0):
        self.lower = torch.as_tensor(lower)
        upper = torch.as_tensor(upper)
        self.width = upper.clone().abs() - self.lower.abs() + margin  # expect: TCL001


class Anchor:
    """Keeps a copy of a network's parameters (a continual-learning penalty): `loaders` is only kept,
    for a method the constructor does not run, so nothing says what it is, and a placeholder serves."""

    def __init__(self, model, loaders):
        self.model = model
        self.loaders = loaders
        self.anchor = {name: p.clone().detach() for name, p in model.named_parameters()}  # expect: TCL005

    def penalty(self, model):
        return sum(((p - self.anchor[name]) ** 2).sum() for name, p in model.named_parameters())
