"""A top-level GAN step whose discriminator loss is written over two lines (`+ \\`): Python reports
the statement's first line again as it evaluates the second, which is not another pass of the loop."""

import torch
from torch import nn

G = nn.Sequential(nn.Linear(8, 16), nn.Tanh())
D = nn.Sequential(nn.Linear(16, 1), nn.Sigmoid())
opt_d = torch.optim.Adam(D.parameters())
bce = nn.BCELoss()
for epoch in range(10):
    real = torch.rand(4, 16)
    fake = G(torch.randn(4, 8))
    opt_d.zero_grad()
    d_loss = bce(D(real), torch.ones(4, 1)) + \
        bce(D(fake), torch.zeros(4, 1))
    d_loss.backward()
    opt_d.step()
