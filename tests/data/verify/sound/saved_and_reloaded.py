"""A run that saves its network and loads it back before it trains: `--verify` reads back what the
run saved (to memory, never to the user's disk), so the network it trains is the one it built."""

import os

import torch
from torch import nn

# Beside this file, in the project, wherever the run starts (a write to the temporary folder is a real one).
CHECKPOINT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "checkpoint_reloaded.pt")


def train(steps: int = 20):
    net = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
    torch.save(net, CHECKPOINT)
    net = torch.load(CHECKPOINT, weights_only=False)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    total = 0
    for _ in range(steps):
        loss = net(torch.randn(4, 8)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss  # expect: TCL007
    return total
