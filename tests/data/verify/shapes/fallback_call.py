"""A function called from the top-level loop with the script's network and a flag the loop computes
by calling a function of the file that reads the environment (which the experiment does not run): the
network is the script's, the flag a stand-in. Another called with what a package that is not installed makes: stand-ins."""

import os

import torch
from experiment_tools import build_remote_model, fetch_batches  # not installed
from torch import nn


def fit(model, batches, verbose):
    total = 0
    for x in batches:
        loss = model(x).pow(2).mean()
        loss.backward()
        total += loss  # expect: TCL007
        if verbose:
            print(f"loss {loss.item():.3f}")
    return total


def wants_output(epoch):
    return os.environ.get("VERBOSE") == "1" or epoch % 10 == 0


model = nn.Sequential(nn.Linear(8, 4), nn.Tanh(), nn.Linear(4, 1))
for epoch in range(3):
    batches = [torch.randn(4, 8) for _ in range(4)]
    verbose = wants_output(epoch)
    fit(model, batches, verbose)


def fit_remote(model, batches):
    total = 0
    for x in batches:
        loss = model(x).pow(2).mean()
        loss.backward()
        total += loss  # expect: TCL007
    return total


for epoch in range(3):
    fit_remote(build_remote_model(), fetch_batches(epoch))
