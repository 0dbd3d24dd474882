"""A list filled with graph-carrying values only late in a run (a homework records its parameter norms
from some epoch on): the few iterations a run makes put nothing in, and that run must not refute the
TCL007 (the norms, made in grad mode, would stay in the history)."""

import torch
import torch.nn.functional as F


def train(model, optimizer, loader, record_from: int = 100):
    history = []
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        norms = []
        if len(history) >= record_from:
            for p in model.parameters():
                norms.append(torch.norm(p))
        history.append(norms)  # expect: TCL007
    return history
