"""A WGAN-GP script on a folder of faces whose critic takes 128-pixel images (five halvings, normalized
instance by instance): nothing in the code says the images' side, so the first stand-in images are too
small for it, and every experiment, that of TCL011 too, must learn the side from the error and try again.
The critic's backward keeps its graph (`retain_graph=True`) for the generator's step, which reuses the
undetached fake (TCL003, TCL011), and the penalty takes the gradient through that fake too (so TCL011
has no fix: its experiment drops `retain_graph=True` alone)."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

dataset = datasets.ImageFolder("faces/", transform=transforms.ToTensor())
loader = DataLoader(dataset, batch_size=32, shuffle=True)


def block(channels_in, channels_out):
    return nn.Sequential(nn.Conv2d(channels_in, channels_out, 4, 2, 1), nn.InstanceNorm2d(channels_out, affine=True),
                         nn.LeakyReLU(0.2))


critic = nn.Sequential(block(3, 8), block(8, 16), block(16, 16), block(16, 32), block(32, 32), block(32, 64),
                       nn.Conv2d(64, 1, 2, 1, 0))
gen = nn.Sequential(nn.ConvTranspose2d(16, 32, 4, 1, 0), nn.ReLU(), nn.Upsample(scale_factor=32),
                    nn.Conv2d(32, 3, 3, 1, 1), nn.Tanh())


def gradient_penalty(critic, real, fake):
    alpha = torch.rand(real.shape[0], 1, 1, 1)
    mixed = real * alpha + fake * (1 - alpha)
    scores = critic(mixed)
    gradient = torch.autograd.grad(scores, mixed, torch.ones_like(scores), create_graph=True)[0]
    return ((gradient.flatten(1).norm(2, dim=1) - 1) ** 2).mean()


opt_critic = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.0, 0.9))
opt_gen = torch.optim.Adam(gen.parameters(), lr=1e-4, betas=(0.0, 0.9))

for epoch in range(10):
    for real, _ in loader:
        fake = gen(torch.randn(real.shape[0], 16, 1, 1))
        loss_critic = critic(fake).mean() - critic(real).mean() + 10 * gradient_penalty(critic, real, fake)  # expect: TCL003
        critic.zero_grad()
        loss_critic.backward(retain_graph=True)  # expect: TCL011
        opt_critic.step()
        loss_gen = -critic(fake).mean()
        gen.zero_grad()
        loss_gen.backward()
        opt_gen.step()
