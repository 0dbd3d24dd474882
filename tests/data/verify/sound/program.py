"""`keep`'s only caller is a program: `main()` takes no arguments and trains before it gets to the
call. It is not run (it could read data, or train for hours): the verdict says what it assumed."""

import pathlib

import torch


def keep(t):
    return t.clone().detach()  # expect: TCL005


def main():
    pathlib.Path(__file__).with_name("trained.txt").write_text("main() ran")
    weights = torch.randn(4, requires_grad=True)
    return keep(weights)
