"""Sprites from a folder, read by a Dataset of the file; the step reshapes each batch to exactly
`batch_size` one-channel 28x28 images for a convolutional discriminator: the stand-in batches must
hold that many samples of that shape. In a notebook-style function reading globals (TCL003)."""

import os

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset
from PIL import Image

batch_size = 32
latent = 16


class Sprites(Dataset):
    def __init__(self, root):
        self.files = sorted(os.listdir(root))

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        image = np.asarray(Image.open(self.files[i]).convert("L"), dtype=np.float32) / 255
        return torch.from_numpy(image), 0


loader = DataLoader(Sprites("sprites/"), batch_size=batch_size, shuffle=True, drop_last=True)
G = nn.Sequential(nn.Linear(latent, 784), nn.Tanh())
D = nn.Sequential(nn.Conv2d(1, 8, 4, 2, 1), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(8 * 14 * 14, 1))
opt_d = torch.optim.Adam(D.parameters())
opt_g = torch.optim.Adam(G.parameters())


def train(epoch):
    for imgs, _ in loader:
        real = imgs.view(batch_size, 1, 28, 28)
        z = torch.randn(batch_size, latent)
        fake = G(z).view(batch_size, 1, 28, 28)
        d_loss = D(fake).mean() - D(real).mean()  # expect: TCL003
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        g_loss = -D(fake).mean()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
