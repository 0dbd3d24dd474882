"""The discriminator's step written in a helper, called from the script's loop (and from a training function) with the fake batch:
the backward runs inside the helper, for the call that passed it the undetached fake."""

import torch
from torch import nn

netG = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
netD = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
optG = torch.optim.SGD(netG.parameters(), lr=0.01)
optD = torch.optim.SGD(netD.parameters(), lr=0.01)
bce = nn.BCEWithLogitsLoss()


def d_step(D, opt_d, real, fake):
    opt_d.zero_grad()
    out_real = D(real)
    out_fake = D(fake)
    loss = bce(out_real, torch.ones_like(out_real)) + bce(out_fake, torch.zeros_like(out_fake))
    loss.backward()
    opt_d.step()
    return loss.item()


def train_epoch(batches):
    for real in batches:
        fake = netG(torch.randn(real.size(0), 4))
        d_step(netD, optD, real, fake)  # expect: TCL003
        optG.zero_grad()
        out = netD(fake)
        bce(out, torch.ones_like(out)).backward()
        optG.step()


def train_epoch_detached(batches):
    """Correct: the helper gets `fake.detach()`. A TCL003 here is made by hand (false)."""
    for real in batches:
        fake = netG(torch.randn(real.size(0), 4))
        d_step(netD, optD, real, fake.detach())
        optG.zero_grad()
        out = netD(fake)
        bce(out, torch.ones_like(out)).backward()
        optG.step()


for epoch in range(2):
    real = torch.randn(16, 8)
    fake = netG(torch.randn(16, 4))
    d_loss = d_step(netD, optD, real, fake)  # expect: TCL003
    optG.zero_grad()
    out = netD(fake)
    g_loss = bce(out, torch.ones_like(out))
    g_loss.backward()
    optG.step()
