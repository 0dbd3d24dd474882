"""A GAN on two moons, written as a script: the data comes from scikit-learn (not installed where
--verify runs), the networks and the step from the top level. `D(fake)` is not detached (TCL003)."""

import numpy as np
import torch
from torch import nn
from sklearn.datasets import make_moons

X, y = make_moons(n_samples=512, noise=0.05)
data = torch.from_numpy(X).float()
batch_size = 64
z_dim = 8

G = nn.Sequential(nn.Linear(z_dim, 32), nn.ReLU(), nn.Linear(32, 2))
D = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 1), nn.Sigmoid())
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
bce = nn.BCELoss()

for step in range(2000):
    idx = np.random.randint(0, len(data), batch_size)
    real = data[idx]
    z = torch.randn(batch_size, z_dim)
    fake = G(z)
    d_loss = bce(D(real), torch.ones(batch_size, 1)) + bce(D(fake), torch.zeros(batch_size, 1))  # expect: TCL003
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_loss = bce(D(fake), torch.ones(batch_size, 1))
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
