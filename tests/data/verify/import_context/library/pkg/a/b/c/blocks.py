"""A module deep in a package: its relative imports resolve only when it is imported as pkg.a.b.c.blocks."""

import torch
from torch import nn

from ...layers import conv3x3


class PackagedBlock(nn.Module):
    def __init__(self, planes: int = 4):
        super().__init__()
        self.conv = conv3x3(planes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x.clone()  # expect: TCL001
        out = self.conv(x)
        out += identity
        return out
