"""TCL005's silences, executed: the values the rule calls free of autograd really are, and the ones
it still reports really record a CloneBackward node.

Each case builds a tensor the way the code on the page does and checks what `.clone()` records
under grad mode: `grad_fn` None (no node, both orders cost the same: silent) or `CloneBackward0`
(the node `clone().detach()` throws away: reported). The static verdict for the same spelling is
checked next to it, so the two cannot drift apart.
"""

from __future__ import annotations

import copy
import io
import textwrap

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from torchcopylint.engine import lint_source  # noqa: E402

SILENT = {
    # spelling as written in the source -> how to make that value at run time
    "_, pred = out.max(1)": lambda out, model: out.max(1)[1],
    "out.max(1)[1]": lambda out, model: out.max(1)[1],
    "vals, idx = out.topk(2)": lambda out, model: out.topk(2)[1],
    "order = out.sort(dim=1)[1]": lambda out, model: out.sort(dim=1)[1],
    "out.argmax(1)": lambda out, model: out.argmax(1),
    "torch.nonzero(out > 0)": lambda out, model: torch.nonzero(out > 0),
    "model.state_dict()['weight']": lambda out, model: model.state_dict()["weight"],
    "for name, b in model.named_buffers()": lambda out, model: next(model.named_buffers())[1],
    "loaded state dict": lambda out, model: _reloaded(model)["weight"],
}
REPORTED = {
    "vals, idx = out.topk(2)  (the values)": lambda out, model: out.topk(2)[0],
    "out.max(out)  (element-wise)": lambda out, model: out.max(out),
    "model.state_dict(keep_vars=True)['weight']": lambda out, model: model.state_dict(keep_vars=True)["weight"],
}


def _reloaded(model):
    buffer = io.BytesIO()
    torch.save(copy.deepcopy(model.state_dict()), buffer)
    buffer.seek(0)
    return torch.load(buffer)


def _make():
    torch.manual_seed(0)
    model = nn.BatchNorm1d(3)
    out = model(torch.randn(4, 3))
    assert out.requires_grad
    return out, model


@pytest.mark.parametrize("make", SILENT.values(), ids=SILENT.keys())
def test_silent_values_record_no_clone_node(make):
    out, model = _make()
    with torch.enable_grad():
        value = make(out, model)
        assert not value.requires_grad
        assert value.clone().grad_fn is None


@pytest.mark.parametrize("make", REPORTED.values(), ids=REPORTED.keys())
def test_reported_values_record_a_clone_node(make):
    out, model = _make()
    with torch.enable_grad():
        value = make(out, model)
        assert value.requires_grad
        assert type(value.clone().grad_fn).__name__ == "CloneBackward0"


STATIC_SILENT = [
    "_, pred = out.max(1)\n    return pred.clone().detach()",
    "return out.max(1)[1].clone().detach()",
    "vals, idx = out.topk(2)\n    return idx.clone().detach()",
    "order = out.sort(dim=1)[1]\n    return order.clone().detach()",
    "return torch.nonzero(out > 0).clone().detach()",
    "return model.state_dict()['weight'].clone().detach()",
    "return [b.clone().detach() for name, b in model.named_buffers()]",
    "return {k: v.clone().detach() for k, v in model.state_dict().items()}",
    "sd = torch.load(path)\n    model.load_state_dict(sd)\n    return sd['weight'].clone().detach()",
    "state_dict = torch.load(path)\n    return [v.clone().detach() for v in state_dict.values()]",
]
STATIC_REPORTED = [
    "vals, idx = out.topk(2)\n    return vals.clone().detach()",
    "return out.max(out)[1].clone().detach()",
    "return model.state_dict(keep_vars=True)['weight'].clone().detach()",
    "ckpt = torch.load(path)\n    return ckpt['w'].clone().detach()",
]


def _tcl005(body: str) -> list:
    source = "import torch\n\n\ndef f(out, model, path):\n    " + body + "\n"
    return [d for d in lint_source(source, "example.py") if d.code == "TCL005"]


@pytest.mark.parametrize("body", STATIC_SILENT)
def test_static_silence_matches(body):
    assert _tcl005(body) == []


@pytest.mark.parametrize("body", STATIC_REPORTED)
def test_static_report_keeps_the_condition(body):
    (found,) = _tcl005(body)
    assert found.message.startswith("if `"), found.message


def test_cases_are_spelled_as_the_page_says():
    """The page's clean examples for these shapes exist (they are the rule's tests)."""
    from torchcopylint.pages import page_examples

    clean = "\n".join(textwrap.dedent(e.source) for e in page_examples("TCL005") if e.kind == "clean")
    for spelling in ("_, pred = logits.max(1)", ".state_dict().items()", "model.buffers()",
                     "model.named_buffers()", 'checkpoint["model_state_dict"]'):
        assert spelling in clean, spelling
