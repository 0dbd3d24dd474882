"""Residual blocks whose in-place ReLU runs only when a constructor flag selects that branch.

`FlagBlock` is the bug the default configuration hides: with `inplace_act=True` the ReLU
rewrites `x`, and `identity` with it. `DeadFlagBlock` has the same code, but its branch can
never run (a 4-D activation never has more than 8 dimensions): nothing can be concluded.
"""

import torch
from torch import nn


class FlagBlock(nn.Module):
    def __init__(self, channels, inplace_act=False):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.inplace_act = inplace_act
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        identity = x
        if self.inplace_act:
            x = self.relu(x)
        out = self.conv(x)
        out += identity
        return out


class DeadFlagBlock(nn.Module):
    def __init__(self, channels, inplace_act=False):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.inplace_act = inplace_act
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        identity = x
        if self.inplace_act and x.dim() > 8:
            x = self.relu(x)
        out = self.conv(x)
        out += identity
        return out
