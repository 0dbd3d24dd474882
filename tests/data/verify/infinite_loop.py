"""A block whose forward never returns: --verify must give up after its time limit."""

import torch
from torch import nn


class SpinningBlock(nn.Module):
    def __init__(self, planes: int = 4):
        super().__init__()
        self.conv = nn.Conv2d(planes, planes, kernel_size=3, padding=1, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x.clone()
        out = self.conv(x)
        steps = 0
        while steps >= 0:  # waits for a condition that never comes
            steps += 1
        out += identity
        return out
