"""The same, where the step itself reads the FID model (a feature-matching term): the run stops at that
use, unverified, saying which statement could not make it (TCL003)."""

import torch
import torch.nn as nn
from fid_tools import InceptionFeatures

G = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
D = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
opt_D = torch.optim.Adam(D.parameters(), lr=2e-4)
bce = nn.BCEWithLogitsLoss()
fid_model = InceptionFeatures(dims=2048)
for step in range(1000):
    real = torch.randn(32, 4)
    fake = G(torch.randn(32, 8))
    matched = (fid_model(real) - fid_model(fake)).abs().mean()
    d_loss = bce(D(real), torch.ones(32, 1)) + bce(D(fake), torch.zeros(32, 1)) + matched
    opt_D.zero_grad()
    d_loss.backward()
    opt_D.step()
