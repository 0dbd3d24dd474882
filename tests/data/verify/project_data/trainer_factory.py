"""A trainer whose networks its constructor is given, built by the class's own `makenew()`; its step
adds instance noise to the batch before the critic reads it."""

import torch
from torch import nn


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(1, 4, 4, 2, 1), nn.Flatten(), nn.Linear(4 * 8 * 8, 1))

    def forward(self, x):
        return self.net(x)


class Maker(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 16 * 16), nn.Tanh())

    def forward(self, z):
        return self.net(z).view(-1, 1, 16, 16)


class GANTrainer:
    def __init__(self, disc, gen):
        self.disc, self.gen = disc, gen
        self.optim_d = torch.optim.Adam(self.disc.parameters(), 1e-4)

    @staticmethod
    def makenew():
        return GANTrainer(Critic(), Maker())

    def disc_step(self, data):
        self.optim_d.zero_grad()
        r_data = data + 0.1 * torch.randn_like(data)
        g_data = self.gen(torch.randn(data.shape[0], 16))
        loss = self.disc(g_data).mean() - self.disc(r_data).mean()  # expect: TCL003
        loss.backward()
        self.optim_d.step()
        return loss.item()
