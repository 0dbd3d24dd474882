"""The networks of sr_pair_train.py: an upscaler doubling the side and a critic of high-resolution images."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader


class Upscaler(nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, width, 3, padding=1), nn.PReLU(), nn.Conv2d(width, 12, 3, padding=1))
        self.shuffle = nn.PixelShuffle(2)

    def forward(self, low):
        return self.shuffle(self.body(low))


class Critic(nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, width, 3, 2, 1), nn.LeakyReLU(0.2), nn.AdaptiveAvgPool2d(1))
        self.score = nn.Linear(width, 1)

    def forward(self, image):
        return torch.sigmoid(self.score(self.features(image).flatten(1)))
