"""Two findings in one module of a package that cannot be imported, needing the package (a relative
import): both verdicts must say why."""

import torch
from torch import nn

from .layers import conv3x3


class FirstBlock(nn.Module):
    def __init__(self, planes: int = 4):
        super().__init__()
        self.conv = conv3x3(planes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x.clone()  # expect: TCL001
        out = self.conv(x)
        out += identity
        return out


class SecondBlock(FirstBlock):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x.clone()  # expect: TCL001
        out = self.conv(x)
        out += identity
        return out
