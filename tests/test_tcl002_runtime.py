"""TCL002's page, executed: the blocks it flags really change what they compute.

For every flagged example on rules/TCL002.md that has a `fixed` twin, and
defines one nn.Module (or one plain function), both versions run under torch
on the same parameters and the same non-leaf input (as inside a network):

- its outputs differ from the fixed version's;
- where the finding is a read of the input itself after a write (TCL002
  without an alias), the flagged version has changed its input in place.

That the two outputs differ is the bug: the residual, the skip connection or
the concatenated input holds the written values instead of the ones passed in.
"""

from __future__ import annotations

import ast
import re

import pytest

torch = pytest.importorskip("torch")

from torchcopylint.engine import lint_source  # noqa: E402
from torchcopylint.pages import Example, page_examples  # noqa: E402

EXAMPLES = page_examples("TCL002")


def _pairs() -> list:
    """(flagged, fixed) pairs of examples that build a module from one integer size."""
    pairs = []
    for flagged, following in zip(EXAMPLES, EXAMPLES[1:]):
        if flagged.kind == "flagged" and following.kind == "fixed" and _module_class(flagged) is not None:
            pairs.append(pytest.param(flagged, following, id=f"TCL002-L{flagged.line}"))
    return pairs


def _module_class(example: Example):
    """The name of the example's only class, if its constructor takes a single size."""
    classes = [node for node in ast.parse(example.source).body if isinstance(node, ast.ClassDef)]
    if len(classes) != 1:
        return None
    init = next((node for node in classes[0].body if isinstance(node, ast.FunctionDef) and node.name == "__init__"), None)
    required = [arg for arg in init.args.args[1:]][: len(init.args.args) - 1 - len(init.args.defaults)] if init else []
    return classes[0].name if len(required) == 1 else None


def _input_for(module) -> "torch.Tensor":
    """A non-leaf batch shaped for the module's first layer (conv: images, else tokens)."""
    first = next(layer for layer in module.modules() if isinstance(layer, (torch.nn.Conv2d, torch.nn.Linear,
                                                                            torch.nn.TransformerEncoderLayer)))
    if isinstance(first, torch.nn.Conv2d):
        leaf = torch.randn(2, first.in_channels, 8, 8, requires_grad=True)
    elif isinstance(first, torch.nn.Linear):
        leaf = torch.randn(2, 5, first.in_features, requires_grad=True)
    else:
        leaf = torch.randn(2, 5, first.self_attn.embed_dim, requires_grad=True)
    return leaf * 1.0


def _run(example: Example, size: int, inputs: "torch.Tensor"):
    namespace: dict = {"__name__": f"tcl002_runtime_L{example.line}"}
    exec(compile(example.source, f"<TCL002 example line {example.line}>", "exec"), namespace)  # noqa: S102
    torch.manual_seed(0)
    module = namespace[_module_class(example)](size)
    module.train()
    given = inputs.clone()
    torch.manual_seed(1)
    output = module(given)
    return (output if isinstance(output, tuple) else (output,)), given


def test_the_pairs_include_the_classes_without_an_alias():
    sources = [flagged.source for flagged, _ in (p.values for p in _pairs())]
    assert any("out += x" in source for source in sources)
    assert any("nn.Sequential(*layers)" in source for source in sources)
    assert len(sources) >= 5


@pytest.mark.parametrize("flagged,fixed", _pairs())
def test_flagged_block_computes_with_the_written_input(flagged, fixed):
    torch.manual_seed(0)
    probe = _run_module_only(flagged, 8)
    inputs = _input_for(probe)
    as_written, given = _run(flagged, 8, inputs)
    as_fixed, _ = _run(fixed, 8, inputs)
    assert any(not torch.equal(a, b) for a, b in zip(as_written, as_fixed)), "the write did not change the result"
    messages = [d.message for d in lint_source(flagged.source) if d.code == "TCL002"]
    if any(re.match(r"`\w+` is read at line ", message) for message in messages):
        assert not torch.equal(given, inputs), "the flagged code did not write its input in place"


def _run_module_only(example: Example, size: int):
    namespace: dict = {"__name__": f"tcl002_probe_L{example.line}"}
    exec(compile(example.source, f"<TCL002 example line {example.line}>", "exec"), namespace)  # noqa: S102
    return namespace[_module_class(example)](size)


def test_plain_function_with_tensorness_from_use():
    """`def gated_residual(x, w)`: nothing declares x a tensor; the skip holds the rectified x."""
    example = next(e for e in EXAMPLES if e.kind == "flagged" and "def gated_residual" in e.source)
    namespace: dict = {"__name__": "tcl002_plain"}
    exec(compile(example.source, "<TCL002 plain function>", "exec"), namespace)  # noqa: S102
    torch.manual_seed(0)
    x, w = torch.randn(4, 3), torch.randn(3, 3)
    as_written = namespace["gated_residual"](x.clone(), w)
    intended = torch.relu(x) @ w + x
    assert not torch.equal(as_written, intended)
    assert torch.equal(as_written, torch.relu(x) @ w + torch.relu(x))
