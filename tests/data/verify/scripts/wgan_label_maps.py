"""A conditional WGAN-GP on 1-channel 24x24 load profiles, its label drawn as an extra image channel.

The data is a CSV this project does not ship (read by `load_profiles` of wgan_profiles.py); the critic concatenates a
label map of the images' side to its input, so its first convolution reads one channel more than the
images have. The critic step feeds it the generator's output undetached, also through the penalty
of another module, and keeps the graph for the generator's step (TCL003, TCL011).
"""
import torch
from torch import nn

from wgan_penalty import gradient_penalty
from wgan_profiles import load_profiles

SIDE, CLASSES, Z_DIM, CRITIC_STEPS = 24, 12, 32, 3


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(CLASSES, 8)
        self.net = nn.Sequential(nn.ConvTranspose2d(Z_DIM + 8, 16, 6, 1, 0), nn.ReLU(),
                                 nn.ConvTranspose2d(16, 1, 4, 4, 0), nn.Tanh())

    def forward(self, z, labels):
        return self.net(torch.cat([z, self.embed(labels).unsqueeze(2).unsqueeze(3)], dim=1))


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(CLASSES, SIDE * SIDE)
        self.net = nn.Sequential(nn.Conv2d(2, 8, 4, 2, 1), nn.LeakyReLU(0.2), nn.Flatten(),
                                 nn.Linear(8 * 12 * 12, 1))

    def forward(self, x, labels):
        label_map = self.embed(labels).view(labels.shape[0], 1, SIDE, SIDE)
        return self.net(torch.cat([x, label_map], dim=1))


loader = load_profiles()
gen, critic = Generator(), Critic()
opt_gen = torch.optim.Adam(gen.parameters(), lr=1e-4, betas=(0.0, 0.9))
opt_critic = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.0, 0.9))

for epoch in range(100):
    for real, labels in loader:
        for _ in range(CRITIC_STEPS):
            fake = gen(torch.randn(real.shape[0], Z_DIM, 1, 1), labels)
            critic_real = critic(real, labels).reshape(-1)
            critic_fake = critic(fake, labels).reshape(-1)
            penalty = gradient_penalty(critic, labels, real, fake)
            loss_critic = critic_fake.mean() - critic_real.mean() + 10 * penalty
            critic.zero_grad()
            loss_critic.backward(retain_graph=True)
            opt_critic.step()
        loss_gen = -critic(fake, labels).mean()
        gen.zero_grad()
        loss_gen.backward()
        opt_gen.step()
