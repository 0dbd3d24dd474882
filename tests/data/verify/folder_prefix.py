"""A trainer object called with the folder its files go in, prefixed to a class attribute
(`self.folder = path + self.folder`, then `os.makedirs(self.folder)`): the argument is text, a
folder, not a number (fresh56's LSTM scripts; a float stand-in failed at the `+`) (TCL007)."""

import os

import torch
from torch import nn


class Forecaster:
    folder = "lstm/"
    modelfile = "lstm.pkl"

    def __call__(self, path, steps, learning_rate):
        self.folder = path + self.folder
        if not os.path.exists(self.folder):
            os.makedirs(self.folder)
        self.modelfile = self.folder + self.modelfile
        model = nn.Linear(4, 1)
        optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
        total = 0.0
        for step in range(steps):
            x, y = torch.randn(8, 4), torch.randn(8, 1)
            loss = nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total = total + loss
        torch.save(model.state_dict(), self.modelfile)
        return total / steps
