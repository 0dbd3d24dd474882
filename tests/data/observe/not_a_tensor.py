"""Flagged statements that meet values which are not tensors at run time.

`Block.forward` clones its input for nothing (TCL001), but here it is called on a
`Box`, which has `clone`, `*` and `+=` and no `_version`: the probe that remembers
the clone fails inside. `as_tensor` copy-constructs (TCL008) from what its
annotation says is a tensor, and receives a list (read from JSON, which the linter
cannot see to be one): that diagnosis is refuted.
The program must run to its end regardless, and print "done".
"""

import json

import torch
from torch import nn


class Box:
    def __init__(self, values):
        self.values = list(values)

    def clone(self):
        return Box(self.values)

    def __mul__(self, factor):
        return Box(v * factor for v in self.values)

    def __iadd__(self, other):
        self.values = [a + b for a, b in zip(self.values, other.values)]
        return self


class Block(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x.clone()
        out = x * 2
        out += identity
        return out


def as_tensor(t: torch.Tensor) -> torch.Tensor:
    return torch.tensor(t)


if __name__ == "__main__":
    print("block:", Block()(Box([1, 2, 3])).values)
    print("tensor:", as_tensor(json.loads("[1.0, 2.0]")).tolist())
    print("done")
