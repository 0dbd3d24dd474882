"""A WGAN tutorial retyped: one epoch is a function that `main()` runs with the networks and the MNIST
loader it builds; the critic's backward keeps its graph for the generator's step, which reuses the
critic's fake batch instead of detaching it."""
import argparse

import torch
from torch import nn, optim
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


class Critic(nn.Module):
    def __init__(self, channels, features=8):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(channels, features, 4, 2, 1), nn.LeakyReLU(0.2),
            nn.Conv2d(features, features * 2, 4, 2, 1), nn.LeakyReLU(0.2),
            nn.Conv2d(features * 2, 1, 7, 1, 0),
        )

    def forward(self, x):
        return self.net(x)


class Generator(nn.Module):
    def __init__(self, z_dim, channels, features=8):
        super().__init__()
        self.net = nn.Sequential(
            nn.ConvTranspose2d(z_dim, features * 2, 7, 1, 0), nn.ReLU(),
            nn.ConvTranspose2d(features * 2, features, 4, 2, 1), nn.ReLU(),
            nn.ConvTranspose2d(features, channels, 4, 2, 1), nn.Tanh(),
        )

    def forward(self, z):
        return self.net(z)


def parse_opt():
    parser = argparse.ArgumentParser()
    parser.add_argument("--z-dim", type=int, default=16)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--critic-iterations", type=int, default=5)
    parser.add_argument("--weight-clip", type=float, default=0.01)
    return parser.parse_args()


def train_one_epoch(loader, gen, critic, opt_gen, opt_critic, config):
    for real, _ in loader:
        batch = real.shape[0]
        for _ in range(config.critic_iterations):
            noise = torch.randn(batch, config.z_dim, 1, 1)
            fake = gen(noise)
            critic_real = critic(real).reshape(-1)
            critic_fake = critic(fake).reshape(-1)
            loss_critic = -(critic_real.mean() - critic_fake.mean())
            critic.zero_grad()
            loss_critic.backward(retain_graph=True)
            opt_critic.step()
            for p in critic.parameters():
                p.data.clamp_(-config.weight_clip, config.weight_clip)
        loss_gen = -critic(fake).reshape(-1).mean()
        gen.zero_grad()
        loss_gen.backward()
        opt_gen.step()


def main(config):
    transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])
    dataset = datasets.MNIST(root="data", transform=transform, download=True)
    loader = DataLoader(dataset, batch_size=64, shuffle=True)
    gen, critic = Generator(config.z_dim, 1), Critic(1)
    opt_gen = optim.RMSprop(gen.parameters(), lr=5e-5)
    opt_critic = optim.RMSprop(critic.parameters(), lr=5e-5)
    for _ in range(config.epochs):
        train_one_epoch(loader, gen, critic, opt_gen, opt_critic, config)


if __name__ == "__main__":
    main(parse_opt())
