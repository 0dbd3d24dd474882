"""A policy-gradient script whose `--prior` option (numbers, `nargs="+"`) has no default: run without
arguments its prior is None and the first division fails. The experiment gives the option two halves
(fresh76's stochastic actor-critic, TCL011: before, `None / None` left it unverified)."""

import argparse

import numpy as np
import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--prior", type=float, nargs="+")
parser.add_argument("--seed", type=int, default=543)
args = parser.parse_args()

prior = np.array(args.prior)
prior = prior / prior.sum()
actor = nn.Sequential(nn.Linear(len(prior), 16), nn.Tanh(), nn.Linear(16, 2), nn.Softmax(dim=-1))
optimizer = torch.optim.Adam(actor.parameters(), lr=1e-3)

for step in range(1000):
    observations = torch.tensor(np.tile(prior, (8, 1)), dtype=torch.float)
    value = actor(observations)[:, 0].mean()
    optimizer.zero_grad()
    loss = -value
    loss.backward(retain_graph=True)
    optimizer.step()
