"""Trains an adversarial patch: the loss of every step is summed with its graph (the bug), beside
a sibling module imported as a script imports it."""

import torch

import patch_utils


def train(steps: int = 3) -> torch.Tensor:
    patch = torch.rand(3, 8, 8, requires_grad=True)
    optimizer = torch.optim.Adam([patch], lr=0.01)
    ep_loss = 0
    for _ in range(steps):
        loss = patch_utils.clamp_patch(patch).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        ep_loss += loss  # expect: TCL007
    return ep_loss
