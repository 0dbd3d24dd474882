"""A top-level GAN script whose noise and targets are sized by its batch-size setting: with the
stand-in batches cut small, the script reads the setting as their size too, so every tensor it sizes
by it agrees with them."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

BATCH_SIZE = 128
NOISE_DIM = 16

dataset = datasets.MNIST("data/", train=True, download=True, transform=transforms.ToTensor())
loader = DataLoader(dataset, batch_size=BATCH_SIZE, shuffle=True)
gen = nn.Sequential(nn.Linear(NOISE_DIM, 784), nn.Tanh())
disc = nn.Sequential(nn.Flatten(), nn.Linear(784, 1), nn.Sigmoid())
opt_gen = torch.optim.Adam(gen.parameters(), lr=2e-4)
opt_disc = torch.optim.Adam(disc.parameters(), lr=2e-4)
criterion = nn.BCELoss()
real_label = torch.ones(BATCH_SIZE, 1)
G_losses = []

for epoch in range(5):
    for real, _ in loader:
        fake = gen(torch.randn(BATCH_SIZE, NOISE_DIM))
        loss_disc = criterion(disc(real), torch.ones(BATCH_SIZE, 1)) + \
            criterion(disc(fake.detach()), torch.zeros(BATCH_SIZE, 1))
        opt_disc.zero_grad()
        loss_disc.backward()
        opt_disc.step()
        loss_gen = criterion(disc(fake), torch.ones(BATCH_SIZE, 1))
        opt_gen.zero_grad()
        loss_gen.backward()
        opt_gen.step()
        G_losses.append(loss_gen)
