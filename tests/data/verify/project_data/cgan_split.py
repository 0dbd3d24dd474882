"""A conditional GAN whose discriminator stacks a 64x64 label map on the images: the batches come
from `Dataset()` of the project's data module, unpacked, then given to a DataLoader."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from mnist_data import Dataset


class Generator(nn.Module):
    def __init__(self, z_dim=16):
        super().__init__()
        self.embed = nn.Embedding(10, z_dim)
        self.net = nn.Sequential(nn.Linear(z_dim, 64 * 64), nn.Tanh())

    def forward(self, z, labels):
        return self.net(z * self.embed(labels)).view(-1, 1, 64, 64)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 64 * 64)
        self.net = nn.Sequential(nn.Conv2d(2, 4, 4, 4), nn.Flatten(), nn.Linear(4 * 16 * 16, 1), nn.Sigmoid())

    def forward(self, x, labels):
        label_map = self.embed(labels).view(labels.shape[0], 1, 64, 64)
        return self.net(torch.cat((x, label_map), dim=1))


train_set, val_set = Dataset()
loader = DataLoader(dataset=train_set, batch_size=64, shuffle=True)
G, D = Generator(), Discriminator()
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4)
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)
criterion = nn.BCELoss()

for epoch in range(20):
    for images, labels in loader:
        z = torch.randn(images.shape[0], 16)
        fake = G(z, labels)
        d_loss = criterion(D(images, labels), torch.ones(images.shape[0], 1)) + \
            criterion(D(fake, labels), torch.zeros(images.shape[0], 1))  # expect: TCL003
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        g_loss = criterion(D(fake, labels), torch.ones(images.shape[0], 1))
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
