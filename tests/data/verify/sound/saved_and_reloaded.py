"""A run that saves its network and loads it back before it trains: `--verify` reads back what the
run saved (to memory, never to the user's disk), so the network it trains is the one it built."""

import torch
from torch import nn


def train(steps: int = 20):
    net = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
    torch.save(net, "checkpoint_reloaded.pt")
    net = torch.load("checkpoint_reloaded.pt", weights_only=False)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    total = 0
    for _ in range(steps):
        loss = net(torch.randn(4, 8)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss  # expect: TCL007
    return total
