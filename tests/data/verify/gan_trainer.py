"""A GAN trainer whose networks come from a package that is not installed here."""

import torch
from torch import nn

from ganzoo_not_installed.models import Discriminator, Generator


class GANTrainer:
    def __init__(self, config):
        self.gen = Generator(config.model)
        self.disc = Discriminator(config.model)
        self.opt_gen = torch.optim.Adam(self.gen.parameters(), lr=config.lr)
        self.opt_disc = torch.optim.Adam(self.disc.parameters(), lr=config.lr)
        self.criterion = nn.BCEWithLogitsLoss()
        self.latent_dim = config.latent_dim

    def train_step(self, real):
        noise = torch.randn(real.size(0), self.latent_dim)
        fake = self.gen(noise)
        d_real = self.disc(real)
        d_fake = self.disc(fake)
        d_loss = self.criterion(d_real, torch.ones_like(d_real)) + self.criterion(d_fake, torch.zeros_like(d_fake))
        self.opt_disc.zero_grad()
        d_loss.backward()
        self.opt_disc.step()

        g_loss = self.criterion(self.disc(fake), torch.ones_like(d_fake))
        self.opt_gen.zero_grad()
        g_loss.backward()
        self.opt_gen.step()
        return d_loss.item(), g_loss.item()
