"""TCL008 on annotated parameters: the annotation gives way to what every call in the file passes."""

from __future__ import annotations

import textwrap

import pytest

from torchcopylint.engine import lint_source

AGENT = """
import numpy as np
import torch


class Agent:
    def select_action(self, state: torch.Tensor) -> int:
        return int(torch.tensor(state, dtype=torch.float32).argmax())

    def play(self, frame):
        stacked = np.stack((frame, frame), axis=2).transpose((2, 0, 1))
        for _ in range(3):
            action = self.select_action(stacked)
            stacked = np.append(stacked[1:], frame[None], axis=0)
{extra}
        return action
"""


def _tcl008_lines(source: str) -> list[int]:
    return [d.location.line for d in lint_source(textwrap.dedent(source), "agent.py") if d.code == "TCL008"]


@pytest.mark.parametrize("extra, flagged", [
    # Every call gives a NumPy array: the annotation is wrong, the copy is of an array.
    ("", False),
    # One call gives a tensor: the annotation holds there, and PyTorch warns.
    ("        self.select_action(torch.zeros(4))", True),
    # One call gives a value nothing says the kind of: the annotation stands.
    ("        self.select_action(self.observe())", True),
])
def test_an_annotated_parameter_every_call_gives_an_array_is_not_a_tensor(extra, flagged):
    assert bool(_tcl008_lines(AGENT.format(extra=extra))) == flagged


def test_an_annotated_parameter_of_a_function_handed_on_keeps_its_annotation():
    # `act` is also handed on as a callback: its calls are not all in sight, so the annotation stands.
    source = AGENT.format(extra="        run_episode(self.select_action)")
    assert _tcl008_lines(source)


@pytest.mark.parametrize("made, tensor", [
    ("np.stack((a, a))", False),
    ("np.random.randn(3)", False),
    ("np.zeros(3).reshape(1, 3)", False),
    # `np.clip(t, 0, 1)` calls `t.clip`: of a tensor, a tensor; not surely an array.
    ("np.clip(a, 0, 1)", None),
])
def test_what_numpy_makes_is_not_a_tensor(made, tensor):
    source = f"""
    import numpy as np
    import torch

    def f(a):
        x = {made}
        return torch.tensor(x)
    """
    # Only a sure tensor is flagged, so ask the typing directly.
    import libcst as cst

    from torchcopylint.analysis.facts import ModuleFacts
    from torchcopylint.analysis.tensors import Tensorness

    module = cst.parse_module(textwrap.dedent(source))
    facts = ModuleFacts(module)
    value = module.body[2].body.body[0].body[0].value
    expected = {False: Tensorness.NOT, None: Tensorness.UNKNOWN}[tensor]
    assert facts.typing.of(value, lambda name: Tensorness.UNKNOWN) is expected


@pytest.mark.parametrize("guard, flagged", [
    # The branch is taken only for what is not a tensor: the annotation does not hold there.
    ("if not isinstance(values, torch.Tensor):", False),
    ("if not torch.is_tensor(values):", False),
    # A test of something else says nothing of `values`.
    ("if not isinstance(device, str):", True),
    ("if True:", True),
])
def test_a_copy_under_a_test_of_what_the_value_is_follows_the_test(guard, flagged):
    source = f"""
    import torch


    def to_tensor(values: torch.Tensor, device="cpu"):
        {guard}
            values = torch.tensor(values)
        return values.to(device)
    """
    assert bool(_tcl008_lines(source)) == flagged


@pytest.mark.parametrize("expression, flagged", [
    # The conditional expression's own test: its `else` is taken only for what is not a tensor.
    ("values.to(device) if isinstance(values, torch.Tensor) else torch.tensor(values)", False),
    ("torch.tensor(values) if not torch.is_tensor(values) else values", False),
    # A test of something else says nothing of `values`.
    ("torch.tensor(values) if values.dim() else values", True),
])
def test_a_copy_in_a_branch_of_a_conditional_expression_follows_its_test(expression, flagged):
    source = f"""
    import torch


    def to_tensor(values: torch.Tensor, device="cpu"):
        return {expression}
    """
    assert bool(_tcl008_lines(source)) == flagged
