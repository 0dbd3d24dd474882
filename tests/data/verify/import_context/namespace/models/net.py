"""A folder without __init__.py whose modules import each other relatively: a namespace package,
imported as `models.net` from the folder above (as the project's scripts do)."""

import torch
from torch import nn

from .layers import conv3x3


class NamespacedBlock(nn.Module):
    def __init__(self, planes: int = 4):
        super().__init__()
        self.conv = conv3x3(planes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x.clone()  # expect: TCL001
        out = self.conv(x)
        out += identity
        return out
