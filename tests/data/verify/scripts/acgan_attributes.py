"""A conditional GAN of 2018 on faces and one of their attributes: the attribute is a column of a CSV
file read straight off the reader and taken out with pandas' `.as_matrix()` (removed in pandas 1.0),
the faces a NumPy file stored channels last, and the two are paired in a TensorDataset whose loader
takes a top-level batch size; each epoch sums its losses as tensors. The stand-in faces are as many
as the stand-in table's rows, and images, since the code moves their channels first (fresh76's DLCV
ACGAN, TCL007)."""

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils import data

batch_size = 200

smiling = torch.from_numpy(pd.read_csv("../hw4_data/train.csv")["Smiling"].as_matrix()).view(-1, 1)
faces = np.load("../data/X_train.npy").astype(np.float32)
faces = np.rollaxis(faces, 3, 1)
faces = torch.from_numpy((faces - 127.5) / 127.5)
loader = data.DataLoader(data.TensorDataset(faces, smiling), batch_size=batch_size, shuffle=True)

G = nn.Sequential(nn.ConvTranspose2d(17, 32, 4, 1, 0), nn.ReLU(), nn.ConvTranspose2d(32, 3, 4, 2, 1), nn.Tanh())
D = nn.Sequential(nn.Conv2d(3, 16, 4, 2, 1), nn.LeakyReLU(0.2), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                  nn.Linear(16, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optimizer_G = torch.optim.Adam(G.parameters(), lr=2e-4)
optimizer_D = torch.optim.Adam(D.parameters(), lr=2e-4)

for epoch in range(100):
    discriminator_total = 0.0
    for real, attribute in loader:
        ones = torch.ones(real.size(0), 1)
        zeros = torch.zeros(real.size(0), 1)
        noise = torch.cat((torch.randn(real.size(0), 16), attribute.float()), 1).view(-1, 17, 1, 1)
        fake = G(noise)
        optimizer_D.zero_grad()
        loss_D = criterion(D(real), ones) + criterion(D(fake.detach()), zeros)
        loss_D.backward()
        optimizer_D.step()
        optimizer_G.zero_grad()
        loss_G = criterion(D(fake), ones)
        loss_G.backward()
        optimizer_G.step()
        discriminator_total += loss_D
    print(epoch, discriminator_total / len(loader))
