"""The page examples of writes across calls, containers and copies fed into ops, executed.

Each flagged example is run as written and as its fix makes it (the fix applied by the fixer
itself), on the same inputs: for TCL002 and TCL006 the results differ (the written values were
read), for TCL001 they are bitwise equal, gradients included (the copy was waste). Each clean
example that was reported before this analysis is run to show why the report was wrong.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from torchcopylint.engine import lint_source  # noqa: E402
from torchcopylint.fix import fix_source  # noqa: E402
from torchcopylint.pages import page_examples  # noqa: E402


def _example(code: str, kind: str, marker: str):
    found = [e for e in page_examples(code) if e.kind == kind and marker in e.source]
    assert len(found) == 1, f"{code}: {len(found)} {kind} examples contain {marker!r}"
    return found[0]


def _namespace(source: str, name: str) -> dict:
    namespace: dict = {"__name__": name}
    exec(compile(source, f"<{name}>", "exec"), namespace)  # noqa: S102
    return namespace


def _fixed(source: str, code: str) -> str:
    relint = lambda text: [d for d in lint_source(text, "example.py") if d.code == code]  # noqa: E731
    assert relint(source), f"the example has no {code} finding"
    outcome = fix_source(source, "example.py", relint, unsafe=True)
    assert outcome.error is None and outcome.fixed != source
    return outcome.fixed


def _both(code: str, marker: str):
    example = _example(code, "flagged", marker)
    return _namespace(example.source, "as_written"), _namespace(_fixed(example.source, code), "as_fixed")


# ------------------------------------------------------------------ TCL002 across calls


@pytest.mark.parametrize("marker, function, make_inputs", [
    ("def unit_norm", "cosine_logits", lambda: (torch.randn(4, 8) * 3, torch.randn(3, 8))),
    ("class Standardizer", "prepare", lambda: (torch.randn(6, 3) * 2 + 1,)),
    ("clip = lambda", "clip_and_compare", lambda: (torch.randn(5) * 4, 1.0)),
    ("def subtract_mean", "center_rows", lambda: (torch.randn(3, 4) + 2,)),
])
def test_alias_read_after_a_callee_wrote_it(marker, function, make_inputs):
    written, fixed = _both("TCL002", marker)
    torch.manual_seed(0)
    inputs = make_inputs()
    as_written = written[function](*[i.clone() if isinstance(i, torch.Tensor) else i for i in inputs])
    as_fixed = fixed[function](*[i.clone() if isinstance(i, torch.Tensor) else i for i in inputs])
    as_written = as_written if isinstance(as_written, tuple) else (as_written,)
    as_fixed = as_fixed if isinstance(as_fixed, tuple) else (as_fixed,)
    assert any(not torch.equal(a, b) for a, b in zip(as_written, as_fixed)), "the callee's write changed nothing"


def test_forward_writing_only_in_a_loop_leaves_the_input_alone():
    """Reported before ("self.stack wrote x"): the first iteration rebinds x, so no write reaches it."""
    example = _example("TCL002", "clean", "class RefineStack")
    namespace = _namespace(example.source, "refiner")
    torch.manual_seed(0)
    refiner = namespace["Refiner"](8)
    x = torch.randn(2, 8, requires_grad=True) * 1.0
    before = x.clone()
    version = x._version
    refiner(x).sum().backward()
    assert torch.equal(x, before) and x._version == version


def test_name_rebound_each_step_keeps_the_earlier_tensor():
    """Reported before: `largest` is the velocity of step 10, untouched by the clamp of step 11."""
    example = _example("TCL002", "clean", "def momentum_step")
    namespace = _namespace(example.source, "momentum")
    torch.manual_seed(0)
    weights, velocity = torch.randn(4), torch.randn(4)
    grads = [torch.randn(4) * 3 for _ in range(12)]
    _, largest = namespace["run"](weights.clone(), velocity.clone(), grads)
    kept = None
    for step, grad in enumerate(grads):
        velocity = (0.9 * velocity + grad).clamp(-1.0, 1.0)
        if step % 10 == 0:
            kept = velocity  # a new tensor each step, as in the example
    assert torch.equal(largest, kept)  # the value of step 10, not the clamped velocity of step 11
    assert not torch.equal(largest, velocity)


def test_buffers_filled_after_they_are_listed():
    example = _example("TCL002", "clean", "def momentum_buffers")
    namespace = _namespace(example.source, "buffers")
    grads = [torch.randn(3), torch.randn(2)]
    buffers = namespace["momentum_buffers"](grads)
    assert all(torch.equal(buffer, grad) for buffer, grad in zip(buffers, grads))  # what was meant


# ------------------------------------------------------------------ TCL006 across calls


def test_helper_scaling_a_numpy_view_breaks_the_loss():
    written, fixed = _both("TCL006", "def to_uint8_image")
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 4)
    images, targets = torch.randn(3, 4), torch.rand(3, 4)
    with torch.no_grad():
        loss, _ = fixed["eval_step"](model, images, targets)
        assert torch.isfinite(loss)
        with pytest.raises(RuntimeError, match="between 0 and 1"):
            written["eval_step"](model, images, targets)


def test_method_clamping_a_detached_alias_changes_the_scores():
    written, fixed = _both("TCL006", "class Visualizer")
    torch.manual_seed(0)
    head, features = torch.nn.Linear(8, 4), torch.randn(4, 8)
    assert not torch.equal(written["log_and_score"](head, features), fixed["log_and_score"](head, features))


def test_helper_clamping_through_an_inline_detach_changes_the_kept_samples(tmp_path):
    written, fixed = _both("TCL006", "def save_preview")
    torch.manual_seed(0)
    generator = torch.nn.Linear(4, 6)
    with torch.no_grad():
        generator.weight.mul_(5.0)  # outputs well outside [-1, 1]
    z = torch.randn(3, 2, 4)
    kept = written["sample"](generator, z, str(tmp_path / "a.pt"))
    meant = fixed["sample"](generator, z, str(tmp_path / "b.pt"))
    assert all(sample.abs().max() <= 1.0 for sample in kept), "the helper clamped the caller's samples"
    assert any(sample.abs().max() > 1.0 for sample in meant)


def test_method_returning_the_written_view_clamps_the_decoder_output():
    written, fixed = _both("TCL006", "class Decoder")
    torch.manual_seed(0)
    images = {}
    for name, namespace in (("written", written), ("fixed", fixed)):
        torch.manual_seed(0)
        decoder = namespace["Decoder"](4, 8)
        with torch.no_grad():
            decoder.net.weight.mul_(5.0)
        images[name], _ = decoder.decode_with_grid(torch.randn(2, 4))
    assert images["written"].abs().max() <= 1.0 < images["fixed"].abs().max()


# ------------------------------------------------------------------ TCL001


def _outputs_and_gradients(module, inputs):
    torch.manual_seed(1)
    output = module(*inputs)
    output.sum().backward()
    return [output.detach()] + [p.grad.clone() for p in module.parameters()] + \
        [i.grad.clone() for i in inputs if isinstance(i, torch.Tensor) and i.grad is not None]


@pytest.mark.parametrize("marker, make_module, make_input", [
    ("class QueryExpander", lambda ns: ns["QueryExpander"](8, 3), lambda: torch.randn(2, 8)),
    ("class ScaledConcat", lambda ns: ns["ScaledConcat"](8), lambda: torch.randn(2, 8)),
    ("class StagedResidual", lambda ns: ns["StagedResidual"](4), lambda: torch.randn(2, 4, 6, 6)),
])
def test_dropping_the_copy_changes_nothing(marker, make_module, make_input):
    written, fixed = _both("TCL001", marker)
    torch.manual_seed(0)
    leaf = make_input().requires_grad_()
    results = []
    for namespace in (written, fixed):
        torch.manual_seed(0)
        module = make_module(namespace)
        given = leaf.detach().clone().requires_grad_()
        results.append(_outputs_and_gradients(module, [given]))
    assert all(torch.equal(a, b) for a, b in zip(*results))


def test_dropping_the_copy_of_an_arithmetic_value_changes_nothing():
    written, fixed = _both("TCL001", "def blend")
    image, overlay = torch.rand(2, 3, 4, 4), torch.rand(2, 3, 4, 4)
    for a, b in zip(written["blend"](image, overlay, 0.3), fixed["blend"](image, overlay, 0.3)):
        assert torch.equal(a, b)


def test_copy_whose_saved_source_is_written_later_is_needed():
    """Without the clone, `h * gamma` saves `h` itself, and the in-place ReLU then overwrites it."""
    example = _example("TCL001", "clean", "class GatedSkip")
    without = example.source.replace("h.clone() * self.gamma", "h * self.gamma")
    assert without != example.source
    for source, fails in ((example.source, False), (without, True)):
        torch.manual_seed(0)
        module = _namespace(source, "gated")["GatedSkip"](4)
        out = module(torch.randn(3, 4))
        if fails:
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                out.sum().backward()
        else:
            out.sum().backward()


def test_copy_written_by_a_pre_activation_block_is_needed():
    example = _example("TCL001", "clean", "class PreActResidual")
    without = example.source.replace("h = x.clone()", "h = x")
    outputs = []
    for source in (example.source, without):
        torch.manual_seed(0)
        module = _namespace(source, "preact")["PreActResidual"](3)
        x = torch.randn(2, 3, 5, 5)
        outputs.append(module(x.clone()))
    assert not torch.equal(*outputs)


# ------------------------------------------------------------------ TCL001: indexing, items, callees


def test_dropping_clones_of_advanced_indexing_changes_nothing():
    written, fixed = _both("TCL001", "class TargetedAttack")
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(12, 3))
    images, labels = torch.rand(6, 3, 2, 2), torch.tensor([0, 1, 2, 0, 1, 2])
    with_clone = written["TargetedAttack"](model).perturb(images, labels)
    without = fixed["TargetedAttack"](model).perturb(images, labels)
    assert torch.equal(with_clone, without)
    assert not torch.equal(with_clone, images), "some images were attacked"


def test_dropping_the_clone_of_a_masked_selection_keeps_values_and_gradients():
    written, fixed = _both("TCL001", "def hard_negative_loss")
    results = []
    for namespace in (written, fixed):
        torch.manual_seed(0)
        scores = torch.randn(12, requires_grad=True)
        labels = torch.tensor([0, 1] * 6)
        loss = namespace["hard_negative_loss"](scores, labels)
        loss.backward()
        results.append((loss.detach(), scores.grad))
    assert all(torch.equal(a, b) for a, b in zip(*results))


def test_dropping_clones_assigned_into_items_changes_nothing():
    written, fixed = _both("TCL001", "def gather_rows")
    torch.manual_seed(0)
    features, order = torch.randn(5, 3), torch.randperm(5)
    base, update, keep = torch.randn(4, 2), torch.randn(4, 2), torch.tensor([True, False, True, True])
    for name, arguments in (("gather_rows", (features, order)), ("masked_fill_from", (base, update, keep))):
        assert torch.equal(written[name](*arguments), fixed[name](*arguments))
    leaf = torch.randn(5, 3, requires_grad=True)
    grads = []
    for namespace in (written, fixed):
        given = leaf.detach().clone().requires_grad_()
        (namespace["gather_rows"](given * 1.0, order) * torch.arange(15.0).view(5, 3)).sum().backward()
        grads.append(given.grad)
    assert torch.equal(*grads)


def test_dropping_copies_handed_to_readers_of_the_file_changes_nothing():
    written, fixed = _both("TCL001", "class StyleLoss")
    torch.manual_seed(0)
    cnn = torch.nn.Conv2d(3, 4, 3, padding=1)
    image, probed = torch.rand(1, 3, 6, 6), torch.rand(1, 4, 6, 6)
    results = []
    for namespace in (written, fixed):
        loss_module, gram = namespace["style_losses"](cnn, image)
        probe = probed.clone().requires_grad_()
        loss_module(probe)
        loss_module.loss.backward()
        results.append((loss_module.target, gram.detach(), probe.grad))
    assert all(torch.equal(a, b) for a, b in zip(*results))


def test_callee_that_stores_its_argument_keeps_the_copy():
    """The clean ContentLoss keeps `target` itself: without the clone, a write to the features
    afterwards would change the stored target."""
    example = _example("TCL001", "clean", "class ContentLoss")
    namespace = _namespace(example.source, "content")
    torch.manual_seed(0)
    features = torch.rand(1, 2, 3, 3)
    kept = namespace["ContentLoss"](features.clone())
    shared = namespace["ContentLoss"](features)
    features.mul_(0.0)
    assert torch.equal(shared.target, features) and not torch.equal(kept.target, features)


def test_dropping_the_copy_in_a_top_level_loop_changes_nothing(capsys):
    example = _example("TCL001", "flagged", "def relax")
    finals = []
    for source in (example.source, _fixed(example.source, "TCL001")):
        torch.manual_seed(0)
        finals.append(_namespace(source, "notebook")["z"])
    assert torch.equal(*finals)


def test_dropping_a_detached_copy_fed_through_a_view_changes_nothing():
    written, fixed = _both("TCL001", "class PairedTargets")
    leaf = torch.randn(3, 4)
    results = []
    for namespace in (written, fixed):
        torch.manual_seed(0)
        module = namespace["PairedTargets"](4)
        results.append(_outputs_and_gradients(module, [leaf.detach().clone().requires_grad_()]))
    assert all(torch.equal(a, b) for a, b in zip(*results))


def test_overlapping_views_need_their_copy():
    example = _example("TCL001", "clean", "def shift_history")
    namespace = _namespace(example.source, "history")
    history = torch.arange(4.0)
    assert torch.equal(namespace["shift_history"](history, torch.tensor(9.0)), torch.tensor([9.0, 0.0, 1.0, 2.0]))
    without = _namespace(example.source.replace("history[:-1].clone()", "history[:-1]"), "history")
    with pytest.raises(RuntimeError, match="single memory location"):
        without["shift_history"](torch.arange(4.0), torch.tensor(9.0))


def test_clone_of_a_basic_index_is_a_view_copy_that_is_needed():
    example = _example("TCL001", "clean", "def first_row_doubled")
    namespace = _namespace(example.source, "rows")
    without = _namespace(example.source.replace("h[i].clone()", "h[i]"), "rows")
    h = torch.arange(6.0).view(2, 3)
    assert not torch.equal(namespace["first_row_doubled"](h.clone(), 0), without["first_row_doubled"](h.clone(), 0))


def test_copy_handed_to_a_helper_that_optimizes_it_is_needed():
    """Reported before the optimizer's list counted as keeping its tensors: without the clone,
    `optimizer.step()` writes the encoder's output that `reconstruct` returns."""
    example = _example("TCL001", "clean", "def refine_latent")
    without = example.source.replace("code.detach().clone()", "code.detach()")
    assert without != example.source
    codes = []
    for source in (example.source, without):
        torch.manual_seed(0)
        encoder, weight, image = torch.nn.Linear(4, 3), torch.randn(3, 4), torch.rand(2, 4)
        code, _ = _namespace(source, "refine")["reconstruct"](encoder, weight, image)
        codes.append((code.detach(), encoder(image).detach()))
    (kept, fresh), (written, recomputed) = codes
    assert torch.equal(kept, fresh) and not torch.equal(written, recomputed)


def test_dropping_copies_handed_to_modules_and_methods_of_the_file_changes_nothing():
    written, fixed = _both("TCL001", "class Transfer")
    leaf = torch.rand(1, 3, 5, 5)
    results = []
    for namespace in (written, fixed):
        torch.manual_seed(0)
        cnn = torch.nn.Conv2d(3, 2, 3, padding=1)
        module = namespace["Transfer"](cnn, torch.rand(2, 2))
        results.append(_outputs_and_gradients(module, [leaf.clone().requires_grad_()]))
    assert all(torch.equal(a, b) for a, b in zip(*results))
