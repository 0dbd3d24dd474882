"""A pre-0.4 GAN script: the generator steps several times (`retain_variables=True`, the old name of
`retain_graph`), then the discriminator's loss reuses the last generator step's `d_fake` undetached."""

import torch
from torch import nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

loader = DataLoader(datasets.MNIST("data", transform=transforms.ToTensor()), batch_size=16)
G = nn.Sequential(nn.Linear(8, 784), nn.Tanh())
D = nn.Sequential(nn.Linear(784, 1))
opt_g = torch.optim.Adam(G.parameters())
opt_d = torch.optim.Adam(D.parameters())
for epoch in range(5):
    for real, _ in loader:
        real = real.view(-1, 784)
        for k in range(3):
            fake = G(torch.randn(real.size(0), 8))
            d_fake = D(fake)
            g_loss = -d_fake.mean()
            opt_g.zero_grad()
            g_loss.backward(retain_variables=True)
            opt_g.step()
        opt_d.zero_grad()
        d_loss = d_fake.mean() - D(real).mean()
        d_loss.backward()
        opt_d.step()
