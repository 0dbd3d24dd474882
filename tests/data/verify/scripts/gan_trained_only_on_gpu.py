"""A GAN notebook's training loop indented under `if train_on_gpu:` (by mistake): without a GPU it never
trains. The discriminator step feeds `D(fake_images)` without `.detach()` (TCL003). --verify runs the
branch a GPU would take, on the CPU, and says so; the earlier `if train_on_gpu:` that holds nothing the
experiment watches (`fixed_z.gpu()`, a typo that would fail on a GPU too) keeps the device's answer.
"""

import numpy as np
import torch
from torch import nn

train_on_gpu = torch.cuda.is_available()
latent_dim = 16
G = nn.Sequential(nn.Linear(latent_dim, 64), nn.ReLU(), nn.Linear(64, 28 * 28), nn.Tanh())
D = nn.Sequential(nn.Linear(28 * 28, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))
d_optimizer = torch.optim.Adam(D.parameters(), lr=2e-4)
g_optimizer = torch.optim.Adam(G.parameters(), lr=2e-4)
criterion = nn.BCEWithLogitsLoss()

fixed_z = torch.from_numpy(np.random.randn(16, latent_dim)).float()
if train_on_gpu:
    fixed_z = fixed_z.gpu()

for epoch in range(100):
    if train_on_gpu:
        real_images = torch.rand(32, 28 * 28).cuda()
        d_optimizer.zero_grad()
        d_real = D(real_images)
        latent = torch.from_numpy(np.random.randn(32, latent_dim)).float().cuda()
        fake_images = G(latent)
        d_fake = D(fake_images)
        d_loss = criterion(d_real, torch.ones_like(d_real)) + criterion(d_fake, torch.zeros_like(d_fake))
        d_loss.backward()
        d_optimizer.step()

        g_optimizer.zero_grad()
        g_out = D(G(latent))
        g_loss = criterion(g_out, torch.ones_like(g_out))
        g_loss.backward()
        g_optimizer.step()
