# A DCGAN-like script whose loader comes from a helper of another module (`mnist_loaders.load_data`),
# at 48 pixels; its networks are built inside main(), for one channel at that size.
import argparse

import torch
from torch import nn

import mnist_loaders


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch-size", type=int, default=128)
    args = parser.parse_args()
    img_size = 48
    trainloader = mnist_loaders.load_data(args.batch_size, img_size)
    G = nn.Sequential(nn.Linear(8, img_size * img_size), nn.Tanh(), nn.Unflatten(1, (1, img_size, img_size)))
    D = nn.Sequential(nn.Conv2d(1, 4, 4, 2, 1), nn.Flatten(), nn.Linear(4 * 24 * 24, 1))
    G_optimizer = torch.optim.Adam(G.parameters(), lr=2e-4)
    D_optimizer = torch.optim.Adam(D.parameters(), lr=2e-4)
    for epoch in range(20):
        for x, _ in trainloader:
            G_pred = G(torch.randn(x.size(0), 8))
            D_loss = D(G_pred).mean() - D(x).mean()
            D_optimizer.zero_grad()
            D_loss.backward()
            D_optimizer.step()
            G_loss = -D(G(torch.randn(x.size(0), 8))).mean()
            G_optimizer.zero_grad()
            G_loss.backward()
            G_optimizer.step()


if __name__ == "__main__":
    main()
