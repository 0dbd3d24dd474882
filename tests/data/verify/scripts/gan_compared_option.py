"""A GAN step in a function that reads the script's `--loss`, an option declared without choices
that the step compares with strings: the undetached discriminator losses are under the values it is
compared with (`"wgan"`) and under none of them (its `else:`); the default takes the detached one."""

import argparse
import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--loss", type=str, default="hinge")
args = parser.parse_args()
G = nn.Sequential(nn.Linear(8, 16), nn.Tanh())
D = nn.Sequential(nn.Linear(16, 1))
opt_d = torch.optim.Adam(D.parameters())


def train_step(real):
    fake = G(torch.randn(real.shape[0], 8))
    opt_d.zero_grad()
    if args.loss == "hinge":
        d_loss = torch.relu(1 - D(real)).mean() + torch.relu(1 + D(fake.detach())).mean()
    elif args.loss == "wgan":
        d_loss = D(fake).mean() - D(real).mean()
    else:
        d_loss = nn.functional.softplus(-D(real)).mean() + nn.functional.softplus(D(fake)).mean()
    d_loss.backward()
    opt_d.step()


for step in range(3):
    train_step(torch.rand(4, 16))
