"""`snapshot` copies whatever it is given; whether `t.clone().detach()` wastes an autograd node
depends on that: every caller here passes `state_dict()` tensors, which never require grad (the
static analysis does not follow them through `sorted(...)`, so it reports; the run refutes)."""

import torch
from torch import nn


def snapshot(t):
    return t.clone().detach()  # expect: TCL005


def save_weights(model: nn.Module) -> dict:
    return {name: snapshot(value) for name, value in sorted(model.state_dict().items())}


def best_weights(model: nn.Module, scores: list) -> dict:
    state = model.state_dict()
    return {name: snapshot(state[name]) for name in state}
