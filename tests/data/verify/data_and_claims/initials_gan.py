"""A GAN on faces read from an HDF5 file by a sibling module (TCL003): h5py is missing, so the
dataset holds nothing and its loader is stood in at run time; each sample is the image and three
labels the class's `__getitem__` returns, so the loop's four-way unpacking runs."""

import torch
from torch import nn
from torch.utils.data import DataLoader

import initials_h5

data = initials_h5.get_dataset()
loader = DataLoader(dataset=data, batch_size=64, shuffle=True)

G = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 3 * 16 * 16), nn.Tanh())
D = nn.Sequential(nn.Flatten(), nn.Linear(3 * 16 * 16, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1), nn.Sigmoid())
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4)
bce = nn.BCELoss()
for epoch in range(100):
    for images, initials, countries, cities in loader:
        n = images.size(0)
        fake = G(torch.randn(n, 16))
        d_loss = bce(D(images), torch.ones(n, 1)) + bce(D(fake), torch.zeros(n, 1))  # expect: TCL003
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        g_loss = bce(D(fake), torch.ones(n, 1))
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
