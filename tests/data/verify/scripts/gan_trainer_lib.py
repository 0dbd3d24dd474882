# A GAN trainer as a library function: it is given its dataset by `gan_trainer_main.py`, another file
# of the project, which builds MNIST at 32 pixels and calls it under its main guard (then runs a long
# evaluation that no experiment may start).
import time

import torch
from torch import nn
from torch.utils.data import DataLoader


def evaluate_at_length(train_set, test_set):
    time.sleep(3600)  # a whole evaluation run: never run by an experiment
    return len(train_set) + len(test_set)


def train_gan(dataset, epochs=5, latent=16):
    loader = DataLoader(dataset, batch_size=64, shuffle=True)
    G = nn.Sequential(nn.Linear(latent, 32 * 32), nn.Tanh())
    D = nn.Sequential(nn.Flatten(), nn.Linear(32 * 32, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-4)
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)
    for epoch in range(epochs):
        for images, _ in loader:
            fake = G(torch.randn(images.size(0), latent)).view(-1, 1, 32, 32)
            d_loss = D(fake).mean() - D(images).mean()
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
            g_loss = -D(G(torch.randn(images.size(0), latent)).view(-1, 1, 32, 32)).mean()
            opt_g.zero_grad()
            g_loss.backward()
            opt_g.step()
    return G
