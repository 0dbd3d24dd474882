"""A GAN training function that sizes its noise by what the generator keeps (`generator.latent_size`),
given networks built elsewhere (TCL003 inside). On stand-in networks, which read any width, the size
is the stand-in's width, and the evidence says so."""

import torch
from torch import nn


def train_epoch(generator, discriminator, loader, g_optimizer, d_optimizer):
    bce = nn.BCEWithLogitsLoss()
    for images, _ in loader:
        noise = torch.randn(images.size(0), generator.latent_size)
        real_scores = discriminator(images)
        fake_scores = discriminator(generator(noise))
        d_loss = bce(real_scores, torch.ones_like(real_scores)) + bce(fake_scores, torch.zeros_like(fake_scores))
        d_optimizer.zero_grad()
        d_loss.backward()
        d_optimizer.step()
        g_scores = discriminator(generator(noise))
        g_loss = bce(g_scores, torch.ones_like(g_scores))
        g_optimizer.zero_grad()
        g_loss.backward()
        g_optimizer.step()
