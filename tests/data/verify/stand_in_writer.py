"""A stem whose in-place ReLU overwrites the tensor an alias keeps, in a network the experiment cannot
build (its constructor needs a block class and a stage count that nothing in the file gives): its
layers are stand-in networks, which write nothing in place, so a run on them shows nothing."""

import torch
from torch import nn


class Backbone(nn.Module):
    def __init__(self, block, stages):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.relu = nn.ReLU(inplace=True)
        self.body = nn.Sequential(*[block(8) for _ in range(stages.count)])

    def forward(self, x):
        x = self.conv(x)
        stem = x  # expect: TCL002
        x = self.relu(x)
        return self.body(x), stem
