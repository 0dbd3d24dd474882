"""An in-place write to a parameter under `torch.no_grad()`: correct, no leaf error."""

import torch
from torch import nn


class ClampedScale(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(8, 8)
        self.scale = nn.Parameter(torch.ones(8))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            self.scale.clamp_(min=0.1)
        return self.linear(x) * self.scale
