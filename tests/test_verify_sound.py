"""Sound verdicts: a refutation rests on a measurement that could have shown the effect, an error
the code raises on the claim's path is evidence, and a claim that holds only for some values
follows what the file's callers pass, or says what it assumed.

- `sound_verified`: one `verify()` call over tests/data/verify/sound, with the linter's own
  diagnostics (each marked `# expect:` in the fixtures) and one false TCL003 made by hand.
- the rest run in process: the line probe, stand-ins of failed imports, the assumption in
  every output format.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import TESTS_DATA, lint_marked_fixtures

from torchcopylint.diagnostic import Diagnostic, Location, Severity

needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                                 reason="--verify needs torch (pip install torchcopylint[verify])")

FIXTURES = TESTS_DATA / "verify" / "sound"
# Generous per-diagnosis limit: a loaded machine must not turn a verdict into "timed out".
PATIENT_TIMEOUT = 120


def line_of(source: str, text: str, occurrence: int = 1) -> int:
    found = [number for number, line in enumerate(source.splitlines(), 1) if text in line]
    assert len(found) >= occurrence, f"{text!r} occurs {len(found)} times"
    return found[occurrence - 1]


def _false_discriminator_finding(path: str, source: str) -> Diagnostic:
    """A TCL003 on `D(fake.detach())`, as the rule would word it: false (the fake is detached)."""
    line = line_of(source, "D(fake.detach())")
    column = source.splitlines()[line - 1].index("D(fake.detach())") + 1
    return Diagnostic(
        "TCL003", "discriminator-without-detach", "the discriminator's backward runs through the generator",
        Location(path, line, column, line, column + len("D(fake.detach())")), Severity.ERROR,
        context={"generator": "G", "discriminator": "D", "generator_line": line_of(source, "fake = G(z)", 3),
                 "backward_line": line_of(source, "d_loss.backward()", 3), "step_line": line_of(source, "opt_d.step()", 3)},
    )


def _false_rollout_finding(path: str, source: str) -> Diagnostic:
    """A TCL007 on a rollout buffer's append, as the rule worded it before it saw the buffer drained
    into the loss: false (each backward takes what the buffer held)."""
    line = line_of(source, "values.append(value)")
    column = source.splitlines()[line - 1].index("values") + 1
    return Diagnostic(
        "TCL007", "graph-kept-alive", "`values.append(value)` inside the loop keeps every iteration's graph alive",
        Location(path, line, column, line, column + len("values.append(value)")), Severity.ERROR,
        context={"accumulator": "values", "value": "value", "kept": "graph nodes"},
    )


@pytest.fixture(scope="module")
def sound_verified(tmp_path_factory):
    from torchcopylint.verify.runner import VerifyOptions, verify

    directory = tmp_path_factory.mktemp("verify-sound")
    for path in sorted(FIXTURES.glob("*.py")):
        shutil.copy(path, directory / path.name)
    # The fixtures still hold the findings they were written for, and nothing else.
    sources, diagnostics = lint_marked_fixtures(directory)
    trainer = str(directory / "generator_steps_first.py")
    diagnostics.append(_false_discriminator_finding(trainer, sources[trainer]))
    rollout = str(directory / "rollout_buffer.py")
    diagnostics.append(_false_rollout_finding(rollout, sources[rollout]))
    verified = verify(diagnostics, sources, VerifyOptions(device="cpu", timeout=PATIENT_TIMEOUT, jobs=2))
    return {"verified": verified, "sources": sources, "directory": directory,
            "by_key": {(Path(d.path).name, d.location.line, d.code): d for d in verified}}


def _verdict(verified, name: str, text: str, code: str, occurrence: int = 1):
    source = verified["sources"][str(verified["directory"] / name)]
    key = (name, line_of(source, text, occurrence), code)
    diagnostic = verified["by_key"].get(key)
    assert diagnostic is not None and diagnostic.verdict is not None, (key, sorted(verified["by_key"]))
    return diagnostic.verdict


# --- TCL003: the generator steps between its backward and the discriminator's --------------------


@needs_torch
def test_generator_stepping_between_the_backwards_is_confirmed_by_the_crash_it_causes(sound_verified):
    # The made-up noise requires grad, so the generator's graph saved its weight; the generator's
    # step changed that weight in place; the discriminator's backward, going through the fake,
    # fails on it. That error is the finding's evidence, never a refutation.
    verdict = _verdict(sound_verified, "generator_steps_first.py", "D(fake)).mean()  # expect", "TCL003")
    assert verdict.status == "confirmed", verdict
    assert "runs through the generator's graph" in verdict.evidence, verdict
    assert "modified by an inplace operation" in verdict.evidence, verdict


@needs_torch
def test_generator_stepping_between_the_backwards_is_confirmed_by_the_gradient_it_changes(sound_verified):
    # Fresh noise: no crash. The generator's `.grad`, read before and after the discriminator's
    # backward, changed: that backward computed generator gradients.
    verdict = _verdict(sound_verified, "generator_steps_first.py", "D(fake)).mean()  # expect", "TCL003", 2)
    assert verdict.status == "confirmed", verdict
    changed = re.search(r"reached (\d+) of (\d+) generator parameters and changed their `\.grad` by ([0-9.e+-]+) "
                        r"in L1 norm", verdict.evidence)
    assert changed and int(changed.group(1)) > 0 and float(changed.group(3)) > 0, verdict


@needs_torch
def test_a_false_discriminator_finding_is_refuted_from_the_graph_and_the_gradients(sound_verified):
    verdict = _verdict(sound_verified, "generator_steps_first.py", "D(fake.detach())", "TCL003")
    assert verdict.status == "refuted", verdict
    assert "none of the generator's 2 parameters in its graph" in verdict.evidence, verdict
    assert "no gradient hook on them fired" in verdict.evidence, verdict


@needs_torch
def test_a_fake_made_by_another_generator_than_the_one_measured_refutes_nothing(sound_verified):
    # `generate_images()` calls the notebook's global `G`; `train(D, G)` was given a stand-in `G`. The
    # backward's graph holds the global generator's parameters, not the stand-in's: that measurement
    # could not have shown the effect on the generator it watched.
    verdict = _verdict(sound_verified, "global_generator.py", "D(fake_images)).mean())  # expect", "TCL003")
    assert verdict.status != "refuted", verdict
    assert "has none of `G`'s parameters in its graph but 2 of another network's" in verdict.evidence, verdict


@needs_torch
def test_a_stand_in_loss_reads_every_score_it_is_given_and_refutes_nothing_it_hid(sound_verified):
    # `d_criterion(real_right, real_wrong, fake_right)`: the stand-in loss once read the first two only,
    # so the discriminator's backward never reached the generator and a true finding was refuted.
    verdict = _verdict(sound_verified, "three_score_loss.py", "fake_right = discriminator(fake", "TCL003")
    assert verdict.status == "confirmed", verdict
    assert "reached 2 of 2 generator parameters" in verdict.evidence, verdict
    assert "d_criterion = mean squared difference (and squares of any further input)" in verdict.evidence, verdict


# --- Equal values: NaN in the same places ------------------------------------------------------


@needs_torch
def test_outputs_holding_nan_in_the_same_places_are_equal_and_refute_nothing(sound_verified):
    verdict = _verdict(sound_verified, "indicator_nan.py", "gains = deltas.clone()", "TCL001")
    assert verdict.status == "confirmed" and "without the clone, outputs are bitwise equal" in verdict.evidence, \
        verdict


# --- TCL005: what the callers pass -----------------------------------------------------------------


@needs_torch
def test_clone_of_what_every_caller_passes_from_state_dict_is_refuted(sound_verified):
    verdict = _verdict(sound_verified, "checkpoints.py", "return t.clone().detach()", "TCL005")
    source = sound_verified["sources"][str(sound_verified["directory"] / "checkpoints.py")]
    assert verdict.status == "refuted", verdict
    assert "`t` does not require grad when called from `save_weights()` at line " \
           f"{line_of(source, 'snapshot(value)')}" in verdict.evidence, verdict
    assert f"the same from `best_weights()` at line {line_of(source, 'snapshot(state[name])')}" in verdict.evidence


@needs_torch
def test_clone_of_what_a_caller_passes_from_a_network_is_confirmed_through_that_caller(sound_verified):
    verdict = _verdict(sound_verified, "features.py", "return t.clone().detach()", "TCL005")
    assert verdict.status == "confirmed", verdict
    assert "records CloneBackward0" in verdict.evidence and "when called from `features()`" in verdict.evidence
    assert "assumed" not in verdict.evidence, verdict


@needs_torch
def test_a_clone_in_a_function_that_returns_nothing_is_compared_through_the_tensors_it_holds(sound_verified):
    # fresh98's seq2seq shape tests: "the code returned no floating-point tensor to compare".
    verdict = _verdict(sound_verified, "no_return.py", "padded = tokens.clone()", "TCL001")
    assert verdict.status == "confirmed", verdict
    assert "the tensors its locals held at its return are bitwise equal" in verdict.evidence, verdict


@needs_torch
def test_a_write_through_a_numpy_view_names_a_value_it_changed(sound_verified):
    # fresh101's lesson on shared memory: "changed 1 of 4 values of `t2` (e.g. 1 -> 1)", the first element.
    verdict = _verdict(sound_verified, "numpy_view_lesson.py", "view = t.numpy()", "TCL006")
    assert verdict.status == "confirmed", verdict
    assert "changed 1 of 4 values of `t` (e.g. 2 -> 99)" in verdict.evidence, verdict


@needs_torch
def test_a_wrapper_s_conversion_is_confirmed_by_running_the_caller_that_hands_it_a_grad_tensor(sound_verified):
    # Alone, `to_numpy(t)` would be given a stand-in; run from `scores_of`, it gets the model's output.
    verdict = _verdict(sound_verified, "numpy_wrapper.py", "return t.cpu().numpy()", "TCL009")
    assert verdict.status == "confirmed", verdict
    assert "raised RuntimeError: Can't call numpy() on Tensor that requires grad" in verdict.evidence, verdict


@needs_torch
def test_a_conversion_of_a_stand_in_network_s_output_is_not_confirmed_on_that_assumption(sound_verified):
    # `model(images).cpu().numpy()` with `model` an argument nothing in sight builds: the stand-in network
    # has trainable parameters by construction, so the error it raises shows the claim's condition, not
    # the code's (fresh50: every caller passed a feature extractor that runs under no_grad).
    verdict = _verdict(sound_verified, "numpy_assumed.py", "return model(images).cpu().numpy()", "TCL009")
    assert verdict.status == "unverified", verdict
    assert "assumed: `model` was a stand-in network" in verdict.evidence, verdict


@needs_torch
def test_an_object_the_script_builds_is_built_with_what_its_top_level_call_passes(sound_verified):
    # `Anchor(model=model, loaders=[None], device=device)`: the script's own network, and a list whose
    # first item says there is no data yet; no stand-in could say what `loaders` is.
    source = sound_verified["sources"][str(sound_verified["directory"] / "regularizers.py")]
    call = line_of(source, "anchor = Anchor(")
    verdict = _verdict(sound_verified, "regularizers.py", "self.old[n] = p.clone().detach()", "TCL005")
    assert verdict.status == "confirmed", verdict
    assert f"with the arguments the top-level call at line {call} passes (`model`: the script's Net" in \
        verdict.evidence and "`loaders` = `[None]`" in verdict.evidence and "assumed" not in verdict.evidence, verdict
    # A later method of the same object: built the same way, and said.
    verdict = _verdict(sound_verified, "regularizers.py", "self.old[n] = p.clone().detach()", "TCL005", 2)
    assert verdict.status == "confirmed", verdict
    assert f"with the object built by the top-level call at line {call}" in verdict.evidence, verdict
    assert "assumed" not in verdict.evidence, verdict


@needs_torch
def test_an_object_the_script_builds_from_state_dict_tensors_refutes_the_conditional_clone(sound_verified):
    verdict = _verdict(sound_verified, "regularizers.py", "self.saved[n] = w.clone().detach()", "TCL005")
    assert verdict.status == "refuted", verdict
    assert "`w` does not require grad here" in verdict.evidence, verdict


@needs_torch
def test_clone_with_no_caller_in_sight_is_unverified_with_the_assumption_said(sound_verified):
    verdict = _verdict(sound_verified, "lonely.py", "return t.clone().detach()", "TCL005")
    assert verdict.status == "unverified", verdict
    assert "assumed: `t` requires grad here only through `t`, a stand-in made to require grad " \
           "(no caller in the file shows what `copy_of` is given)" in verdict.evidence, verdict


@needs_torch
@pytest.mark.parametrize("name", [
    # The slice of `final = to_picture(target)` runs `shown = to_picture(content)` first: that sighting,
    # of a tensor that does not require grad, refuted a right finding (fresh31's style transfer).
    "shown_twice.py",
    # Five calls, four tried: the one under `if step % 400 == 0:` in the loop is never reached in the
    # experiment's cut of the loop, and the plain `final = to_picture(target)` comes before it.
    "shown_in_loop.py",
])
def test_a_top_level_call_is_judged_on_what_it_passes_itself_plain_statements_first(sound_verified, name):
    verdict = _verdict(sound_verified, name, "return tensor.to(", "TCL005")
    source = sound_verified["sources"][str(sound_verified["directory"] / name)]
    assert verdict.status == "confirmed", verdict
    assert f"when called from the top-level call at line {line_of(source, 'final = to_picture')}" in verdict.evidence, \
        verdict


@needs_torch
def test_a_copy_whose_value_requires_grad_from_a_later_pass_of_its_loop_is_never_refuted_on_the_first(
        sound_verified):
    # The loop is in the function the top-level call runs: it runs the passes of a loop around the flagged
    # line (it was cut to one, as a training loop the slice kept, and the first pass refuted the claim).
    verdict = _verdict(sound_verified, "second_pass.py", "patch = patch.clone().detach()", "TCL005")
    assert verdict.status == "confirmed", verdict
    assert "when called from the top-level call at line 22" in verdict.evidence, verdict.evidence


@needs_torch
def test_a_checkpoint_the_run_saved_is_what_it_loads_back(sound_verified, tmp_path: Path):
    # Not the checkpoint stand-in of a file that is not there: the network the run saved, from memory.
    verdict = _verdict(sound_verified, "saved_and_reloaded.py", "total += loss", "TCL007")
    assert verdict.status == "confirmed", verdict
    assert "checkpoint_reloaded.pt, which the run saved to memory, was read back from there" in verdict.evidence
    assert not list(sound_verified["directory"].glob("checkpoint_reloaded.pt"))


def test_a_file_saved_by_an_earlier_run_is_not_there_for_the_next(tmp_path: Path):
    # The fixed run must not load what the run as written saved (a resumed network would differ).
    # In a process of its own: the sandbox replaces `open` for good.
    code = textwrap.dedent(f"""\
        from torchcopylint.verify import sandbox
        sandbox.install({str(tmp_path)!r}, {str(tmp_path / "train.py")!r})
        sandbox.begin()
        sandbox.keep_written({str(tmp_path / "net.pt")!r}, b"saved")
        print(sandbox.read_back({str(tmp_path / "net.pt")!r}))
        sandbox.new_run()
        print(sandbox.read_back({str(tmp_path / "net.pt")!r}))
        """)
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                               cwd=Path(__file__).parent.parent)
    assert completed.stdout.splitlines() == ["b'saved'", "None"], completed.stderr


def test_a_loop_around_a_watched_line_runs_the_passes_of_one_around_the_flagged_line():
    from torchcopylint.verify.batches import ENCLOSING_LIMIT, OTHER_LIMIT, DataPlan
    from torchcopylint.verify.datasites import Loop

    loops = [Loop(0, 10, 20, 0), Loop(1, 30, 40, 0)]
    plan = DataPlan([], loops=loops, flagged_line=50, watched=frozenset({12}))
    assert (plan._limit(0), plan._limit(1)) == (ENCLOSING_LIMIT, OTHER_LIMIT)
    assert list(plan.few(0, range(20))) == list(range(ENCLOSING_LIMIT))
    assert list(plan.few(1, range(5))) == list(range(OTHER_LIMIT))


def test_a_loop_whose_flagged_line_runs_every_kth_iteration_runs_k_plus_one_times_while_time_allows(monkeypatch):
    # A notebook that keeps every 200th loss (`if _ % 200 == 0: output_list.append(output)`) passes the
    # line twice in 201 iterations; the cap used to stop it at 101, and TCL007 saw one accumulation.
    from torchcopylint.verify import batches
    from torchcopylint.verify.datasites import limit_loops

    script = textwrap.dedent("""\
        for _ in range(100000):
            output = step()
            if _ % 200 == 0:
                output_list.append(output)
            output.backward()
        """)
    loops = limit_loops(script, flagged_line=4).loops
    assert [loop.sparse_iterations for loop in loops] == [201]
    plan = batches.DataPlan([], loops=loops, flagged_line=4)
    assert len(list(plan.few(0, range(100000)))) == 201 and "after 201 iterations" in plan.stopped[0]
    # A slow step: past the iterations any enclosing loop runs, the time bound stops it.
    monkeypatch.setattr(batches, "SPARSE_SECONDS", 0.0)
    plan = batches.DataPlan([], loops=loops, flagged_line=4)
    assert len(list(plan.few(0, range(100000)))) == batches.ENCLOSING_LIMIT
    tests = [plan.still(0, True) for _ in range(20)]  # the same loop as `while True:`
    assert tests.index(False) == batches.ENCLOSING_LIMIT, tests


def test_a_loop_that_only_gathers_data_runs_over_a_stand_in_loader_s_batches_and_a_training_loop_once():
    from torchcopylint.verify.batches import BATCHES, OTHER_LIMIT, DataPlan
    from torchcopylint.verify.datasites import limit_loops

    script = textwrap.dedent("""\
        for x, y in loader:
            inputs.append(x)
        for x, y in loader:
            loss = net(x).sum()
            loss.backward()
        print(loss)
        """)
    limited = limit_loops(script, flagged_line=6)
    assert [loop.gathers for loop in sorted(limited.loops, key=lambda loop: loop.line)] == [True, False]
    plan = DataPlan([], loops=limited.loops, flagged_line=6)
    gathering, training = (next(loop.index for loop in limited.loops if loop.line == line) for line in (1, 3))
    assert len(list(plan.few(gathering, range(10)))) == BATCHES
    assert len(list(plan.few(training, range(10)))) == OTHER_LIMIT


@needs_torch
def test_callers_in_the_file_that_could_not_be_run_leave_the_copy_unverified_never_assumed(sound_verified):
    # The file shows what the helper is given; those values decide, and they could not be had. Confirmed
    # on a made-up tensor before: four such confirmations in fresh22 and fresh26, all wrong.
    verdict = _verdict(sound_verified, "unrunnable_callers.py", "picture = img_tensor.clone().detach()", "TCL005")
    assert verdict.status == "unverified", verdict
    assert "the callers in the file, which show what it is given, could not be run (`save_samples()` at line" \
        in verdict.evidence, verdict


@needs_torch
def test_a_pruning_helper_s_copies_are_confirmed_on_a_stand_in_layer_with_the_assumption_said(sound_verified):
    # `layer.weight.index_select(dim, index)`: `index` holds positions along the layer's rows (made
    # in range of them, not as ten classes), and the layer's parameters require grad as a trained
    # layer's do; the evidence says the claim rests on that (fresh59: 18 such copies in three
    # copies of an old `modeling_utils.py`, all unverified on "index out of range").
    source = sound_verified["sources"][str(sound_verified["directory"] / "pruning.py")]
    caller = f"`prune()` at line {line_of(source, 'return prune_rows(layer')}"
    for text in ("kept = layer.weight.index_select", "bias = layer.bias[index]"):
        verdict = _verdict(sound_verified, "pruning.py", text, "TCL005")
        assert verdict.status == "confirmed", verdict
        assert f"when called from {caller}; assumed: `layer` (what {caller} was given) made up as a stand-in " \
               "layer whose parameters require grad, as a trained layer's do; the claim does not hold for a " \
               "frozen one" in verdict.evidence, verdict
    # `if dim == 1:` with `dim=0` by default: the other value the code compares it with is tried too.
    verdict = _verdict(sound_verified, "pruning.py", "bias = layer.bias.clone().detach()", "TCL005")
    assert verdict.status == "confirmed", verdict
    assert "with stand-ins, dim=1; assumed: `layer` made up as a stand-in layer" in verdict.evidence, verdict


@needs_torch
def test_a_copy_whose_function_another_file_of_the_tree_imports_is_not_confirmed_on_an_assumption(sound_verified):
    # No caller in the file; `attack_campaign.py` imports the class and passes it data. What it passes
    # decides, and it is not run: unverified, naming the file, never a bare or assumed confirmation.
    verdict = _verdict(sound_verified, "tracked_attack.py", "adversarial = input.clone().detach()", "TCL005")
    assert verdict.status == "unverified", verdict
    assert "attack_campaign.py imports `TrackedAttack`: what its calls pass decides" in verdict.evidence, verdict


@needs_torch
def test_a_copy_another_file_calls_with_what_it_makes_require_grad_is_confirmed_by_that_call(sound_verified):
    # `pgd_runner.py` calls `project(adversarial, images)` after `adversarial.requires_grad_()`: its call
    # says what the made-up input stands for, and the evidence names it.
    verdict = _verdict(sound_verified, "pgd_step.py", "previous = adversarial.clone().detach()", "TCL005")
    assert verdict.status == "confirmed", verdict
    assert "requires grad through what the calls in other files pass: pgd_runner.py, line 14 (`adversarial`, " \
           "made to require grad at line 10)" in verdict.evidence, verdict


@needs_torch
def test_a_leaf_write_every_caller_in_the_tree_runs_under_no_grad_is_not_confirmed(sound_verified):
    # The run (grad mode on) raises the leaf error, but the only calls, in another file, run under
    # `torch.no_grad()`, where the write is allowed: unverified, naming them.
    verdict = _verdict(sound_verified, "noise_attack.py", "delta.uniform_(-self.eps, self.eps)", "TCL004")
    assert verdict.status == "unverified", verdict
    assert "every call of `perturb` in the files that import `NoiseAttack` runs with grad mode off " \
           "(noise_evaluation.py, line 13)" in verdict.evidence, verdict


@needs_torch
def test_labels_made_up_to_require_grad_confirm_nothing(sound_verified):
    # `Relabel.forward(images, labels)` hands its labels on; made up as a float tensor (the code passes
    # them to a torch function), they require grad only because the stand-in does: class labels never do.
    verdict = _verdict(sound_verified, "lonely.py", "labels = labels.clone().detach()", "TCL005")
    assert verdict.status == "unverified", verdict
    assert "`labels` is named like class labels, which never require grad" in verdict.evidence, verdict


# A value the experiment made up (a tensor for an annotation, a part of a stand-in loader's batch) shows
# its kind only as far as the code's calls agree: where a call is in sight, what it passes decides (not
# run: unverified); where none is, the evidence states the assumption. (file, line, what the evidence
# says) for each side.
MADE_UP_VALUES = [
    # fresh29's GPT block: `idx: torch.Tensor`, and train.py passes `tokenizer.encode(...)`, a list. A
    # tensor made up from the annotation confirmed it; the importing file decides (its call is not run).
    pytest.param(("token_block.py", "idx = torch.tensor(idx)",
                  "token_sampler.py imports `generate`: what its calls pass decides"),
                 ("lonely_copy.py", "return torch.tensor(values)",
                  "assumed: `values` made up as a tensor (no call in the linted files shows what `as_tensor` "
                  "is given)"),
                 id="annotated-tensor"),
    # fresh79's VOC boxes: the dataset yields lists, and the stand-in loader's tensors confirmed the copy.
    pytest.param(("box_fields.py", "boxes = torch.tensor(",
                  "was a part of a made-up loader's batch, and the file calls `evaluate`"),
                 ("lonely_box_fields.py", "boxes = torch.tensor(",
                  "assumed: `data[\"gt_boxes\"]` a part of a made-up loader's batch (no call in the linted files"),
                 id="part-of-a-made-up-batch"),
]


@needs_torch
@pytest.mark.parametrize("called, lonely", MADE_UP_VALUES)
def test_a_made_up_value_is_decided_by_the_calls_in_sight_or_said_to_be_assumed(sound_verified, called, lonely):
    name, text, said = called
    verdict = _verdict(sound_verified, name, text, "TCL008")
    assert verdict.status == "unverified", verdict
    assert said in verdict.evidence, verdict
    name, text, said = lonely
    verdict = _verdict(sound_verified, name, text, "TCL008")
    assert verdict.status == "confirmed", verdict
    assert said in verdict.evidence, verdict


@needs_torch
def test_a_value_a_stood_in_package_made_refutes_nothing(sound_verified):
    # fresh29's style-transfer notebook: with torchvision missing, `target` is a no-op, not a tensor;
    # what the real transforms make decides the claim (it was refuted: "a NoOp at run time").
    if importlib.util.find_spec("torchvision") is not None:
        pytest.skip("torchvision is installed: its transforms run")
    verdict = _verdict(sound_verified, "noop_image.py", 'return tensor.to("cpu").clone().detach()', "TCL005")
    assert verdict.status == "unverified", verdict
    assert "came from a stood-in package at run time" in verdict.evidence, verdict


@needs_torch
def test_a_caller_that_takes_no_arguments_runs_only_what_the_argument_needs(sound_verified):
    verdict = _verdict(sound_verified, "program.py", "return t.clone().detach()", "TCL005")
    source = sound_verified["sources"][str(sound_verified["directory"] / "program.py")]
    assert verdict.status == "confirmed", verdict
    assert f"the call in `main()` at line {line_of(source, 'keep(weights)')} passes (`t` = `weights`: tensor(4,) " \
           f"(made by `weights = torch.randn(4, requires_grad=True)` (line {line_of(source, '    weights = torch')}), run once)" \
        in verdict.evidence, verdict
    assert "assumed" not in verdict.evidence, verdict
    assert not (sound_verified["directory"] / "trained.txt").exists()  # nothing else of main() ran


@needs_torch
def test_a_program_that_trains_to_make_the_argument_is_not_run_and_the_assumption_says_so(sound_verified):
    verdict = _verdict(sound_verified, "program_trains.py", "return t.clone().detach()", "TCL005")
    source = sound_verified["sources"][str(sound_verified["directory"] / "program_trains.py")]
    assert verdict.status == "unverified", verdict
    assert "assumed: `t` requires grad here only through `t`, a stand-in made to require grad" in verdict.evidence, \
        verdict
    assert f"`weights = fit(model)` (line {line_of(source, 'weights = fit')}) calls a function the experiment does " \
           "not run" in verdict.evidence, verdict


@needs_torch
def test_the_assumption_is_in_every_output_format(sound_verified):
    from torchcopylint.report import FORMATS, render
    from torchcopylint.rules import ALL_RULES

    lonely = [d for d in sound_verified["verified"] if Path(d.path).name == "lonely.py"]
    for format in FORMATS:
        stream = io.StringIO()
        render(format, lonely, stream=stream, rules=ALL_RULES, root=sound_verified["directory"], show_fixes=False,
               statistics=False, color=False, files_checked=1)
        assert "assumed: `t` requires grad here only through `t`, a stand-in" in stream.getvalue(), format


# --- kinds from use ----------------------------------------------------------------------------------


@needs_torch
def test_numbers_compared_and_a_device_read_through_type_are_made_as_such(sound_verified):
    verdict = _verdict(sound_verified, "attack.py", "delta.add_(", "TCL004")
    assert verdict.status == "confirmed", verdict
    assert "leaf Variable" in verdict.evidence, verdict
    assert "lo = 0.1, hi = 0.1" in verdict.evidence and "device = device(type='cpu')" in verdict.evidence, verdict


@needs_torch
def test_a_line_that_ran_without_writing_refutes_nothing_and_the_flag_that_writes_confirms(sound_verified):
    # Called as given (flag=False) the line runs but writes nothing: that run cannot refute. With
    # the boolean default flipped the write runs, on a leaf that requires grad.
    verdict = _verdict(sound_verified, "conditional_write.py", "w.mul_(2)", "TCL004")
    assert verdict.status == "confirmed", verdict
    assert "leaf Variable" in verdict.evidence and "with flag=True" in verdict.evidence, verdict


@needs_torch
def test_an_accumulation_that_held_no_tensor_refutes_nothing(sound_verified):
    # fresh61: a homework appends its parameter norms only for some questions; run with another, each
    # appended list was empty, and "0 -> 0 -> 0 nodes" refuted a right TCL007. With no tensor in the
    # accumulator the measurement could not have shown a graph: it decides nothing.
    verdict = _verdict(sound_verified, "conditional_accumulation.py", "history.append(norms)", "TCL007")
    assert verdict.status == "unverified", verdict
    assert "`history` held no tensor after 3 iterations" in verdict.evidence, verdict


@needs_torch
def test_a_finding_whose_cause_another_finding_s_fix_removes_is_decided_on_the_code_as_written(sound_verified):
    # fresh61: a WGAN-div critic step reports the interpolation of the undetached fake and the critic's call
    # on those interpolates. Isolated, the second ran with the first's fix (`fake.detach()` in the
    # interpolation), and no generator parameter was left in its graph: a refutation of a true finding.
    # The code as written shows the effect, and that confirmation counts.
    for text in ("mu * fake  # expect", "d_interpolated = D(x_interpolated)"):
        verdict = _verdict(sound_verified, "penalty_interpolates.py", text, "TCL003")
        assert verdict.status == "confirmed", verdict
        assert "reached 2 of 2 generator parameters" in verdict.evidence, verdict


# --- in process ------------------------------------------------------------------------------------


def test_a_line_that_raised_does_not_run_its_after_callbacks():
    from torchcopylint.verify.probe import LineProbe

    def step(fail: bool):
        total = 0
        try:
            total = 1 / 0 if fail else 1  # the watched line
        except ZeroDivisionError:
            total = -1
        return total

    watched = step.__code__.co_firstlineno + 3
    for fail, expected in ((False, [watched]), (True, [])):
        probe = LineProbe(__file__)
        finished = []
        probe.on_after(watched, lambda frame: finished.append(watched))
        probe.run(step, fail)
        assert finished == expected, fail
        assert probe.executed[watched] == 1


def test_a_line_that_raised_out_of_its_frame_does_not_run_its_after_callbacks():
    from torchcopylint.verify.probe import LineProbe

    def backward_that_fails():
        raise RuntimeError("modified by an inplace operation")

    def step():
        backward_that_fails()  # the watched line

    watched = step.__code__.co_firstlineno + 1
    probe = LineProbe(__file__)
    finished = []
    probe.on_after(watched, lambda frame: finished.append(watched))
    with pytest.raises(RuntimeError):
        probe.run(step)
    assert finished == [] and any(line == watched for line, _ in probe.raised)


def test_an_import_that_fails_binds_a_stand_in_naming_it():
    from torchcopylint.verify.absent import AbsentPackageUsed, stand_in_failed_imports

    source = ("import os\n"
              "from project_models_not_on_path import (Generator,\n"
              "                                        Discriminator)\n"
              "from os.path import join, not_a_function_of_os_path\n"
              "def build():\n"
              "    return Generator()\n")
    text, failed = stand_in_failed_imports(source)
    assert len(text.splitlines()) == len(source.splitlines())  # line numbers kept
    assert set(failed) == {"Generator", "Discriminator", "not_a_function_of_os_path"}
    namespace: dict = {}
    exec(compile(text, "m.py", "exec"), namespace)
    assert namespace["join"] is __import__("os").path.join
    with pytest.raises(AbsentPackageUsed, match=r"needs `Generator`, and `from project_models_not_on_path import "
                                                r"Generator, Discriminator` failed"):
        namespace["build"]()


def test_a_package_missing_for_a_sibling_module_is_named_with_the_sibling(tmp_path: Path):
    from torchcopylint.verify.importing import describe_failure

    (tmp_path / "imaging_helpers_for_test.py").write_text("import image_library_not_installed_for_test\n",
                                                          encoding="utf-8")
    script = tmp_path / "train.py"
    script.write_text("import imaging_helpers_for_test\n", encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(ImportError) as raised:
            exec(compile(script.read_text(encoding="utf-8"), str(script), "exec"), {})
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("imaging_helpers_for_test", None)
    assert describe_failure(raised.value, str(script)) == (
        "needs `image_library_not_installed_for_test` (imported by imaging_helpers_for_test.py), which is not installed")


def test_a_package_the_flagged_file_imports_itself_is_named_alone(tmp_path: Path):
    from torchcopylint.verify.importing import describe_failure

    script = tmp_path / "train.py"
    script.write_text("import image_library_not_installed_for_test\n", encoding="utf-8")
    with pytest.raises(ImportError) as raised:
        exec(compile(script.read_text(encoding="utf-8"), str(script), "exec"), {})
    assert describe_failure(raised.value, str(script)) == \
        "needs `image_library_not_installed_for_test`, which is not installed"



def test_the_code_as_written_decides_only_by_confirming_what_the_isolated_code_could_not():
    from torchcopylint.verify.child import decided_as_written
    from torchcopylint.verify.inputs import CannotRun
    from torchcopylint.verify.reach import Outcome

    def experiment_of(verdicts: dict):
        def experiment(job):
            verdict = verdicts[job]
            if verdict is None:
                raise CannotRun(f"{job} could not run")
            return Outcome(verdict, job)
        return experiment

    as_written = {"source": "written", "fixed_source": None}

    def job_of(source, fixed):
        return source

    def decided(isolated, written, given=as_written):
        experiment = experiment_of({"isolated": isolated, "written": written})
        try:
            return decided_as_written(experiment, "isolated", given, job_of, CannotRun, contextlib.nullcontext).status
        except CannotRun as reason:
            return f"raised: {reason}"

    # The isolated code decides when it can, but for a refutation another finding's fix may have caused
    # (it removed this one's cause): the program as written showing the effect counts.
    assert decided("refuted", "refuted") == "refuted"
    assert decided("refuted", "unverified") == "refuted"
    assert decided("refuted", "confirmed") == "confirmed"
    assert decided("confirmed", "refuted") == "confirmed"
    assert decided("unverified", "confirmed") == "confirmed"  # the program itself shows the effect
    assert decided(None, "confirmed") == "confirmed"
    # Another finding's bug may mask this one in the code as written: no refutation, no `not reached`.
    assert decided("unverified", "refuted") == "unverified"
    assert decided("unverified", "not reached") == "unverified"
    assert decided(None, "refuted") == "raised: isolated could not run"
    assert decided(None, None) == "raised: isolated could not run"
    assert decided(None, "confirmed", given=None) == "raised: isolated could not run"  # nothing was isolated

    # The code as written running out of time (or failing otherwise) leaves the isolated code's reason.
    class OutOfTime(BaseException):
        pass

    def slow(job):
        if job == "written":
            raise OutOfTime()
        return Outcome("unverified", "the isolated reason")

    outcome = decided_as_written(slow, "isolated", as_written, job_of, CannotRun, contextlib.nullcontext)
    assert (outcome.status, outcome.evidence) == ("unverified", "the isolated reason")


def test_one_caller_s_values_refute_nothing_another_caller_s_confirm():
    from torchcopylint.verify.child import MOST_CALL_SITES, decided_over_call_sites
    from torchcopylint.verify.inputs import CannotRun
    from torchcopylint.verify.reach import Outcome

    class OutOfTime(BaseException):
        pass

    def decided(*verdicts):
        tried = []

        def decide(choice):
            tried.append(choice)
            if verdicts[choice] is None:
                raise CannotRun(f"call {choice} could not run")
            if verdicts[choice] == "crash":
                raise ValueError("the arguments did not fit")
            if verdicts[choice] == "out of time":
                raise OutOfTime()
            return Outcome(verdicts[choice], f"call {choice}")
        try:
            outcome = decided_over_call_sites(decide, len(verdicts), CannotRun)
            return outcome.status, outcome.evidence, tried
        except CannotRun as reason:
            return "raised", str(reason), tried

    # The first call decides, unless a later one confirms (a helper each script calls with its own loss).
    assert decided("refuted", "confirmed") == ("confirmed", "call 1", [0, 1])
    assert decided("refuted", "refuted") == ("refuted", "call 0", [0, 1])
    assert decided("not reached", "crash", "confirmed") == ("confirmed", "call 2", [0, 1, 2])
    assert decided(None, "refuted") == ("raised", "call 0 could not run", [0, 1])
    assert decided(None, "confirmed") == ("confirmed", "call 1", [0, 1])
    assert decided("confirmed", "refuted") == ("confirmed", "call 0", [0])  # a confirmation needs no more
    assert decided("refuted") == ("refuted", "call 0", [0])
    # A later call that runs out of time (or uses a missing package) leaves the first call's verdict.
    assert decided("refuted", "out of time") == ("refuted", "call 0", [0, 1])
    # A bounded number of calls: each try has its own time limit.
    many = ("refuted",) * (MOST_CALL_SITES + 2)
    assert decided(*many)[2] == list(range(MOST_CALL_SITES))


@needs_torch
def test_an_element_a_comprehension_s_filter_drops_refutes_nothing(sound_verified):
    # The line starts for `torch.zeros(3)` too, before the filter drops it: that sighting is not a copy.
    verdict = _verdict(sound_verified, "filtered.py", "return [t.clone().detach() for t in tensors", "TCL005")
    assert verdict.status == "confirmed", verdict
    assert "when called from `shadow()`" in verdict.evidence, verdict


@needs_torch
def test_an_iterable_whose_elements_requires_grad_is_read_of_is_parameters_not_data(sound_verified):
    # `for p in parameters if p.requires_grad`: what `model.parameters()` gives, not batches of data
    # (which never require grad, and refuted this before); made up, so the assumption is said.
    verdict = _verdict(sound_verified, "filtered.py", "return [p.clone().detach() for p in parameters", "TCL005")
    assert verdict.status == "unverified", verdict
    assert "assumed: `p` requires grad here only through `parameters[0]`, a stand-in parameter" in verdict.evidence


def test_an_absent_package_s_exception_class_is_a_class_and_its_use_is_still_reported():
    from torchcopylint.verify.absent import AbsentName, AbsentPackageUsed

    pkg_resources = AbsentName("pkg_resources")
    assert issubclass(pkg_resources.DistributionNotFound, Exception)
    with pytest.raises(AbsentPackageUsed, match="pkg_resources"):
        try:
            pkg_resources.require("distiller")
        except pkg_resources.DistributionNotFound:  # evaluated as the use passes: a class, not a TypeError
            pass


@needs_torch
def test_a_module_method_of_no_argument_is_called_as_it_is(sound_verified):
    verdict = _verdict(sound_verified, "module_state.py", "self.gate.weight.clone().detach()", "TCL005")
    assert verdict.status == "confirmed", verdict
    assert "with GatedCell()" in verdict.evidence and "assumed" not in verdict.evidence, verdict
    # A static method's first parameter is an argument, not `self`: it needs one (a layer), and none fits.
    verdict = _verdict(sound_verified, "module_state.py", "cell.weight.clone().detach()", "TCL005")
    assert verdict.status == "unverified", verdict


@needs_torch
def test_a_value_the_verifier_stood_in_never_refutes_a_claim_that_needs_a_tensor():
    # A `self.` chain only a do-nothing stand-in explained reached the line (fresh31: a diffusion
    # notebook's Parameter copy was refuted on "a DoNothing at run time, not a tensor").
    from torchcopylint.verify.experiments import CannotRun, Sighting, _not_a_tensor
    from torchcopylint.verify.snippet import Caller
    from torchcopylint.verify.standins import DoNothing

    caller = Caller(35, "SamplingWeights.result_convert")
    with pytest.raises(CannotRun, match=r"is a stand-in \(DoNothing\) at run time"):
        _not_a_tensor("self.weights.linear.weight", Sighting(DoNothing(), True, None, caller))
    # The code's own value that is not a tensor still refutes.
    assert _not_a_tensor("self.steps", Sighting(4, True, None, caller)).status == "refuted"


@needs_torch
def test_a_module_fed_by_the_layers_of_the_network_it_is_part_of_is_confirmed_by_that_call(sound_verified):
    # fresh31 and fresh32's contrastive memory: `self.params[0]` requires grad through `v`, and the loss
    # that owns the memory feeds it its own embedding layer's output. That call decides, and says so.
    verdict = _verdict(sound_verified, "contrast_memory.py", "scale = self.params[0].clone().detach()", "TCL005")
    source = sound_verified["sources"][str(sound_verified["directory"] / "contrast_memory.py")]
    assert verdict.status == "confirmed", verdict
    assert (f"requires grad through what the network it is a part of passes it: line "
            f"{line_of(source, 'return self.memory(embedded, idx)')} (`embedded`, the output of `self.embed`, an "
            f"`Embed`, line {line_of(source, 'embedded = self.embed(features)')})") in verdict.evidence, verdict


@needs_torch
def test_a_module_its_parents_feed_raw_inputs_or_feed_under_no_grad_stays_an_assumption(sound_verified):
    verdict = _verdict(sound_verified, "raw_memory.py", "scale = self.params[0].clone().detach()", "TCL005")
    assert verdict.status == "unverified", verdict
    assert "assumed: `self.params[0]` requires grad here only through `v`" in verdict.evidence, verdict


@needs_torch
def test_a_tensor_made_up_from_an_annotation_the_file_s_constructor_call_contradicts_confirms_nothing(sound_verified):
    # fresh34's notebook Dataset: `X: torch.Tensor`, built from NumPy arrays of a CSV. The call could not
    # be made (the data is never read), and a tensor made up from the annotation confirmed the warning.
    verdict = _verdict(sound_verified, "annotated_rows.py", "self.X = torch.tensor(X", "TCL008")
    assert verdict.status == "unverified", verdict
    assert "`X` was made up as a tensor, and the top-level call at line" in verdict.evidence, verdict


@needs_torch
@pytest.mark.parametrize("output_difference, gradient_difference, decides", [
    (1.19e-07, 0.0, False),   # fresh45's CapsNet: a sum added in another order, not a need for the copy
    (1.19e-07, 3e-07, False),
    (0.5, 0.0, True),         # a write the copy kept out: values differ
    (0.0, 0.2, True),
])
def test_outputs_equal_to_float_rounding_never_refute_a_redundant_clone(output_difference, gradient_difference,
                                                                         decides):
    from torchcopylint.verify.experiments import Versions

    versions = Versions(equal_outputs=False, equal_gradients=gradient_difference == 0.0,
                        output_difference=output_difference, gradient_difference=gradient_difference,
                        gradients=2, cloned=[], shape=None, executed=set(), made_text="",
                        gradient_scale=1.0, output_scale=2.0)
    assert versions.differ_only_by_rounding is not decides
    lopsided = Versions(equal_outputs=False, equal_gradients=False, output_difference=0.0,
                        gradient_difference=0.0, gradients=2, cloned=[], shape=None, executed=set(),
                        made_text="", gradient_scale=1.0, output_scale=2.0, alike=False)
    assert not lopsided.differ_only_by_rounding  # an output one version lacks is no rounding
    # Nor a measurement: fresh95's hyper-LSTM was refuted with "largest output difference 0, gradient
    # difference 0" (gradients of other tensors in one run). A refutation needs a value that differs.
    assert lopsided.differ_in_kind_only and not versions.differ_in_kind_only


@pytest.mark.parametrize("trained, switched_off, why", [
    ("G", False, "`opt_d`, which the step after this backward runs, holds the generator's parameters"),
    ("D", True, "`D`'s parameters do not require grad at this backward (switched off)"),
    ("D", False, None),
])
def test_a_backward_whose_step_is_the_generator_s_own_is_not_confirmed_as_the_discriminator_s(
        trained, switched_off, why):
    # fresh74's TimeGAN builds `d_optimizer` over the generator and `g_optimizer` over the discriminator, and
    # its generator step switches the discriminator off: the backward's gradient into the generator is
    # that step's purpose, whatever the optimizer's name says (a confirmation of a wrong finding, at 8af46b9).
    import torch
    from torch import nn

    from torchcopylint.verify.experiments import GeneratorWatch

    torch.manual_seed(0)
    G, D = nn.Linear(4, 4), nn.Linear(4, 1)
    opt_d = torch.optim.SGD((G if trained == "G" else D).parameters(), lr=0.1)
    D.requires_grad_(not switched_off)

    def step() -> GeneratorWatch:
        watch = GeneratorWatch("G", stepper="opt_d", discriminator_key="D")
        loss = D(G(torch.randn(2, 4))).mean()
        handles = watch.before(sys._getframe(), [loss])
        loss.backward()
        for handle in handles:
            handle.remove()
        watch.after()
        assert opt_d is not None  # read in the frame the watch evaluates it in
        return watch

    watch = step()
    outcome = watch.outcome(12, "")
    if why is None:
        assert outcome.status == "confirmed", outcome
    else:
        assert outcome is None and why in watch.failure, watch.failure


def test_a_universal_claim_needs_every_statement_that_could_write_the_copy_to_run_but_not_a_break_or_raise():
    # An ADMM solver's convergence `break` between the copy and its read never runs on stand-in values
    # (fresh76): it writes nothing, so the claim does not wait for it; the updates around it do count.
    from torchcopylint.verify.reach import statement_lines_between

    source = textwrap.dedent("""\
        def solve(x, steps, threshold):
            y = x.clone()
            for step in range(steps):
                x = x * 0.5
                if x.norm() < threshold:
                    break
                elif step < 0:
                    continue
                elif step > steps:
                    raise ValueError("not a step")
                y.add_(1)
            if threshold < 0:
                raise ValueError(f"threshold {threshold}")
            return y
    """)
    # An error made of constants ends the path and computes nothing; one that computes is a statement too.
    assert statement_lines_between(source, 2, 14) == {4: "a statement between the copy and its read",
                                                      11: "a statement between the copy and its read",
                                                      13: "a statement between the copy and its read"}


@needs_torch
def test_a_caller_s_loop_that_stops_after_one_step_refutes_nothing_of_the_steps_it_hands_back(sound_verified):
    # PGD's loop passes FGSM what its last step returned; with made-up labels it stopped after one step,
    # whose `x` (a random start) needs no grad, and the clone was refuted (fresh90, two right findings).
    # A later pass is looked for: labels the network predicts keep the loop going, and it records a node.
    verdict = _verdict(sound_verified, "pgd_early_stop.py", "start = x.clone().detach_()", "TCL005")
    assert verdict.status == "confirmed", verdict
    assert "records CloneBackward0" in verdict.evidence and "when called from `pgd()`" in verdict.evidence, \
        verdict.evidence


@needs_torch
def test_a_write_through_a_row_is_confirmed_only_where_the_read_the_claim_names_takes_changed_values(sound_verified):
    # fresh90: two such findings were confirmed because the source's values changed, though the read they
    # named (the next pass's row) took none of the changed ones. The read's elements are compared now.
    seen = _verdict(sound_verified, "rows_read.py", "sample = imgs[0].numpy()", "TCL006")
    assert seen.status == "confirmed", seen
    assert "the read at line 10 (`imgs[0]`) took changed ones" in seen.evidence, seen.evidence
    unseen = _verdict(sound_verified, "rows_read.py", "sample = imgs[0].numpy()", "TCL006", occurrence=2)
    assert unseen.status == "unverified", unseen
    assert "but the read at line 16 (`imgs[k]`) took none of them" in unseen.evidence, unseen.evidence


@needs_torch
def test_a_buffer_that_grows_between_backwards_and_is_drained_by_them_is_never_confirmed(sound_verified):
    # Growth over the steps before the first backward says nothing of what the backward leaves: the
    # experiment watches accumulations across a backward, and here the loss empties the buffer.
    verdict = _verdict(sound_verified, "rollout_buffer.py", "values.append(value)", "TCL007")
    assert verdict.status != "confirmed", verdict


@needs_torch
def test_an_accumulated_graph_backpropagated_again_fails_as_the_claim_says(sound_verified):
    # The running loss enters the next batch's loss after the backward freed its graph: the second backward
    # fails with the error TCL007's message names. The run's own error confirms the claim (before: one
    # accumulation was measured before the failure, "nothing decided", unverified; fresh110's lab notebook).
    verdict = _verdict(sound_verified, "penalised_running_loss.py", "running += loss", "TCL007")
    assert verdict.status == "confirmed", verdict.evidence
    assert "Trying to backward through the graph a second time" in verdict.evidence


@needs_torch
def test_what_the_code_hands_an_optimizer_to_train_requires_grad_as_a_network_s_parameters(sound_verified):
    # fresh116: two hand-written Rangers' slow weights, left unverified on "assumed" although
    # torch.optim's Optimizer is given what a network trains; the evidence says what stood in.
    verdict = _verdict(sound_verified, "slow_weights.py", "[[p.clone().detach() for p in group", "TCL005")
    assert verdict.status == "confirmed", verdict
    assert "as a parameter an optimizer trains does: `params[0]`, a stand-in parameter, which the code hands " \
           "an optimizer to train" in verdict.evidence, verdict


@needs_torch
def test_a_later_backward_that_needs_the_graph_only_through_made_up_inputs_refutes_nothing(sound_verified):
    # fresh118: three attacks through a purifier, refuted ("a later backward needed the graph") because a
    # stand-in input that requires grad tied each step's projection onto the ball around it to the next.
    verdict = _verdict(sound_verified, "purified_attack.py", "loss.backward(retain_graph=True)", "TCL011")
    assert verdict.status == "confirmed", verdict
    assert "the made-up tensors were data, requiring no grad" in verdict.evidence, verdict
    assert "to the return of `generate` with no second-backward error" in verdict.evidence, verdict


@needs_torch
def test_an_attribute_only_the_constructor_sets_is_read_off_the_object_it_built(sound_verified):
    # fresh118's SAC agent: `self.log_alpha.clone().detach()` after a critic update that no made-up replay
    # batch fits; the temperature is set only in `__init__`, so what the line reads is what it made.
    verdict = _verdict(sound_verified, "agent_temperature.py", "before = self.log_alpha.clone().detach()", "TCL005")
    assert verdict.status == "confirmed", verdict
    assert "`self.log_alpha` was read off the object its own constructor built" in verdict.evidence, verdict
    assert "on () float32" in verdict.evidence, verdict  # the agent's own 0-dim temperature, no stand-in


def test_an_attribute_set_outside_the_constructor_is_not_read_off_it():
    import ast

    from torchcopylint.verify.experiments import _set_only_in_init

    tree = ast.parse(textwrap.dedent("""
        class Agent:
            def __init__(self):
                self.log_alpha = torch.zeros(1, requires_grad=True)
                self.log_alpha.requires_grad_()

            def load(self, path):
                self.log_alpha = torch.load(path)
        """))
    assert not _set_only_in_init(tree, "log_alpha")
    del tree.body[0].body[1]
    assert _set_only_in_init(tree, "log_alpha") and not _set_only_in_init(tree, "alpha")
