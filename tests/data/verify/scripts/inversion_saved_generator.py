"""Latent-space inversion against a generator saved whole (`torch.save(G, path)`) and loaded at the top
level: the checkpoint is never read, so the function's global `decoder` is a stand-in network, made
from how the function uses it (its output is fitted to the images: a sample's shape)."""
import torch
from torch import nn

WIDTH = 3 * 8 * 8

decoder = nn.DataParallel(torch.load("weights/decoder.pt"))
for weight in decoder.parameters():
    weight.requires_grad_(False)


def invert(images, steps=300):
    images = images.reshape(-1, WIDTH)
    codes = torch.randn(images.shape[0], 16, requires_grad=True)
    optimizer = torch.optim.Adam([codes], lr=0.05)
    for _ in range(steps):
        optimizer.zero_grad()
        error = ((decoder(codes) - images) ** 2).mean()
        error.backward()
        optimizer.step()
    return codes.clone().detach()
