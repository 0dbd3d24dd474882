"""A script whose batch size is a required option: the networks normalise over the batch, which
a batch of one cannot do in training."""
import argparse

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--batch_size", required=True, type=int)
parser.add_argument("--epochs", required=True, type=int)
args = parser.parse_args()

G = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 12))
D = nn.Sequential(nn.Linear(12, 16), nn.BatchNorm1d(16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
criterion = nn.BCEWithLogitsLoss()
optimizer_D = torch.optim.Adam(D.parameters(), lr=2e-4)

for epoch in range(args.epochs):
    real = torch.randn(args.batch_size, 12)
    z = torch.randn(args.batch_size, 8)
    fake = G(z)
    loss_D = criterion(D(real), torch.ones(args.batch_size, 1)) + \
        criterion(D(fake), torch.zeros(args.batch_size, 1))
    optimizer_D.zero_grad()
    loss_D.backward()
    optimizer_D.step()
