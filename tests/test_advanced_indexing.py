"""Which subscripts surely copy (analysis/indexing.py), as TCL001 reads them: a clone of what
advanced indexing returned is flagged, a clone of a view (basic indexing, or an index the
linter cannot see) is not judged that way."""

from __future__ import annotations

import textwrap

import pytest

from torchcopylint.engine import lint_source

TEMPLATE = """
import numpy as np
import torch


def pick(x: torch.Tensor, labels: torch.Tensor, i: int, given):
    {setup}
    picked = {expression}
    picked.mul_(2.0)
    return picked, x
"""


def _flagged(setup: str, expression: str) -> list:
    source = textwrap.dedent(TEMPLATE).format(setup=setup, expression=expression)
    return [d for d in lint_source(source, "pick.py") if d.code == "TCL001"]


@pytest.mark.parametrize("setup, expression, named", [
    ("pass", "x[[0, 2]].clone()", "the list `[0, 2]`"),
    ("pass", "x[labels > 0].clone()", "the mask `labels > 0`"),
    ("keep = labels == 1", "x[keep].clone()", "the mask `keep`"),
    ("keep = ~(labels == 1)", "x[keep].clone()", "the mask `keep`"),
    ("idx = (labels == 1).nonzero().flatten()", "x[idx].clone()", "the index tensor `idx`"),
    ("idx = torch.where(labels > 0)[0]", "x[idx].clone()", "the index tensor `idx`"),
    ("perm = torch.randperm(x.shape[0])", "x[perm[:4]].clone()", "the index tensor `perm[:4]`"),
    ("idx = torch.tensor([1, 3])", "x[idx, 0].clone()", "the index tensor `idx`"),
    ("idx = labels.topk(2)[1]", "x[idx].clone()", "the index tensor `idx`"),
    ("idx = np.where(labels.numpy() > 0)[0]", "x[idx].clone()", "the index tensor `idx`"),
    ("idx = list(range(3))", "x[idx].clone()", "the list `idx`"),
    # `sorted()` returns a list whatever it sorts (fresh92: a pruning script's `w[sorted(keep)].clone()`).
    ("keep = {0, 2}", "x[sorted(keep)].clone()", "the list `sorted(keep)`"),
    ("keep = {0, 2}", "x[:, sorted(keep, reverse=True)].clone()", "the list `sorted(keep, reverse=True)`"),
    ("pass", "torch.clone(x[[1]])", "the list `[1]`"),
])
def test_clone_of_advanced_indexing_is_flagged(setup, expression, named):
    [diagnostic] = _flagged(setup, expression)
    assert named in diagnostic.message and "advanced indexing" in diagnostic.message
    assert diagnostic.fix is not None


@pytest.mark.parametrize("setup, expression", [
    ("pass", "x[0].clone()"),  # an int: a view
    ("pass", "x[i].clone()"),  # an int argument
    ("pass", "x[given].clone()"),  # an argument: an int, a 0-d tensor or a mask, who knows
    ("idx = torch.tensor(1)", "x[idx].clone()"),  # a 0-d index tensor: a view
    ("idx = labels.argmax()", "x[idx].clone()"),  # 0-d as well
    ("pass", "x[:, None, ...].clone()"),
    ("pass", "x[i == 0].clone()"),  # Python ints compared: a bool, `x[True]` is a view
    ("pass", "x[[0, 2]].clone().detach()"),  # TCL005's
    ("def sorted(v): return 0", "x[sorted(labels)].clone()"),  # the file's own `sorted`, not the builtin
])
def test_clone_of_a_possible_view_is_not_judged_as_advanced(setup, expression):
    found = [d for d in _flagged(setup, expression) if "advanced indexing" in d.message]
    assert found == []


SQUEEZED = """
import torch


def fool(model, x, y, guard: bool):
    hits = model(x).argmax(1) == y
    ind = hits.nonzero().squeeze()
{guard}    if ind.numel() != 0:
        return x[ind].clone()
    return x
"""


@pytest.mark.parametrize("guard, flagged", [
    ("    if len(ind.shape) == 0:\n        ind = ind.unsqueeze(0)\n", True),
    ("    if ind.dim() == 0:\n        ind = ind.view(-1)\n", True),
    ("    if guard:\n        ind = ind.unsqueeze(0)\n", False),  # not a test of the dimensions
    ("", False),  # one hit: `ind` is 0-d and `x[ind]` a view, returned: the copy is needed
])
def test_a_squeezed_index_counts_only_behind_a_test_of_its_dimensions(guard, flagged):
    source = SQUEEZED.format(guard=guard)
    found = [d for d in lint_source(source, "fool.py") if d.code == "TCL001"]
    assert bool(found) == flagged


def test_a_squeezed_index_of_one_hit_is_a_view():
    torch = pytest.importorskip("torch")
    x = torch.arange(6.0).view(3, 2)
    ind = torch.tensor([False, True, False]).nonzero().squeeze()
    assert ind.dim() == 0 and x[ind].untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    assert x[ind.unsqueeze(0)].untyped_storage().data_ptr() != x.untyped_storage().data_ptr()


@pytest.mark.parametrize("setup, expression", [
    ("idx = torch.randint(0, x.shape[0], (8,))", "x[idx].clone()"),
    ("idx = torch.randint(x.shape[0], size=(8,))", "x[idx].clone()"),
    ("idx = np.random.choice(x.shape[0], 4, replace=False)", "x[idx].clone()"),
    ("chosen = [0, 3]\n    idx = torch.tensor(chosen)", "x[idx].clone()"),
    ("_, order = labels.sort()", "x[order].clone()"),
    ("rows, cols = torch.where(labels > 0)", "x[rows, cols].clone()"),
])
def test_random_sorted_and_listed_indices_are_advanced(setup, expression):
    [diagnostic] = _flagged(setup, expression)
    assert "advanced indexing" in diagnostic.message


@pytest.mark.parametrize("setup, expression", [
    ("idx = torch.randint(0, x.shape[0], ())", "x[idx].clone()"),  # 0-d
    ("idx = np.random.choice(x.shape[0])", "x[idx].clone()"),  # a number
    ("_, idx = labels.max(0)", "x[idx].clone()"),  # 0-d when `labels` is 1-d
    ("idx = torch.tensor(i)", "x[idx].clone()"),  # 0-d
])
def test_random_and_reduced_indices_without_a_dimension_are_not_advanced(setup, expression):
    assert [d for d in _flagged(setup, expression) if "advanced indexing" in d.message] == []
