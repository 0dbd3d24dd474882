"""The flagged block: importing it runs the package's `__init__`, which fails on the old API until the
names torch 2 lacks stand in."""

import torch
from torch import nn

from ..base import GAIN


class ResidualDenoiser(nn.Module):
    def __init__(self, planes: int = 3):
        super().__init__()
        self.conv = nn.Conv2d(planes, planes, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x.clone()  # expect: TCL001
        out = self.conv(x) * GAIN
        out += identity
        return out
