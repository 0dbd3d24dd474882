"""A script that ends with a non-zero status after one flagged line ran and before another.

`first` copy-constructs a tensor (TCL008) and runs; the script then exits with
status 3, so `second` (TCL005) never runs.
"""

import sys

import torch


def first(t: torch.Tensor) -> torch.Tensor:
    return torch.tensor(t)


def second(t: torch.Tensor) -> torch.Tensor:
    return t.clone().detach()


if __name__ == "__main__":
    print("first:", first(torch.ones(3)).tolist())
    sys.exit(3)
    print("second:", second(torch.ones(3, requires_grad=True)).tolist())
