"""A face GAN whose images are two NumPy files read as floats, joined and moved channels first, then
iterated by a DataLoader whose batch size is a top-level setting; each epoch sums its losses as
tensors. --verify reads no file: random samples stand in, and the setting is cut so that they make
several batches an epoch (fresh76's DLCV homework, TCL007: before, the read under `.astype` was not
seen as the loader's data, and 20 samples made one batch of 200)."""

import numpy as np
import torch
import torch.nn as nn
from torch.utils import data

batch_size = 200

train_images = np.load("../data/X_train.npy").astype(np.float32)
test_images = np.load("../data/X_test.npy").astype(np.float32)
images = np.concatenate((train_images, test_images), axis=0)
images = np.rollaxis(images, 3, 1)
images = (images - 127.5) / 127.5
loader = data.DataLoader(images, batch_size=batch_size, shuffle=True)

G = nn.Sequential(nn.ConvTranspose2d(16, 32, 4, 1, 0), nn.ReLU(), nn.ConvTranspose2d(32, 3, 4, 2, 1), nn.Tanh())
D = nn.Sequential(nn.Conv2d(3, 16, 4, 2, 1), nn.LeakyReLU(0.2), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                  nn.Linear(16, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optimizer_G = torch.optim.Adam(G.parameters(), lr=2e-4)
optimizer_D = torch.optim.Adam(D.parameters(), lr=2e-4)

for epoch in range(100):
    generator_total = 0.0
    for real in loader:
        ones = torch.ones(real.size(0), 1)
        zeros = torch.zeros(real.size(0), 1)
        optimizer_D.zero_grad()
        fake = G(torch.randn(real.size(0), 16, 1, 1))
        loss_D = criterion(D(real), ones) + criterion(D(fake.detach()), zeros)
        loss_D.backward()
        optimizer_D.step()
        optimizer_G.zero_grad()
        loss_G = criterion(D(fake), ones)
        loss_G.backward()
        optimizer_G.step()
        generator_total += loss_G
    print(epoch, generator_total / len(loader))
