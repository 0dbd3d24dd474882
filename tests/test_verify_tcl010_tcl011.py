"""--verify for TCL010 and TCL011: the verdict comes from running the code, and can go either way.

One child process verifies a small module holding the rules' own diagnostics (confirmed) and two
false diagnoses made by hand (refuted): a `.data` write into a tensor the backward did not save,
and a `retain_graph=True` that a later backward does need.
"""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path

import pytest

from torchcopylint.diagnostic import Diagnostic, Edit, Fix, Location, Severity
from torchcopylint.engine import lint_source

pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="--verify needs torch")

MODULE = textwrap.dedent('''
    import torch
    import torch.nn.functional as F
    from torch import nn


    def early_update(steps: int = 3, lr: float = 0.1):
        torch.manual_seed(0)
        x = torch.randn(16, 4)
        y = x.sum(dim=1, keepdim=True)
        w1 = torch.randn(4, 8, requires_grad=True)
        w2 = torch.randn(8, 1, requires_grad=True)
        for step in range(steps):
            hidden = torch.tanh(x @ w1)
            loss = ((hidden @ w2 - y) ** 2).mean()
            if step > 0:
                w1.data -= lr * w1.grad
                w2.data -= lr * w2.grad
                w1.grad.zero_()
                w2.grad.zero_()
            loss.backward()
        return w1, w2


    def shared_features(steps: int = 2):
        torch.manual_seed(0)
        backbone = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
        head_a, head_b = nn.Linear(8, 1), nn.Linear(8, 1)
        for _ in range(steps):
            x = torch.randn(16, 4)
            features = backbone(x)
            loss_a = head_a(features).pow(2).mean()
            loss_b = head_b(features).abs().mean()
            loss_a.backward(retain_graph=True)
            loss_b.backward()


    def retained_for_nothing(steps: int = 2):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
        for _ in range(steps):
            loss = F.cross_entropy(model(torch.randn(16, 4)), torch.randint(0, 2, (16,)))
            loss.backward(retain_graph=True)


    def saliency(model: nn.Module, image: torch.Tensor):
        image.requires_grad_(True)
        output = model(image)
        predicted = output.argmax(dim=1).item()
        score = output[0, predicted]
        score.backward(retain_graph=True)
        return image.grad.abs().amax(dim=1)


    def sharpness(batches: int = 3):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
        params = list(model.parameters())
        total = [torch.zeros_like(p) for p in params]
        for _ in range(batches):
            loss = F.cross_entropy(model(torch.randn(16, 4)), torch.randint(0, 2, (16,)))
            grads = torch.autograd.grad(loss, params, retain_graph=True)
            total = [t + g for t, g in zip(total, grads)]
        # The last batch's loss, through the graph its gradient kept: a Hessian-vector product.
        return hessian_vector(loss / 16, params, total)


    def long_training(steps: int = 500):
        torch.manual_seed(0)
        model = nn.Linear(4, 2)
        for _ in range(steps):
            cost = model(torch.randn(8, 4)).pow(2).mean()
            cost.backward(retain_graph=True)


    def hessian_vector(loss, params, vector):
        first = torch.autograd.grad(loss, params, create_graph=True)
        return torch.autograd.grad(sum((g * v).sum() for g, v in zip(first, vector)), params)
''')


def _line(text: str) -> int:
    return next(number for number, line in enumerate(MODULE.splitlines(), 1) if text in line)


def _false_tcl010(path: str) -> Diagnostic:
    line = _line("w1.data -= lr * w1.grad")
    return Diagnostic("TCL010", "data-write-under-autograd", "hand-made: w1 is not saved by `x @ w1`",
                      Location(path, line, 17, line, 40), Severity.ERROR,
                      context={"backward_line": _line("loss.backward()"), "written": "w1"})


def _false_tcl011(path: str, call: str, loss: str, why: str) -> Diagnostic:
    """A TCL011 on `call` (its `retain_graph=True` called unneeded), made by hand: false, as `why` says."""
    line = _line(call)
    start = MODULE.splitlines()[line - 1].index(call) + 1
    end = start + len(call)
    return Diagnostic("TCL011", "retain-graph-workaround", f"hand-made: {why}",
                      Location(path, line, start, line, end), Severity.ERROR,
                      fix=Fix.unsafe("Remove `retain_graph=True`",
                                     Edit(line, start, line, end, call.replace(", retain_graph=True", "")
                                          .replace("retain_graph=True", ""))),
                      context={"backward_line": line, "loss": loss, "kind": "unneeded"})


@pytest.fixture(scope="module")
def verified(tmp_path_factory):
    from torchcopylint.verify.runner import VerifyOptions, verify

    path = tmp_path_factory.mktemp("verify-tcl010-011") / "steps.py"
    path.write_text(MODULE, encoding="utf-8")
    own = [d for d in lint_source(MODULE, str(path)) if d.code in ("TCL010", "TCL011")]
    diagnostics = own + [
        _false_tcl010(str(path)),
        _false_tcl011(str(path), "loss_a.backward(retain_graph=True)", "loss_a", "loss_b needs the graph"),
        _false_tcl011(str(path), "torch.autograd.grad(loss, params, retain_graph=True)", "loss",
                      "the Hessian after the loop needs the graph"),
    ]
    results = verify(diagnostics, {str(path): MODULE}, VerifyOptions(device="cpu", timeout=120, jobs=1))
    return {(d.code, d.location.line, d.message.startswith("hand-made")): d.verdict for d in results}


def test_the_rules_find_what_the_module_holds():
    found = sorted((d.code, d.location.line) for d in lint_source(MODULE, "steps.py") if d.code in ("TCL010", "TCL011"))
    assert found == [("TCL010", _line("w2.data -= lr * w2.grad")),
                     ("TCL011", _line("loss.backward(retain_graph=True)")),
                     ("TCL011", _line("score.backward(retain_graph=True)")),
                     ("TCL011", _line("cost.backward(retain_graph=True)"))]


def test_data_write_into_a_saved_tensor_is_confirmed_with_the_gradient_difference(verified):
    verdict = verified[("TCL010", _line("w2.data -= lr * w2.grad"), False)]
    assert verdict.status == "confirmed", verdict
    assert "largest difference" in verdict.evidence and "`w1`" in verdict.evidence


def test_data_write_into_a_tensor_not_saved_is_refuted(verified):
    verdict = verified[("TCL010", _line("w1.data -= lr * w1.grad"), True)]
    assert verdict.status == "refuted", verdict
    assert "bitwise equal" in verdict.evidence


def test_unneeded_retain_graph_is_confirmed_with_the_bytes_held(verified):
    verdict = verified[("TCL011", _line("loss.backward(retain_graph=True)"), False)]
    assert verdict.status == "confirmed", verdict
    assert "bytes" in verdict.evidence and "no second-backward error" in verdict.evidence


def test_retain_graph_a_later_backward_needs_is_refuted(verified):
    verdict = verified[("TCL011", _line("loss_a.backward(retain_graph=True)"), True)]
    assert verdict.status == "refuted", verdict
    assert "backward through the graph a second time" in verdict.evidence


def test_a_retaining_backward_the_first_setting_cannot_reach_is_run_in_the_next(verified):
    # Grad-CAM's `output.argmax(dim=1).item()` takes one image: stand-in batches of four fail before
    # the backward ("a Tensor with 4 elements cannot be converted to Scalar"; fresh41's course repo);
    # the function's next setting, batches of one sample, reaches it, and the evidence says so.
    verdict = verified[("TCL011", _line("score.backward(retain_graph=True)"), False)]
    assert verdict.status == "confirmed", verdict
    assert "the backward was reached with stand-ins (batches of one sample)" in verdict.evidence, verdict.evidence


def test_a_graph_of_an_empty_batch_holds_only_empty_tensors_which_show_nothing():
    # fresh60's PPO scripts: a rollout the experiment cut short left `len(obs) // training_iters` samples,
    # none; the retained graph then held no activation, and "refuted" two right TCL011 findings. Empty
    # saved tensors are counted apart, and the experiment then decides nothing (experiments.py).
    import torch
    from torch import nn

    from torchcopylint.verify.experiments import _saved_bytes

    actor = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2), nn.Softmax(dim=-1))
    for samples, empty in ((0, True), (3, False)):
        loss = actor(torch.randn(samples, 4)).log().mean()
        loss.backward(retain_graph=True)
        activations, activation_count, _, _, empty_count = _saved_bytes([loss])
        assert (activation_count == 0 and empty_count > 0) == empty, (samples, activation_count, empty_count)


def test_retain_graph_the_code_after_the_loop_needs_is_refuted(verified):
    # fresh111's sharpness measure: each batch's gradient keeps its graph, and after the loop a Hessian goes
    # through the last batch's. The run without `retain_graph=True` goes on until the function returns (before:
    # it stopped at the second pass over the line, and the wrong claim was confirmed).
    verdict = verified[("TCL011", _line("grads = torch.autograd.grad(loss, params, retain_graph=True)"), True)]
    assert verdict.status == "refuted", verdict
    assert "backward through the graph a second time" in verdict.evidence


def test_the_rule_sees_the_loss_read_after_the_loop():
    assert all(d.location.line != _line("grads = torch.autograd.grad(loss, params, retain_graph=True)")
               for d in lint_source(MODULE, "steps.py") if d.code == "TCL011")


def test_a_run_that_passes_the_backward_more_often_than_watched_decides_nothing(verified):
    # Five hundred passes, and the run without `retain_graph=True` watches two hundred at most: what the
    # function does after its loop was not seen, so the claim is neither confirmed nor refuted.
    verdict = verified[("TCL011", _line("cost.backward(retain_graph=True)"), False)]
    assert verdict.status == "unverified", verdict
    assert "200 passes over that line" in verdict.evidence and "did not return" in verdict.evidence
