"""A top-level GAN step whose undetached discriminator loss is on the path one value of an option
selects (`--loss hinge`); the default takes the other, detached one."""

import argparse
import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--loss", type=str, default="bce", choices=["bce", "hinge"])
parser.add_argument("--steps", type=int, default=5)
args = parser.parse_args()
G = nn.Sequential(nn.Linear(8, 16), nn.Tanh())
D = nn.Sequential(nn.Linear(16, 1))
opt_d = torch.optim.Adam(D.parameters())
for step in range(args.steps):
    real = torch.rand(4, 16)
    fake = G(torch.randn(4, 8))
    opt_d.zero_grad()
    if args.loss == "hinge":
        d_loss = torch.relu(1 - D(real)).mean() + torch.relu(1 + D(fake)).mean()
    else:
        d_loss = nn.functional.softplus(-D(real)).mean() + nn.functional.softplus(D(fake.detach())).mean()
    d_loss.backward()
    opt_d.step()
