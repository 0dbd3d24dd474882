"""A course's training loop, called from `main(opts)` under its main guard, whose undetached
discriminator input is on the branch of the fifth `store_true` flag (`--use_diffaug`); the default
takes the other, detached branch. The flag the branch tests is tried first."""

import argparse

import torch
from torch import nn


def training_loop(loader, opts):
    G = nn.Sequential(nn.Linear(8, 16), nn.Tanh())
    D = nn.Sequential(nn.Linear(16, 1))
    d_optimizer = torch.optim.Adam(D.parameters(), opts.lr)
    for real in loader:
        fake = G(torch.randn(real.size(0), 8))
        if opts.use_diffaug:
            d_loss = torch.mean((D(real) - 1) ** 2) + torch.mean(D(fake * 0.9) ** 2)  # expect: TCL003
        else:
            d_loss = torch.mean((D(real) - 1) ** 2) + torch.mean(D(fake.detach()) ** 2)
        d_optimizer.zero_grad()
        d_loss.backward()
        d_optimizer.step()


def main(opts):
    loader = [torch.rand(4, 16) for _ in range(opts.iterations)]
    training_loop(loader, opts)


def create_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.0003)
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--use_cycle_consistency_loss", action="store_true")
    parser.add_argument("--init_zero_weights", action="store_true")
    parser.add_argument("--spectral_norm", action="store_true")
    parser.add_argument("--log_images", action="store_true")
    parser.add_argument("--use_diffaug", action="store_true")
    return parser


if __name__ == "__main__":
    main(create_parser().parse_args())
