"""A trainer whose networks come from modules the verifier cannot build from here, and whose loss is
named as losses often are: `self.MSE`."""

import torch
import torch.nn as nn

from architectures import make_generator, make_discriminator


class CycleTrainer(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.G = make_generator(args)
        self.D = make_discriminator(args)
        self.optim_D = torch.optim.Adam(self.D.parameters(), lr=args.lr)
        self.MSE = nn.MSELoss()

    def train_D(self, x, y):
        real = self.MSE(self.D(y), torch.ones(y.size(0), 1))
        fake = self.MSE(self.D(self.G(x)), torch.zeros(x.size(0), 1))  # expect: TCL003
        self.optim_D.zero_grad()
        (real + fake).backward()
        self.optim_D.step()
