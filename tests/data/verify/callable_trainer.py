"""A GAN trainer object: built with its settings, then called with the script's networks."""
import torch
from torch import nn


class Generator(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.width = width
        self.body = nn.Sequential(nn.Linear(width, 32), nn.ReLU(), nn.Linear(32, width))

    def forward(self, z):
        return self.body(z)


class Critic(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(width, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))

    def forward(self, x):
        return self.body(x)


class GANTrain:
    def __init__(self, lr, epochs, batch_size):
        self.lr, self.epochs, self.batch_size = lr, epochs, batch_size
        self.critic_losses = []

    def __call__(self, G, D, mean, std):
        optimizer_G = torch.optim.Adam(G.parameters(), lr=self.lr)
        optimizer_D = torch.optim.Adam(D.parameters(), lr=self.lr)
        for epoch in range(self.epochs):
            real = mean + std * torch.randn(self.batch_size, G.width)  # a width only the script's G has
            fake = G(torch.randn(self.batch_size, G.width))
            optimizer_D.zero_grad()
            critic_loss = D(fake.detach()).mean() - D(real).mean()
            critic_loss.backward()
            optimizer_D.step()
            self.critic_losses.append(critic_loss.clone().detach())
            optimizer_G.zero_grad()
            (-D(fake).mean()).backward()
            optimizer_G.step()
        return G, D


G = Generator(12)
D = Critic(12)
train = GANTrain(1e-3, 2, 8)
G, D = train(G, D, 0.0, 1.0)
