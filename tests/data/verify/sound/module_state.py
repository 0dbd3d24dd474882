"""A module's method of its own state, with no argument: exported to another layout by copies of
its parameters (which require grad: each `clone().detach()` records a node for nothing)."""

import torch
from torch import nn


class GatedCell(nn.Module):
    def __init__(self, features: int = 8):
        super().__init__()
        self.gate = nn.Linear(features, 2 * features)

    def forward(self, x):
        return torch.sigmoid(self.gate(x))

    def exported(self):
        return {"weight": self.gate.weight.clone().detach(), "bias": self.gate.bias.data}  # expect: TCL005

    @staticmethod
    def imported(cell):
        fresh = GatedCell(cell.in_features)
        fresh.gate.weight.data = cell.weight.clone().detach()  # expect: TCL005
        return fresh
