"""U-Net skips read after the next down block's in-place activation wrote them (TCL002).

In `UnetSkip` the skip holds the leaky-rectified values, but the up path starts with a ReLU, which
zeroes every value the leaky activation changed: the read sees the written values (the claim) and
the output is the same either way. In `PositiveSkip` the skip is a square, which the leaky
activation leaves as it is: the read sees the values passed in.
"""

import torch
from torch import nn


class Down(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.block = nn.Sequential(nn.LeakyReLU(0.2, inplace=True), nn.Conv2d(channels, channels, 3, padding=1),
                                   nn.BatchNorm2d(channels))

    def forward(self, x):
        return self.block(x)


class UnetSkip(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Conv2d(3, 8, 3, padding=1)
        self.down = Down(8)
        self.up = nn.Sequential(nn.ReLU(), nn.Conv2d(16, 3, 3, padding=1))

    def forward(self, x):
        x0 = self.inner(x)
        x1 = self.down(x0)
        return self.up(torch.cat((x1, x0), dim=1))


class PositiveSkip(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Conv2d(3, 8, 3, padding=1)
        self.down = Down(8)
        self.out = nn.Conv2d(16, 3, 3, padding=1)

    def forward(self, x):
        h = torch.square(self.inner(x))
        x1 = self.down(h)
        return self.out(torch.cat((x1, h), dim=1))
