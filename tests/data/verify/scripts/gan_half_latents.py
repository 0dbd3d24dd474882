"""A course's GAN step in the GPU's mixed precision: the generator makes its latents `.half()` "for
compatibility with torch.cuda.amp.autocast", which casts them back where a layer needs it. Without
CUDA that autocast is switched off, and half latents meet float weights. The discriminator's step
feeds it the generator's output undetached."""

import torch
from torch import nn


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8))

    def forward(self, n_samples):
        z = torch.normal(0.0, 1.0, size=(n_samples, 16)).to(torch.float16).cuda()
        return self.body(z)


gen = Generator().cuda()
disc = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1)).cuda()
optim_d = torch.optim.Adam(disc.parameters())
optim_g = torch.optim.Adam(gen.parameters())
scaler = torch.cuda.amp.GradScaler()

for step in range(1000):
    real = torch.randn(4, 8).cuda()
    with torch.cuda.amp.autocast():
        fake = gen(4)
        d_loss = disc(fake).mean() - disc(real).mean()
    optim_d.zero_grad()
    scaler.scale(d_loss).backward()
    scaler.step(optim_d)
    scaler.update()
    with torch.autocast("cuda"):
        g_loss = -disc(gen(4)).mean()
    optim_g.zero_grad()
    scaler.scale(g_loss).backward()
    scaler.step(optim_g)
    scaler.update()
