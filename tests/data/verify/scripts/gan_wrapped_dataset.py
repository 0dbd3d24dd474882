"""A GAN trainer whose DataLoader iterates a dataset a sibling module's class returns.

`D(fake)` is not detached before the discriminator's backward (TCL003). The DataLoader is
made in `train(args)` over `Digits(args.data_dir).train_data()`: torchvision's MNIST when it is
installed, a no-op stand-in when not. Either way --verify stands in batches for it at run time.
"""

import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader

from digits_source import Digits


def train(args):
    dataset = Digits(args.data_dir).train_data()
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True)
    G = nn.Sequential(nn.Linear(args.z_dim, 128), nn.ReLU(), nn.Linear(128, 784), nn.Tanh())
    D = nn.Sequential(nn.Linear(784, 128), nn.LeakyReLU(0.2), nn.Linear(128, 1), nn.Sigmoid())
    bce = nn.BCELoss()
    d_optimizer = torch.optim.Adam(D.parameters(), lr=2e-4)
    g_optimizer = torch.optim.Adam(G.parameters(), lr=2e-4)
    for epoch in range(args.epochs):
        for images, _ in loader:
            real = images.view(images.size(0), -1)
            z = torch.randn(real.size(0), args.z_dim)
            fake = G(z)
            d_loss = bce(D(real), torch.ones(real.size(0), 1)) + bce(D(fake), torch.zeros(real.size(0), 1))
            d_optimizer.zero_grad()
            d_loss.backward()
            d_optimizer.step()
            g_loss = bce(D(fake), torch.ones(real.size(0), 1))
            g_optimizer.zero_grad()
            g_loss.backward()
            g_optimizer.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default="data/mnist")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--z-dim", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=20)
    train(parser.parse_args())
