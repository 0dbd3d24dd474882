"""A GAN script of torch 0.3 days, as tutorials still carry it: it resumes from checkpoints that are
not in the repository, its BCE loss compares a (N, 1) output with an (N,) target (a warning then,
an error since torch 1.0), it zips two loaders with Python 2's `itertools.izip`, and its critic
loss adds a gradient penalty on `x_hat`, which `autograd.grad` differentiates (so detaching it,
the other finding's fix, would break the step)."""

import itertools

import torch
from torch import nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

mnist = datasets.MNIST("data", train=True, transform=transforms.ToTensor(), download=True)
loader = DataLoader(mnist, batch_size=32, shuffle=True)
noise_loader = DataLoader(mnist, batch_size=32)
G = nn.Sequential(nn.Linear(16, 128), nn.ReLU(True), nn.Linear(128, 784), nn.Tanh())
D = nn.Sequential(nn.Linear(784, 128), nn.LeakyReLU(0.2), nn.Linear(128, 1), nn.Sigmoid())
G.load_state_dict(torch.load("./checkpoints/G_epoch_40.pth"))
D.load_state_dict(torch.load("./checkpoints/D_epoch_40.pth"))
criterion = nn.BCELoss()
d_optimizer = torch.optim.Adam(D.parameters(), lr=2e-4)
g_optimizer = torch.optim.Adam(G.parameters(), lr=2e-4)

for epoch in range(40, 100):
    for (img, _), (other, _) in itertools.izip(loader, noise_loader):
        real = img.view(img.size(0), -1)
        ones = torch.ones(real.size(0))
        zeros = torch.zeros(real.size(0))
        d_loss_real = criterion(D(real), ones)
        fake = G(torch.randn(real.size(0), 16))
        alpha = torch.rand(real.size(0), 1)
        x_hat = alpha * real + (1 - alpha) * fake
        penalty_out = D(x_hat)
        gradients = torch.autograd.grad(penalty_out.sum(), x_hat, create_graph=True)[0]
        penalty = ((gradients.norm(2, dim=1) - 1) ** 2).mean()
        d_loss_fake = criterion(D(fake), zeros)
        d_loss = d_loss_real + d_loss_fake + 10 * penalty
        d_optimizer.zero_grad()
        d_loss.backward()
        d_optimizer.step()

        g_loss = criterion(D(fake), ones)
        g_optimizer.zero_grad()
        g_loss.backward()
        g_optimizer.step()
