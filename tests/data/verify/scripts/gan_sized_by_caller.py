"""A GAN step in a function the script calls with its loader and its batch size: the targets and the
reshape are sized by that batch size, so stand-in batches cut small do not fit (the run takes the size
the code asks for). The noise is as wide as the real generator's first layer: only the networks the
script builds run it."""

import torch
import torch.nn as nn
import torchvision
from torchvision import transforms


def get_loader(root, batch_size):
    data = torchvision.datasets.MNIST(root, train=True, download=True, transform=transforms.ToTensor())
    return torch.utils.data.DataLoader(data, batch_size=batch_size, shuffle=True, drop_last=True)


def train(G, D, loader, batch_size, latent_dim, epochs):
    criterion = nn.BCELoss()
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-4)
    real_targets = torch.ones(batch_size, 1)
    fake_targets = torch.zeros(batch_size, 1)
    for epoch in range(epochs):
        for images, _ in loader:
            fake = G(torch.randn(batch_size, G[0].in_features))  # the real network's width: no stand-in has it
            d_loss = criterion(D(images.view(batch_size, -1)), real_targets) + criterion(D(fake), fake_targets)
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
            g_loss = criterion(D(fake), real_targets)
            opt_g.zero_grad()
            g_loss.backward()
            opt_g.step()


if __name__ == "__main__":
    G = nn.Sequential(nn.Linear(16, 784), nn.Sigmoid())
    D = nn.Sequential(nn.Linear(784, 1), nn.Sigmoid())
    train(G, D, get_loader("data/", 64), 64, 16, 5)
