"""A GAN held by a plain class: the sizes it is built with are kept on `self` and read back by the
layers `__init__` builds, so the constructor's parameters are numbers, not tensors."""
import torch
from torch import nn


class GANHolder:
    def __init__(self, feature_depth, latent_depth, learning_rate=0.0002):
        self.feature_depth = feature_depth
        self.latent_depth = latent_depth
        self.generator = nn.Sequential(nn.Linear(self.latent_depth, 32), nn.ReLU(),
                                       nn.Linear(32, self.feature_depth), nn.Tanh())
        self.discriminator = nn.Sequential(nn.Linear(self.feature_depth, 32), nn.ReLU(),
                                           nn.Linear(32, 1), nn.Sigmoid())
        self.loss = nn.BCELoss()
        self.generator_opt = torch.optim.Adam(self.generator.parameters(), lr=learning_rate)
        self.discriminator_opt = torch.optim.Adam(self.discriminator.parameters(), lr=learning_rate)

    def train_step(self, real_samples):
        batch = real_samples.shape[0]
        latents = torch.randn(batch, self.latent_depth)
        faked_samples = self.generator(latents)
        faked_scores = self.discriminator(faked_samples)
        real_scores = self.discriminator(real_samples)
        discriminator_loss = self.loss(real_scores, torch.ones(batch, 1)) + \
            self.loss(faked_scores, torch.zeros(batch, 1))
        self.discriminator_opt.zero_grad()
        discriminator_loss.backward()
        self.discriminator_opt.step()
        return discriminator_loss.item()
