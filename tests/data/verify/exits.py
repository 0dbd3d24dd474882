"""A forward that calls sys.exit(): that diagnosis cannot be decided, but the next one in the file still can."""

import sys

import torch
from torch import nn


class ExitingBlock(nn.Module):
    def __init__(self, planes: int = 4):
        super().__init__()
        self.conv = nn.Conv2d(planes, planes, kernel_size=3, padding=1, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x.clone()
        out = self.conv(x)
        if out.dim() == 4:
            sys.exit(0)
        out += identity
        return out


class FineBlock(nn.Module):
    def __init__(self, planes: int = 4):
        super().__init__()
        self.conv = nn.Conv2d(planes, planes, kernel_size=3, padding=1, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x.clone()
        out = self.conv(x)
        out += identity
        return out
