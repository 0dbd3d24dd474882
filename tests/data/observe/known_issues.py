"""Cases that once broke `--verify --run` (tests/test_observe.py keeps them as regression tests).

Each section prints what a plain run prints; under observation it must still, and:
1. a flagged line that runs only in a forked child process is observed;
2. a probe must not evaluate the flagged call's argument again (`torch.randn(3)`): that would
   draw from the generator a second time and change the program's random numbers;
3. a read on a continuation line of a multi-line statement is probed;
4. a TCL001 clone that one execution needed is refuted, with that execution's evidence
   (the layer is built dynamically, so the linter flags the clone with an unsafe fix).
"""

import multiprocessing

import torch
from torch import nn


def in_worker(t: torch.Tensor) -> None:
    print("worker copy:", torch.tensor(t).tolist(), flush=True)


def fresh_noise() -> torch.Tensor:
    return torch.tensor(torch.randn(3))


def stacked_alias(x: torch.Tensor) -> torch.Tensor:
    alias = x
    x.mul_(2)
    return torch.stack([
        alias,
    ])


class Block(nn.Module):
    def __init__(self, inplace: bool):
        super().__init__()
        self.act = getattr(nn, "ReLU")(inplace=inplace)  # built dynamically: a layer the linter cannot see

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x.clone()
        out = self.act(x)
        out = out * 2
        out += identity
        return out


if __name__ == "__main__":
    worker = multiprocessing.get_context("fork").Process(target=in_worker, args=(torch.ones(2),))
    worker.start()
    worker.join()
    print("worker exit code:", worker.exitcode)

    torch.manual_seed(0)
    noise = fresh_noise()
    torch.manual_seed(0)
    print("rng intact:", torch.equal(noise, torch.randn(3)))

    print("stacked:", stacked_alias(torch.ones(2) * 1.0).tolist())

    for inplace in (True, False, False):
        print("block:", tuple(Block(inplace)(torch.randn(4) * 1.0).shape))
    print("done")
