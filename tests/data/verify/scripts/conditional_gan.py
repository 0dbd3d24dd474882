"""A conditional GAN: G(z, c) and D(x, c) take a one-hot label besides their input.

`train_step` receives the networks; the classes are built at the top level. A replay
of G -> D must make both inputs of each network as the call sites do; so must an
experiment on the discriminator's own `forward(x, c)` (TCL001 on `h.clone()`).
"""

import torch
import torch.nn.functional as F
from torch import nn

N_CLASSES = 10
Z_DIM = 16
IMAGE = 28 * 28


class CondGenerator(nn.Module):
    def __init__(self, z_dim=Z_DIM, n_classes=N_CLASSES):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim + n_classes, 64), nn.ReLU(), nn.Linear(64, IMAGE), nn.Tanh())

    def forward(self, z, c):
        return self.net(torch.cat([z, c], dim=1))


class CondDiscriminator(nn.Module):
    def __init__(self, n_classes=N_CLASSES):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(IMAGE + n_classes, 64), nn.LeakyReLU(0.2))
        self.skip = nn.Linear(IMAGE + n_classes, 64)
        self.head = nn.Linear(64, 1)

    def forward(self, x, c):
        h = torch.cat([x.view(x.size(0), -1), c], dim=1)
        shortcut = h.clone()
        return self.head(self.body(h) + self.skip(shortcut))


def train_step(G, D, opt_g, opt_d, real, labels, batch_size=32):
    c = F.one_hot(labels, N_CLASSES).float()
    z = torch.randn(batch_size, Z_DIM)
    fake = G(z, c)
    d_loss = F.softplus(-D(real, c)).mean() + F.softplus(D(fake, c)).mean()
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_loss = F.softplus(-D(fake, c)).mean()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()


G = CondGenerator()
D = CondDiscriminator()
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4)
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)
