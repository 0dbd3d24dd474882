"""A module of a package that cannot be imported, needing nothing of the package: it runs alone."""

import torch
from torch import nn


class StandaloneBlock(nn.Module):
    def __init__(self, planes: int = 4):
        super().__init__()
        self.conv = nn.Conv2d(planes, planes, kernel_size=3, padding=1, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x.clone()  # expect: TCL001
        out = self.conv(x)
        out += identity
        return out
