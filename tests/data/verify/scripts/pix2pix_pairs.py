"""A pix2pix trainer whose dataset, a class of a sibling module, returns dicts of two images: the
conditional discriminator's step feeds it the generator's output without `.detach()` (TCL003).
Stand-in batches hold what the class's `__getitem__` returns: `batch["A"]`, `batch["B"]` and paths."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from paired_images import PairedImages

loader = DataLoader(PairedImages("datasets/facades/train"), batch_size=8, shuffle=True)
G = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 3, 3, padding=1), nn.Tanh())
D = nn.Sequential(nn.Conv2d(6, 8, 4, stride=2, padding=1), nn.LeakyReLU(0.2), nn.Conv2d(8, 1, 4, padding=1))
opt_G = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
opt_D = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
gan_loss, l1 = nn.BCEWithLogitsLoss(), nn.L1Loss()

for epoch in range(200):
    for batch in loader:
        real_A, real_B = batch["A"], batch["B"]
        fake_B = G(real_A)
        pred_fake = D(torch.cat([real_A, fake_B], 1))
        pred_real = D(torch.cat([real_A, real_B], 1))
        loss_D = 0.5 * (gan_loss(pred_fake, torch.zeros_like(pred_fake)) +
                        gan_loss(pred_real, torch.ones_like(pred_real)))
        opt_D.zero_grad()
        loss_D.backward()
        opt_D.step()
        pred_fake = D(torch.cat([real_A, G(real_A)], 1))
        loss_G = gan_loss(pred_fake, torch.ones_like(pred_fake)) + 100 * l1(fake_B, real_B)
        opt_G.zero_grad()
        loss_G.backward()
        opt_G.step()
