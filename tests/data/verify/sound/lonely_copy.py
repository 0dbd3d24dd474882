"""A helper annotated as taking a tensor that nothing in the tree calls: the experiment makes one up,
and the verdict says so."""

import torch


def as_tensor(values: torch.Tensor):
    return torch.tensor(values)  # expect: TCL008
