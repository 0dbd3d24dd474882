"""A GAN script that logs ten times an epoch: `log_every = len(loader) // 10`, then `step % log_every`.
The stand-in loader's four batches make that a division by zero; the run learns from it and tries again
with a loader whose `len()` is a real one's (it still yields four batches). The discriminator step feeds
`D(fake)` without `.detach()` (TCL003)."""

import torch
from torch import nn
from torchvision import datasets, transforms

mnist = datasets.MNIST("data/", train=True, download=True, transform=transforms.ToTensor())
loader = torch.utils.data.DataLoader(mnist, batch_size=32, shuffle=True)
G = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 784), nn.Tanh())
D = nn.Sequential(nn.Linear(784, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1), nn.Sigmoid())
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4)
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)
bce = nn.BCELoss()
log_every = len(loader) // 10

for epoch in range(20):
    for step, (real, _) in enumerate(loader):
        if step % log_every == 0:
            print(f"epoch {epoch} step {step}")
        real = real.view(real.size(0), -1)
        fake = G(torch.randn(real.size(0), 16))
        d_loss = bce(D(real), torch.ones(real.size(0), 1)) + bce(D(fake), torch.zeros(real.size(0), 1))  # expect: TCL003
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        g_loss = bce(D(fake), torch.ones(real.size(0), 1))
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
