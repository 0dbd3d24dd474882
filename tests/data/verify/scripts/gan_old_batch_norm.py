"""An InfoGAN of 2017 whose generator normalises the output of a linear layer with `nn.BatchNorm2d`,
which torch before 0.4 did over its features and today's refuses (fresh64's InfoGAN, TCL003)."""

import torch
import torch.nn as nn

generator = nn.Sequential(nn.Linear(12, 64), nn.BatchNorm2d(64), nn.ReLU(), nn.Linear(64, 28 * 28), nn.Tanh())
discriminator = nn.Sequential(nn.Linear(28 * 28, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1), nn.Sigmoid())
g_optimizer = torch.optim.Adam(generator.parameters(), lr=2e-4)
d_optimizer = torch.optim.Adam(discriminator.parameters(), lr=2e-4)

for step in range(10000):
    images = torch.rand(16, 28 * 28) * 2 - 1
    fake_images = generator(torch.cat((torch.randn(16, 10), torch.rand(16, 2)), 1))
    d_loss = -torch.mean(torch.log(discriminator(images)) + torch.log(1 - discriminator(fake_images)))
    d_optimizer.zero_grad()
    d_loss.backward()
    d_optimizer.step()
    g_loss = -torch.mean(torch.log(discriminator(generator(torch.randn(16, 12)))))
    g_optimizer.zero_grad()
    g_loss.backward()
    g_optimizer.step()
