"""What experiments watch in torch while the code runs: the autograd graph behind tensors (its
nodes and the leaves it was computed from), the bytes a `.clone()` at one line copies, and whether
two runs' tensors hold the same values."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Iterator

import torch


def walk_graph(roots: list, limit: int = 200_000) -> tuple[set, list]:
    """(the autograd nodes the graphs of `roots` reach, the leaf tensors they hold, in the order
    found: the AccumulateGrad nodes' variables). Stops after `limit` nodes."""
    leaves, seen = [], set()
    pending = [root.grad_fn for root in roots if isinstance(root, torch.Tensor) and root.grad_fn is not None]
    while pending and len(seen) < limit:
        node = pending.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        variable = getattr(node, "variable", None)
        if isinstance(variable, torch.Tensor):
            leaves.append(variable)
        pending.extend(next_node for next_node, _ in node.next_functions)
    return seen, leaves


@contextmanager
def bytes_cloned_at(path: str, line: int, enabled: bool = True) -> Iterator[list]:
    """While active (and `enabled`), each `Tensor.clone()` called from `line` of `path` adds the
    bytes it copies to the list it yields."""
    cloned: list[int] = []
    original = torch.Tensor.clone

    def counting(tensor, *args, **kwargs):
        caller = sys._getframe(1)
        if caller.f_code.co_filename == path and caller.f_lineno == line:
            cloned.append(tensor.numel() * tensor.element_size())
        return original(tensor, *args, **kwargs)

    if enabled:
        torch.Tensor.clone = counting
    try:
        yield cloned
    finally:
        torch.Tensor.clone = original


def same_values(first: torch.Tensor, second: torch.Tensor) -> bool:
    """Of one shape and dtype and bitwise equal, NaN where the other has NaN: `torch.equal` calls two
    tensors holding a NaN (an indicator's `full_like(x, nan)` before its window fills) different,
    which refuted a true TCL001."""
    if first.shape != second.shape or first.dtype != second.dtype:
        return False
    if first.is_floating_point() or first.is_complex():
        return torch.allclose(first, second, rtol=0, atol=0, equal_nan=True)
    return torch.equal(first, second)
