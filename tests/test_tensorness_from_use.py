"""Analysis facts behind issue 13's recall work: tensorness from use, the parts of torch's tuple
results, same-file functions that return tensors, and surely integral tensors."""

from __future__ import annotations

import textwrap

import libcst as cst

from torchcopylint.analysis.facts import ModuleFacts
from torchcopylint.analysis.tensors import Tensorness


def _facts(source: str) -> ModuleFacts:
    source = textwrap.dedent(source)
    return ModuleFacts(cst.parse_module(source), source=source)


def _tensorness(facts: ModuleFacts, function: str) -> dict:
    """name -> tensorness of its last assignment (or parameter) in `function`."""
    found = {}
    for flow in facts.all_functions():
        if flow.name == function:
            for binding in flow.bindings:
                found[binding.name] = binding.tensorness
    return found


def test_a_tensor_only_method_makes_the_name_and_its_earlier_alias_tensors():
    facts = _facts("""
        def f(x, w):
            skip = x
            x.relu_()
            return x + skip
    """)
    found = _tensorness(facts, "f")
    assert found["x"] is Tensorness.LIKELY
    assert found["skip"] is Tensorness.LIKELY
    assert found["w"] is Tensorness.UNKNOWN


def test_the_tensor_argument_of_a_torch_function():
    facts = _facts("""
        import torch
        import torch.nn.functional as F

        def f(a, b, sizes):
            F.relu(a, inplace=True)
            torch.add(b, 1)
            torch.zeros(sizes)
    """)
    found = _tensorness(facts, "f")
    assert found["a"] is Tensorness.LIKELY and found["b"] is Tensorness.LIKELY
    assert found["sizes"] is Tensorness.UNKNOWN  # a size, not a tensor


def test_methods_numpy_shares_and_item_assignment_prove_nothing():
    facts = _facts("""
        import numpy as np

        def f(values, other, config):
            values.copy()
            values.mean()
            other[0] = 1
            config.clone(1)
            config.backward(2)
    """)
    found = _tensorness(facts, "f")
    assert found["values"] is Tensorness.UNKNOWN
    assert found["other"] is Tensorness.UNKNOWN
    assert found["config"] is Tensorness.UNKNOWN


def test_a_use_under_a_type_test_proves_nothing():
    facts = _facts("""
        import torch

        def f(data, other):
            if isinstance(data, torch.Tensor):
                data.detach()
            y = other.clone() if torch.is_tensor(other) else other
    """)
    found = _tensorness(facts, "f")
    assert found["data"] is Tensorness.UNKNOWN and found["other"] is Tensorness.UNKNOWN


def test_parts_of_tuple_results_and_returning_functions():
    facts = _facts("""
        import torch

        def basis(m):
            return torch.linalg.qr(m)[0]

        def maybe(m):
            if m is None:
                return []
            return torch.zeros(3)

        def f(m):
            vals, vecs = torch.linalg.eigh(m)
            top = vals[-1]
            b = basis(m)
            c = maybe(m)
            first, second = m
    """)
    found = _tensorness(facts, "f")
    assert found["vals"] is Tensorness.SURE and found["vecs"] is Tensorness.SURE
    assert found["top"] is Tensorness.SURE
    assert found["b"] is Tensorness.SURE
    assert found["c"] is Tensorness.UNKNOWN
    assert found["first"] is Tensorness.UNKNOWN


def test_surely_integral():
    facts = _facts("""
        import torch

        def f(logits, y, device):
            labels = logits.argmax(dim=1)
            kept = labels[logits.amax(dim=1) > 0].to(device)
            floats = labels.to(torch.float32)
            drawn = torch.randint(0, 10, (4,))
            built = torch.zeros(3, dtype=torch.long)
            mask = logits > 0
            return labels, kept, floats, drawn, built, mask, y.long(), y
    """)
    flow = next(function for function in facts.all_functions() if function.name == "f")
    returned = flow.node.body.body[-1].body[0].value.elements
    verdicts = [facts.surely_integral(element.value, flow) for element in returned]
    assert verdicts == [True, True, False, True, True, True, True, False]


def test_max_and_min_make_one_tensor_without_a_dimension_and_a_pair_with_one():
    facts = _facts("""
        import torch


        def f(scores, k):
            a = torch.zeros(4)
            b = torch.ones(4)
            elementwise = torch.max(a, b)
            largest = torch.min(a)
            method = a.max(b)
            whole = a.max()
            pair = torch.max(a, 1)
            by_name = torch.max(a, k)
            by_keyword = torch.max(a, dim=0)
    """)
    found = _tensorness(facts, "f")
    assert found["elementwise"] is Tensorness.SURE  # the elementwise maximum of two tensors
    assert found["largest"] is Tensorness.SURE and found["whole"] is Tensorness.SURE
    assert found["method"] is Tensorness.SURE
    # (values, indices): not one tensor; `k` may be a dimension.
    assert not found["pair"].is_tensor and not found["by_name"].is_tensor and not found["by_keyword"].is_tensor
