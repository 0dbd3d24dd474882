"""A module that needs a package that is not installed."""

import not_a_real_package
import torch
from torch import nn


class PluginBlock(nn.Module):
    def __init__(self, planes: int = 4):
        super().__init__()
        self.conv = nn.Conv2d(planes, planes, kernel_size=3, padding=1, bias=False)
        self.act = not_a_real_package.Activation()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x.clone()
        out = self.act(self.conv(x))
        out += identity
        return out


class PlainBlock(nn.Module):
    """Needs nothing from the missing package: its snippet leaves that import out."""

    def __init__(self, planes: int = 4):
        super().__init__()
        self.conv = nn.Conv2d(planes, planes, kernel_size=3, padding=1, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x.clone()
        out = self.conv(x)
        out += identity
        return out
