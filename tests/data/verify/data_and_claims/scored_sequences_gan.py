"""A GAN of one-hot sequences whose generated batches a fixed table (read with NumPy from the
project's data folder) scores after the discriminator's step, as a peptide GAN does (TCL003).
--verify never reads the file: the discriminator's step runs before anything uses the table, and
the run stops at the first use."""

import numpy as np
import torch
from torch import nn

embedding = np.loadtxt("data/after_pca.txt")
G = nn.Sequential(nn.Linear(128, 10 * 21), nn.Unflatten(1, (10, 21)), nn.Softmax(dim=2))
D = nn.Sequential(nn.Flatten(), nn.Linear(10 * 21, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))
opt_d = torch.optim.Adam(D.parameters(), lr=1e-4)
opt_g = torch.optim.Adam(G.parameters(), lr=1e-4)
for step in range(1000):
    real = torch.eye(21)[torch.randint(21, (64, 10))]
    fake = G(torch.randn(64, 128))
    d_loss = D(fake).mean() - D(real).mean()  # expect: TCL003
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    scores = torch.from_numpy(fake.detach().numpy() @ embedding.T)
    g_loss = -D(G(torch.randn(64, 128))).mean() + scores.mean()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
