"""Residual blocks for the --verify tests (small: 4 channels).

`CloningBlock` copies its input for nothing (TCL001); `AliasBlock` keeps an
alias of its input that an in-place ReLU then rewrites (TCL002);
`NeededCloneBlock` is correct: its clone is what keeps the shortcut intact.
"""

import torch
from torch import nn


class CloningBlock(nn.Module):
    def __init__(self, planes: int = 4):
        super().__init__()
        self.conv = nn.Conv2d(planes, planes, kernel_size=3, padding=1, bias=False)
        self.relu = nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x.clone()
        out = self.conv(x)
        out += identity
        return self.relu(out)


class AliasBlock(nn.Module):
    def __init__(self, planes: int = 4):
        super().__init__()
        self.relu = nn.ReLU(inplace=True)
        self.conv = nn.Conv2d(planes, planes, kernel_size=3, padding=1, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x
        x = self.relu(x)
        out = self.conv(x)
        out += identity
        return out


class NeededCloneBlock(nn.Module):
    def __init__(self, planes: int = 4):
        super().__init__()
        self.relu = nn.ReLU(inplace=True)
        self.conv = nn.Conv2d(planes, planes, kernel_size=3, padding=1, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x.clone()
        x = self.relu(x)  # ReLU(inplace=True) rewrites x: the clone is needed
        out = self.conv(x)
        out += identity
        return out
