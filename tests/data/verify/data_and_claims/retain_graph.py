"""`retain_graph=True` that no later backward needs (TCL011; the test takes its fix away, so the
experiment makes its own), and one a later backward does need (a hand-made TCL011, refuted)."""

import torch
from torch import nn

model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)


def train(steps):
    for step in range(steps):
        x = torch.randn(16, 8)
        loss = model(x).pow(2).mean()
        optimizer.zero_grad()
        loss.backward(retain_graph=True)  # expect: TCL011
        optimizer.step()


def train_two_losses(steps):
    for step in range(steps):
        x = torch.randn(16, 8)
        hidden = model(x)
        first = hidden.pow(2).mean()
        second = (hidden * 2).abs().mean()
        optimizer.zero_grad()
        first.backward(retain_graph=True)
        second.backward()
        optimizer.step()
