"""A trainer object (not a module) whose constructor builds its networks: a generator that reads 100
noise features and a critic for 64-pixel images. The step's arguments are stand-ins, made again in the
shape of the network each is handed to (`self.generator(noise)`, `self.critic(real)`) once the object
is built: the default stand-ins (4x16 noise, 4x8 samples) fit neither."""

import torch
from torch import nn


class Generator(nn.Module):
    def __init__(self, latent=100):
        super().__init__()
        self.linear = nn.Linear(latent, 8 * 8 * 8)
        self.up = nn.Sequential(nn.ConvTranspose2d(8, 4, 4, 2, 1), nn.ReLU(), nn.ConvTranspose2d(4, 4, 4, 2, 1),
                                nn.ReLU(), nn.ConvTranspose2d(4, 3, 4, 2, 1), nn.Tanh())

    def forward(self, z):
        return self.up(self.linear(z).view(-1, 8, 8, 8))


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 4, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(4, 8, 4, 2, 1),
                                      nn.LeakyReLU(0.2))
        self.score = nn.Linear(8 * 16 * 16, 1)

    def forward(self, x):
        return self.score(self.features(x).flatten(1))


class Trainer:
    def __init__(self, lr=1e-4):
        self.generator = Generator()
        self.critic = Critic()
        self.critic_optimizer = torch.optim.Adam(self.critic.parameters(), lr=lr)
        self.generator_optimizer = torch.optim.Adam(self.generator.parameters(), lr=lr)

    def train_critic(self, real, noise):
        fake = self.generator(noise)
        loss = self.critic(fake).mean() - self.critic(real).mean()  # expect: TCL003
        self.critic_optimizer.zero_grad()
        loss.backward()
        self.critic_optimizer.step()
        return loss.item()
