"""The flagged block: importing it imports the package, whose first try fails on the package that is
not installed; the try with a stand-in for it must import the package's modules again."""

import torch
from torch import nn

from .. import heavy


class SkipBlock(nn.Module):
    def __init__(self, planes: int = 4):
        super().__init__()
        self.conv = nn.Conv2d(planes, planes, 3, padding=1)
        self.factor = heavy.FACTOR

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x.clone()  # expect: TCL001
        out = self.conv(x) * self.factor
        out += identity
        return out
