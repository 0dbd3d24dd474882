"""`keep` is given a network's output, which requires grad: the clone records a node for nothing."""

import torch
from torch import nn


def keep(t):
    return t.clone().detach()  # expect: TCL005


def features(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    return keep(model(x))
