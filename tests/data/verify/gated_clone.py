"""Copies that matter only on a branch the defaults do not take (TCL001 flags them, assuming
`self.act` does not write in place).

`GatedClone(preact=True)` runs the in-place activation: the copy is needed, so the honest verdict is
refuted (by a configuration that ran every line), never confirmed from the defaults alone.
`NeverTaken` can never run its branch: the copy's need cannot be tested, so `not reached`.
"""

import torch
from torch import nn


class GatedClone(nn.Module):
    def __init__(self, channels=4, act_layer=nn.ReLU, preact=False):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.act = act_layer(inplace=True)
        self.preact = preact

    def forward(self, x):
        identity = x.clone()
        if self.preact:
            x = self.act(x)
        return self.conv(x) + identity


class NeverTaken(nn.Module):
    def __init__(self, channels=4, act_layer=nn.ReLU):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.act = act_layer(inplace=True)
        self.preact = False

    def forward(self, x):
        identity = x.clone()
        if self.preact:
            x = self.act(x)
        return self.conv(x) + identity
