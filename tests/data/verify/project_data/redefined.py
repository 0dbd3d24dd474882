"""Two versions of one class in one file (a notebook's later cell redefines it): the flagged line is
in the first, which a run of the file as written never builds."""

import torch.nn as nn


class Consolidation:
    def __init__(self, model: nn.Module, penalty: float = 5000):
        self.model = model
        self.penalty = penalty
        self.anchors = {n: p.clone().detach() for n, p in model.named_parameters()}  # expect: TCL005


class Consolidation:
    def __init__(self, model: nn.Module, penalty: float = 5000):
        self.model = model
        self.penalty = penalty
        self.anchors = {}
