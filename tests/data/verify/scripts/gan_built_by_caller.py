"""The step is a function of networks whose own layers it reads (`G[0].in_features`), so no stand-in
network fits it; the function that builds them and calls the step is called at the top level with
the loader the script made. The step runs as that call runs it."""

import torch
from torch import nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


def train_step(G, D, real, opt_d, criterion):
    z = torch.randn(real.size(0), G[0].in_features)
    fake = G(z)
    d_loss = criterion(D(real), torch.ones(real.size(0), 1)) + criterion(D(fake), torch.zeros(real.size(0), 1))
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    return d_loss.item()


def fit(loader, epochs, latent_dim):
    G = nn.Sequential(nn.Linear(latent_dim, 64), nn.ReLU(), nn.Linear(64, 784), nn.Tanh())
    D = nn.Sequential(nn.Linear(784, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1), nn.Sigmoid())
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)
    criterion = nn.BCELoss()
    for epoch in range(epochs):
        for images, _ in loader:
            train_step(G, D, images.view(images.size(0), -1), opt_d, criterion)
    return G, D


loader = DataLoader(datasets.MNIST("data", download=True, transform=transforms.ToTensor()), batch_size=32)
G, D = fit(loader, 50, latent_dim=24)
