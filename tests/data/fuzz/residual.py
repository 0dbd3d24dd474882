"""A small residual network, the way course code writes it (seed for the fuzz test)."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class BasicBlock(nn.Module):
    def __init__(self, channels: int, stride: int = 1) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(channels, channels, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        identity = x
        out = self.relu(x)
        out = self.conv1(out)
        out = self.bn1(out)
        out = self.relu(out)
        out = self.conv2(out)
        out = self.bn2(out)
        out += identity
        return out


class Head(nn.Module):
    def __init__(self, features: int, classes: int) -> None:
        super().__init__()
        self.fc = nn.Linear(features, classes)

    def forward(self, x):
        pooled = x.mean(dim=(2, 3))
        saved = pooled.clone()
        logits = self.fc(pooled)
        return logits, saved


def snapshot(t):
    return t.clone().detach()


def as_tensor(t):
    return torch.tensor(t)


def to_numpy(weight: nn.Parameter):
    return weight.numpy()


def stats(model: nn.Module) -> dict:
    out = {}
    for name, p in model.named_parameters():
        values = p.data.cpu().numpy()
        out[name] = float(np.abs(values).mean())
    return out
