"""A notebook's training function given `D` and `G`, whose helper makes the fake with the notebook's
own global `G`, and no call of it in sight: run with stand-ins for the arguments, the discriminator's
backward cannot reach the stand-in `G`, which made nothing, so that run refutes nothing (fresh97's
DCGAN notebook was refuted so)."""

import torch
from torch import nn

z_size = 4
D = nn.Sequential(nn.Linear(8, 1), nn.Sigmoid())
G = nn.Sequential(nn.Linear(z_size, 8), nn.Tanh())
d_optimizer = torch.optim.Adam(D.parameters(), lr=2e-4)
g_optimizer = torch.optim.Adam(G.parameters(), lr=2e-4)
loader = [(torch.randn(4, 8), torch.zeros(4)) for _ in range(3)]


def generate_images(batch_size):
    return G(torch.randn(batch_size, z_size))


def train(D, G, n_epochs):
    for epoch in range(n_epochs):
        for real_images, _ in loader:
            fake_images = generate_images(real_images.size(0))
            d_loss = -(torch.log(D(real_images)).mean() + torch.log(1 - D(fake_images)).mean())  # expect: TCL003
            d_optimizer.zero_grad()
            d_loss.backward()
            d_optimizer.step()
            g_loss = -torch.log(D(generate_images(real_images.size(0)))).mean()
            g_optimizer.zero_grad()
            g_loss.backward()
            g_optimizer.step()

