"""A 2017 GAN script written for a GPU: its noise comes from `torch.cuda.FloatTensor(...).normal_()`,
its data from a NumPy array of `np.float`, its labels from `torch.ones(..., device="cuda")` (all fail
today: without CUDA, and since NumPy 1.24). The discriminator's step feeds it the generator's output
undetached."""

import numpy as np
import torch
from torch import nn

G = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 2)).cuda()
D = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 1), nn.Sigmoid()).cuda()
criterion = nn.BCELoss()
d_optimizer = torch.optim.SGD(D.parameters(), lr=0.01)
g_optimizer = torch.optim.SGD(G.parameters(), lr=0.01)
batch = 16

for step in range(10000):
    real = torch.from_numpy(np.random.randn(batch, 2).astype(np.float)).float().cuda()
    noise = torch.cuda.FloatTensor(batch, 10).normal_()
    ones = torch.ones(batch, 1, device="cuda")
    zeros = torch.zeros(batch, 1).cuda()
    fake = G(noise)
    d_loss = criterion(D(real), ones) + criterion(D(fake), zeros)
    d_optimizer.zero_grad()
    d_loss.backward()
    d_optimizer.step()
    g_loss = criterion(D(fake), ones)
    g_optimizer.zero_grad()
    g_loss.backward()
    g_optimizer.step()
