"""A trainer whose only caller is a script whose top level fails before the call: it reads a series
from a CSV that is not here, then indexes it (`series[0].shape[1]`) outside what may fail."""

import torch
from torch import nn


class SeriesTrainer:
    def __init__(self, width):
        self.net = nn.Linear(width, 1)
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.1)

    def fit(self, batches):
        total = 0
        for x in batches:
            loss = self.net(x).pow(2).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            total += loss  # expect: TCL007
        return total
