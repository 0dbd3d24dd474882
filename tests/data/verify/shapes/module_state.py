"""Running statistics kept on a module across calls: the update reads the batch's mean, which
requires grad, so each call's graph hangs off the attribute and the next call's graph holds it."""

import torch
import torch.nn as nn


class RunningCenter(nn.Module):
    def __init__(self, features=16, momentum=0.9):
        super().__init__()
        self.momentum = momentum
        self.proj = nn.Linear(features, features)
        self.register_buffer("avg", torch.zeros(features))

    def forward(self, x):
        h = self.proj(x)
        mean = h.mean(0)
        self.avg = self.avg * self.momentum + mean * (1 - self.momentum)  # expect: TCL007
        return h - self.avg



class DetachedCenter(nn.Module):
    """Correct: the statistic is updated from the detached mean. A TCL007 here is made by hand (false)."""

    def __init__(self, features=16, momentum=0.9):
        super().__init__()
        self.momentum = momentum
        self.proj = nn.Linear(features, features)
        self.register_buffer("avg", torch.zeros(features))

    def forward(self, x):
        h = self.proj(x)
        mean = h.mean(0).detach()
        self.avg = self.avg * self.momentum + mean * (1 - self.momentum)
        return h - self.avg
