"""A GAN trainer that logs through packages that are not installed: one named for logging
(`tensorboard_logger`), and the logging module of another (`k_util.logger`). A logger records what it
is given and gives back nothing the step computes with: no-ops stand in for both."""

import torch
import torch.nn as nn
from k_util.logger import Logger
from tensorboard_logger import configure, log_value


def train(steps):
    configure("runs/gan", flush_secs=5)
    G = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    D = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
    opt_G = torch.optim.Adam(G.parameters(), lr=2e-4)
    opt_D = torch.optim.Adam(D.parameters(), lr=2e-4)
    bce = nn.BCEWithLogitsLoss()
    Logger.field("Generator parameters", sum(p.numel() for p in G.parameters()))
    for step in range(steps):
        real = torch.randn(32, 4)
        fake = G(torch.randn(32, 8))
        d_loss = bce(D(real), torch.ones(32, 1)) + bce(D(fake), torch.zeros(32, 1))
        opt_D.zero_grad()
        d_loss.backward()
        opt_D.step()
        g_loss = bce(D(G(torch.randn(32, 8))), torch.ones(32, 1))
        opt_G.zero_grad()
        g_loss.backward()
        opt_G.step()
        log_value("d_loss", d_loss.item(), step)
        Logger.field("g_loss", g_loss.item())


if __name__ == "__main__":
    train(1000)
