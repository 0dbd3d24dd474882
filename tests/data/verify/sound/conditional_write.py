"""A write that sits in a branch of its line: with the default flag the line runs, but writes
nothing, and that run must not refute the TCL004; with the flag flipped the write runs."""

import torch


def scaled(flag: bool = False):
    w = torch.ones(3, requires_grad=True)
    out = w.mul_(2) if flag else w * 2  # expect: TCL004
    return out
