"""A GAN notebook's training cell that builds a FID model from a package that is not installed before
its loop, and uses it only after the step (fresh56's course WGAN with its `InceptionV3`): the run goes
past the assignment, `fid_model` standing for what it makes, and stops where it is first used (TCL003)."""

import torch
import torch.nn as nn
from fid_tools import InceptionFeatures

G = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
D = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
opt_G = torch.optim.Adam(G.parameters(), lr=2e-4)
opt_D = torch.optim.Adam(D.parameters(), lr=2e-4)
bce = nn.BCEWithLogitsLoss()
fid_model = InceptionFeatures(dims=2048)
fids = []
for step in range(1000):
    real = torch.randn(32, 4)
    fake = G(torch.randn(32, 8))
    d_loss = bce(D(real), torch.ones(32, 1)) + bce(D(fake), torch.zeros(32, 1))
    opt_D.zero_grad()
    d_loss.backward()
    opt_D.step()
    g_loss = bce(D(G(torch.randn(32, 8))), torch.ones(32, 1))
    opt_G.zero_grad()
    g_loss.backward()
    opt_G.step()
    fids.append(float(fid_model(fake.detach())))
