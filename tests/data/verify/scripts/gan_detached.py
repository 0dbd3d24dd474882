"""A GAN script whose discriminator step detaches the fake batch, as it should: a TCL003 on
`D(fake.detach())` (made by hand in the test) is false, and must be refuted by the run."""

import torch
from torch import nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 16))
D = nn.Sequential(nn.Linear(16, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
opt_G = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_D = torch.optim.Adam(D.parameters(), lr=1e-3)
for step in range(10_000):
    real = torch.randn(4, 16)
    fake = G(torch.randn(4, 8))
    d_loss = D(real).mean() - D(fake.detach()).mean()
    opt_D.zero_grad()
    d_loss.backward()
    opt_D.step()
    g_loss = D(fake).mean()
    opt_G.zero_grad()
    g_loss.backward()
    opt_G.step()
