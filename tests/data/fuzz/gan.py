"""One GAN training step, generator and discriminator in turn (seed for the fuzz test)."""

import torch
from torch import nn

netG = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 16), nn.Tanh())
netD = nn.Sequential(nn.Linear(16, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
optG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
optD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
criterion = nn.BCEWithLogitsLoss()


def step(real):
    batch = real.size(0)
    noise = torch.randn(batch, 8)
    fake = netG(noise)

    optD.zero_grad()
    loss_real = criterion(netD(real), torch.ones(batch, 1))
    loss_fake = criterion(netD(fake), torch.zeros(batch, 1))
    loss_d = loss_real + loss_fake
    loss_d.backward(retain_graph=True)
    optD.step()

    optG.zero_grad()
    loss_g = criterion(netD(fake), torch.ones(batch, 1))
    loss_g.backward()
    optG.step()
    return loss_d.item(), loss_g.item()


for _ in range(3):
    step(torch.randn(32, 16))
