"""A block built from a sibling module's helper: --verify imports it, and must write no bytecode next to it."""

import torch
from sibling_layers import conv3x3
from torch import nn


class SiblingBlock(nn.Module):
    def __init__(self, planes: int = 4):
        super().__init__()
        self.conv = conv3x3(planes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x.clone()
        out = self.conv(x)
        out += identity
        return out
