"""A GAN step whose sampling block, after the step, rebinds `fake` (TCL003 on `D(fake)`): the value
the discriminator received is the one bound before it, on the same iteration."""

import torch
from torch import nn
from torchvision import datasets, transforms
from torchvision.utils import save_image

nz = 16
bs = 8
loader = torch.utils.data.DataLoader(datasets.MNIST("data/", download=True, transform=transforms.ToTensor()),
                                     batch_size=bs, shuffle=True)
G = nn.Sequential(nn.Linear(nz, 784), nn.Tanh())
D = nn.Sequential(nn.Flatten(), nn.Linear(784, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optD = torch.optim.Adam(D.parameters())
optG = torch.optim.Adam(G.parameters())
fixed_noise = torch.randn(64, nz)

for epoch in range(5):
    for i, (real, _) in enumerate(loader):
        z_n = torch.randn(real.size(0), nz)
        fake = G(z_n)
        ones, zeros = torch.ones(real.size(0), 1), torch.zeros(real.size(0), 1)
        d_loss = criterion(D(real), ones) + criterion(D(fake), zeros)  # expect: TCL003
        optD.zero_grad()
        d_loss.backward()
        optD.step()
        g_loss = criterion(D(fake), ones)
        optG.zero_grad()
        g_loss.backward()
        optG.step()
        if i % 100 == 0:
            z_n = fixed_noise
            fake = G(z_n)
            save_image(fake.view(-1, 1, 28, 28), f"sample_{epoch}.png")
