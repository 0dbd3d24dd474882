"""`keep`'s only caller is a program: `main()` takes no arguments and writes a file before it gets to
the call. Only the assignment its argument needs runs (`weights = torch.randn(...)`), never the rest."""

import pathlib

import torch


def keep(t):
    return t.clone().detach()  # expect: TCL005


def main():
    pathlib.Path(__file__).with_name("trained.txt").write_text("main() ran")
    weights = torch.randn(4, requires_grad=True)
    return keep(weights)
