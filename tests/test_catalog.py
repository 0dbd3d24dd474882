"""The static tables of analysis/catalog.py against the installed torch, so they cannot drift.

The linter never imports torch; this test does, and is skipped where torch is absent.
"""

from __future__ import annotations

import inspect

import pytest

from torchcopylint.analysis import catalog

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional


def _one_underscore(name: str) -> bool:
    return name.endswith("_") and not name.endswith("__") and not name.startswith("_")


def _inplace_position(function) -> "int | None":
    """Index of `inplace` among the positional parameters (after self for a method), or None."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # a builtin without a signature
        return None
    if "inplace" not in signature.parameters:
        return None
    assert signature.parameters["inplace"].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD, function
    names = [name for name, parameter in signature.parameters.items()
             if parameter.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    return names.index("inplace")


def test_inplace_tensor_methods_match_torch():
    in_torch = {name for name in dir(torch.Tensor) if _one_underscore(name)}
    assert catalog.NOT_VALUE_WRITES <= in_torch, catalog.NOT_VALUE_WRITES - in_torch
    expected = in_torch - catalog.NOT_VALUE_WRITES
    assert set(catalog.INPLACE_TENSOR_METHODS) == expected, {
        "missing from the table": sorted(expected - catalog.INPLACE_TENSOR_METHODS),
        "not in torch": sorted(catalog.INPLACE_TENSOR_METHODS - expected),
    }


def test_inplace_modules_match_torch():
    found = {}
    for name in dir(nn):
        value = getattr(nn, name)
        if name.startswith("_") or not inspect.isclass(value) or not issubclass(value, nn.Module):
            continue
        init = value.__init__
        try:
            parameters = list(inspect.signature(init).parameters)
        except (TypeError, ValueError):
            continue
        if "inplace" not in parameters:
            continue
        position = _inplace_position(init)
        assert parameters[0] == "self", name
        found[name] = position - 1  # among the arguments after self
    assert found == catalog.INPLACE_MODULE_ARGUMENT
    assert len(found) == 19  # the design's count for torch 2.13; update with the table


def test_inplace_functions_match_torch():
    found = {}
    for name in dir(F):
        value = getattr(F, name)
        if name.startswith("_") or not callable(value) or inspect.isclass(value):
            continue
        position = _inplace_position(value)
        if position is not None:
            found[name] = position
    assert found == catalog.INPLACE_FUNCTION_ARGUMENT
    assert len(found) == 19


def test_positions_agree_with_a_positional_call():
    # nn.ReLU(True) and F.relu(x, True) really are in place: the positions mean what they say.
    x = torch.ones(3)
    module = nn.ReLU(*([False] * catalog.INPLACE_MODULE_ARGUMENT["ReLU"] + [True]))
    assert module.inplace is True
    y = -torch.ones(3)
    F.relu(y, True)
    assert catalog.INPLACE_FUNCTION_ARGUMENT["relu"] == 1 and bool((y == 0).all())
    assert x.sum() == 3


@pytest.mark.parametrize("name, expected", [
    ("add_", True),
    ("relu_", True),
    ("copy_", True),
    ("masked_fill_", True),
    ("some_future_op_", True),  # the convention, for methods a newer torch adds
    ("requires_grad_", False),
    ("share_memory_", False),
    ("detach_", False),
    ("__iadd__", False),
    ("_foo_", False),
    ("add", False),
    ("clone", False),
])
def test_is_inplace_method_name(name, expected):
    assert catalog.is_inplace_method_name(name) is expected
