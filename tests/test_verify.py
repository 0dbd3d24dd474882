"""`--verify`: the flagged code is run, and each diagnosis gets a verdict that can be checked.

Runs child processes that import torch, so it is the slow part of the suite; to keep it
short, each kind of run happens once per module and the tests read its results:

- `examples_verified`: the command line with `--verify --output-format json` on a copy
  of examples/. It is started in the background as soon as this module's tests begin
  (if any selected test needs it), so it overlaps the runs below.
- `fixtures_verified`: one `verify()` call over the small modules in tests/data/verify,
  with the linter's own diagnostics plus false diagnoses made by hand.
- the infinite loop: the command line with `--verify-timeout 2` on one fixture.

Skipped where torch is not installed (the `verify` extra).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import io
import json
import math
import re
import shutil
import subprocess
import sys
import time
import tokenize
from pathlib import Path
from typing import Optional

import pytest

from conftest import EXAMPLES, TESTS_DATA, judging_arguments_out_of_sight, run_torchcopylint, snapshot, subprocess_env

from torchcopylint.diagnostic import Diagnostic, Edit, Fix, Location, Severity, Verdict
from torchcopylint.engine import lint_source

pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                                reason="--verify needs torch (pip install torchcopylint[verify])")

FIXTURES = TESTS_DATA / "verify"
STATUSES = {"confirmed", "refuted", "unverified", "not reached"}
MARKER = re.compile(r"#\s*expect:\s*(TCL\d{3}(?:\s*,\s*TCL\d{3})*)\s*$")
# What the whole examples/ run may take: one child per file, each importing torch.
EXAMPLES_TIMEOUT = 900
# Per-diagnosis limit for the runs whose verdicts are checked (--verify-timeout): generous, so
# that a loaded machine cannot turn a confirmed diagnosis into "timed out". The first
# `torch.optim` optimizer a child builds imports torch._dynamo (10 s on a slow machine),
# charged to whichever experiment builds it first.
PATIENT_TIMEOUT = 120


def line_of(source: str, text: str, occurrence: int = 1) -> int:
    """The 1-based number of the line holding `text` (its `occurrence`-th appearance)."""
    found = [number for number, line in enumerate(source.splitlines(), 1) if text in line]
    assert len(found) >= occurrence, f"{text!r} occurs {len(found)} times"
    return found[occurrence - 1]


def user_files(directory: Path) -> dict[str, bytes]:
    """Every file's bytes under `directory`, but the linter's own cache (`.torchcopylint_cache/`)."""
    return {name: data for name, data in snapshot(directory).items() if not name.startswith(".torchcopylint_cache/")}


def markers(source: str) -> set[tuple[int, str]]:
    """(line, code) for every `# expect: CODE` comment (comments only, as tests/test_examples.py reads them)."""
    found = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            match = MARKER.search(token.string)
            if match:
                found.update((token.start[0], code) for code in re.split(r"\s*,\s*", match.group(1)))
    return found


# --- the examples, through the command line ---------------------------------------------


class BackgroundRun:
    """`python -m torchcopylint ARGS` started now, its result collected later."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        self.cwd = cwd
        self.started = time.monotonic()
        environment = subprocess_env()
        # As on a user's machine, where Python writes bytecode beside what it imports.
        environment.pop("PYTHONDONTWRITEBYTECODE", None)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "torchcopylint", *args], cwd=str(cwd), env=environment,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8",
        )
        self._result: Optional[tuple[int, str, str]] = None

    def result(self) -> tuple[int, str, str]:
        if self._result is None:
            try:
                stdout, stderr = self.process.communicate(timeout=max(1.0, EXAMPLES_TIMEOUT - self.elapsed()))
            except subprocess.TimeoutExpired:
                self.stop()
                pytest.fail(f"--verify on examples/ took over {EXAMPLES_TIMEOUT} s")
            self._result = (self.process.returncode, stdout, stderr)
        return self._result

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


@pytest.fixture(scope="module")
def _examples_run(tmp_path_factory):
    """A copy of examples/ (no configuration above it), its bytes, and the run on it (started)."""
    copy = tmp_path_factory.mktemp("verify-examples") / "examples"
    shutil.copytree(EXAMPLES, copy)
    before = user_files(copy)
    run = BackgroundRun(["--verify", "--verify-timeout", str(PATIENT_TIMEOUT), "--output-format", "json", "."], copy)
    yield copy, before, run
    run.stop()


@pytest.fixture(scope="module", autouse=True)
def _start_examples_early(request):
    """Start the long examples/ run before the other tests of this module, where one will need it."""
    selected = getattr(request.session, "items", [])
    if any(item.module is request.module and "examples_verified" in item.fixturenames for item in selected):
        request.getfixturevalue("_examples_run")


@pytest.fixture(scope="module")
def examples_verified(_examples_run):
    copy, before, run = _examples_run
    returncode, stdout, stderr = run.result()
    assert stdout.strip(), f"no output (exit {returncode}): {stderr[-2000:]}"
    records = json.loads(stdout)
    return {"copy": copy, "before": before, "returncode": returncode, "stderr": stderr, "records": records}


# --- small fixtures, through verify() -----------------------------------------------------


def _clone_removed(path: str, source: str, line: int) -> Diagnostic:
    """A TCL001 as the rule would write it: at `x.clone()` on `line`, fixed by writing `x`."""
    text = source.splitlines()[line - 1]
    start = text.index("x.clone()") + 1
    end = start + len("x.clone()")
    return Diagnostic(
        "TCL001", "redundant-clone", "`x.clone()` is never written to: the copy is redundant",
        Location(path, line, start, line, end), Severity.ERROR,
        fix=Fix.unsafe("Remove `.clone()`", Edit(line, start, line, end, "x")),
        context={"source": "x", "copy": "identity"},
    )


def _inplace_on_leaf(path: str, source: str, line: int) -> Diagnostic:
    text = source.splitlines()[line - 1]
    start = len(text) - len(text.lstrip()) + 1
    return Diagnostic(
        "TCL004", "inplace-on-leaf", "In-place operation on a leaf tensor that requires grad",
        Location(path, line, start, line, len(text) + 1), Severity.ERROR,
    )


@pytest.fixture(scope="module")
def fixtures_verified(tmp_path_factory):
    """Every fixture but the infinite loop, in a private directory, verified in one call.

    Returns the verified diagnostics by (file name, line, code), the directory, and its
    bytes before the run.
    """
    from torchcopylint.verify.runner import VerifyOptions, verify

    directory = tmp_path_factory.mktemp("verify-fixtures")
    for name in ("residual.py", "no_grad.py", "missing_import.py", "training_script.py", "uses_sibling.py",
                 "sibling_layers.py", "exits.py"):
        shutil.copy(FIXTURES / name, directory / name)
    before = user_files(directory)
    sources = {str(path): path.read_text(encoding="utf-8") for path in sorted(directory.glob("*.py"))}
    diagnostics = [d for path, source in sources.items() for d in lint_source(source, path)]

    residual = str(directory / "residual.py")
    needed_clone_line = line_of(sources[residual], "identity = x.clone()", occurrence=2)
    assert not any(d.location.line == needed_clone_line for d in diagnostics), \
        "the linter itself flags NeededCloneBlock's clone: the hand-made false diagnosis is no longer false-by-hand"
    diagnostics.append(_clone_removed(residual, sources[residual], needed_clone_line))
    no_grad = str(directory / "no_grad.py")
    diagnostics.append(_inplace_on_leaf(no_grad, sources[no_grad], line_of(sources[no_grad], "clamp_(")))

    options = VerifyOptions(device="cpu", timeout=PATIENT_TIMEOUT, jobs=len(sources))
    with pytest.MonkeyPatch.context() as patch:
        # As on a user's machine, where Python writes bytecode beside what it imports.
        patch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
        verified = verify(diagnostics, sources, options)
    by_key = {(Path(d.path).name, d.location.line, d.code): d for d in verified}
    assert len(by_key) == len(verified)
    return {"by_key": by_key, "directory": directory, "sources": sources, "before": before,
            "timings": options.timings}


def _verdict(fixtures_verified, name: str, text: str, code: str, occurrence: int = 1) -> Verdict:
    source = fixtures_verified["sources"][str(fixtures_verified["directory"] / name)]
    key = (name, line_of(source, text, occurrence), code)
    diagnostic = fixtures_verified["by_key"].get(key)
    assert diagnostic is not None, f"no {code} at {key}; diagnostics: {sorted(fixtures_verified['by_key'])}"
    assert diagnostic.verdict is not None, f"{key} has no verdict"
    return diagnostic.verdict


# --- code that was not written for the tool: stand-ins, configurations, reached or not ----------

STANDIN_FIXTURES = ("train_epoch.py", "gan_trainer.py", "flag_blocks.py", "gated_clone.py", "bottleneck.py",
                    "flag_arguments.py", "generator_function.py", "several_inputs.py", "energy_model.py",
                    "dict_batches.py", "gan_flat_scores.py", "keep_best.py", "plain_class.py",
                    "loop_passes.py", "stand_in_writer.py", "one_image_attack.py", "unet_skips.py", "zoo_resnet.py",
                    "iterated_scores.py", "scalar_label_attack.py", "options_step.py", "masked_block.py",
                    "abstract_trainer.py", "folder_prefix.py", "restart_best.py", "task_loaders.py",
                    "callable_trainer.py", "frozen_vector.py", "elbo_epoch.py", "array_dataset.py",
                    "inherited_loss_attack.py", "keyword_inputs.py", "rand_start_attack.py", "stepped_fraction.py",
                    "noise_schedule.py", "pinn_globals.py", "kwargs_trainer.py", "flat_inputs.py",
                    "pruned_copy.py", "one_hot_flag.py")


@pytest.fixture(scope="module")
def standins_verified(tmp_path_factory):
    """The linter's diagnostics on the fixtures whose code needs stand-ins or a configuration, verified in one call."""
    from torchcopylint.verify.runner import VerifyOptions, verify

    directory = tmp_path_factory.mktemp("verify-standins")
    for name in STANDIN_FIXTURES:
        shutil.copy(FIXTURES / name, directory / name)
    sources = {str(path): path.read_text(encoding="utf-8") for path in sorted(directory.glob("*.py"))}
    with judging_arguments_out_of_sight():  # some fixtures are helpers whose callers are out of sight
        diagnostics = [d for path, source in sources.items() for d in lint_source(source, path)]
    restarts = str(directory / "restart_best.py")
    assert not any(d.path == restarts for d in diagnostics), "the linter flags restart_best.py again"
    diagnostics.append(_restart_alias(restarts, sources[restarts]))  # as the linter before c938a34 had it
    verified = verify(diagnostics, sources, VerifyOptions(device="cpu", timeout=PATIENT_TIMEOUT, jobs=2))
    by_key = {(Path(d.path).name, d.location.line, d.code): d for d in verified}
    return {"by_key": by_key, "directory": directory, "sources": sources}


def _restart_alias(path: str, source: str) -> Diagnostic:
    """The false TCL006 of restart_best.py, as a linter that let the step loop run zero times wrote it."""
    line = line_of(source, "best = lolip.detach()")
    start = source.splitlines()[line - 1].index("lolip.detach()") + 1
    return Diagnostic("TCL006", "detached-alias-mutated", "hand-made",
                      Location(path, line, start, line, start + len("lolip.detach()")), Severity.ERROR,
                      context={"source": "lolip", "write_line": line_of(source, "best[better] = ")})


def _standin_verdict(verified, name: str, text: str, code: str, occurrence: int = 1) -> Verdict:
    return _verdict(verified, name, text, code, occurrence)


# Code that needs stand-ins of a particular kind to run: confirmed, and the evidence names what stood in.
CONFIRMED_ON_STAND_INS = [
    # `elbo = model(batch.view(-1, 28 * 28))`, then `elbo.backward()`: the stand-in network returns one
    # value, a loss, and the batches hold samples of the 784 values the view reads (fresh59's VAE homework).
    pytest.param("elbo_epoch.py", "elbos.append(elbo)", "TCL007",
                 ["every iteration's graph stays alive", "model = StandInNet(any -> 8 -> Linear -> sigmoid -> "
                  "mean, a loss)", "data = 4 batches of (4, 784) float32",
                  "with stand-ins (samples of shape (784,), as the code reshapes a batch to (-1, 28 * 28))"],
                 id="a-network-returning-its-loss-fed-samples-shaped-as-read"),
    # `faces = np.load("faces.npy")` wrapped in the script's own Dataset class: the loader over it serves
    # stand-in batches, shaped as the class's `__getitem__` returns a sample (fresh59's anime-face DCGAN).
    pytest.param("array_dataset.py", "d_losses.append(d_loss)", "TCL007",
                 ["every iteration's graph stays alive", "`loader = DataLoader(...)` over `FaceArray(...)` "
                  "(line 26): 4 batches of 4", "without labels"],
                 id="a-dataset-class-over-an-array-not-read"),
    # `if i >= len(loader) // 5: break` left the loop after one pass over four stand-in batches: the next
    # try's loader reports a real length.
    pytest.param("stepped_fraction.py", "epoch_loss += loss / len(train_loader)", "TCL007",
                 ["every iteration's graph stays alive", "`len()` of a stand-in loader gave 100"],
                 id="a-loop-left-at-a-fraction-of-the-loader"),
    # `assert image.size(0) == 1`: the stand-in batch holds one image (with four, the assertion stopped it).
    pytest.param("one_image_attack.py", "saliency = adversarial.clone().detach()", "TCL005",
                 ["as written records CloneBackward0", "on (1, 8) float32"], id="one-sample-at-a-time"),
    # `train_step(model, x, y, args)` from another file: `args` a namespace of the options it reads; the
    # stand-in input, backpropagated through at each inner step, keeps no saved value to free (its
    # `leaf * 1.0` did: "Trying to backward through the graph a second time").
    pytest.param("options_step.py", "history.append(loss)", "TCL007",
                 ["every iteration's graph stays alive",
                  "args = a namespace of the options the code reads (lr = 0.1, inner_steps = 2, loss = 'ce')"],
                 id="options-namespace-and-inputs-backpropagated-twice"),
    # forward(classifier, images, labels): no input shape fits; a network for the one it calls, class
    # indices for the loss target, a tensor for the rest.
    pytest.param("several_inputs.py", "start = images.detach()", "TCL006",
                 ["classifier = StandInNet", "labels = class indices", "with RandomStartAttack(16, 16), stand-ins"],
                 id="forward-of-several-inputs"),
    # `right.view(b, -1, 1)` against rows of the bank's width, and indices for `index_select`.
    pytest.param("several_inputs.py", "return score.clone().exp()", "TCL001",
                 ["stand-ins of 16 features, a size the module is built with", "index = indices [0, 1, 2, 7]"],
                 id="width-the-module-is-built-with"),
    pytest.param("several_inputs.py", "return base.clone().add(offset * 2.0)", "TCL001", ["offset = 0.1"],
                 id="keyword-only-parameters"),
    # A method that returns a pruned copy of the module: its weights are the result compared; the module
    # built with a width per layer (`hidden_sizes: list[int]`), the layer picked by `idx: int` the first,
    # the rows to remove positions any layer has (fresh92 amirika20's pruning models).
    pytest.param("pruned_copy.py", "smaller.weight.data = layer.weight.data[keep].clone()", "TCL001",
                 ["without the clone, outputs are bitwise equal", "idx = 0, indices_to_remove = [0, 1]",
                  "with PrunableMLP([16, 16])"], id="a-method-returning-a-pruned-copy"),
    # `forward(x, mask)` and no call in sight: the mask a 0-dim zero, which `scores + mask` broadcasts
    # (the probe of one input failed with TypeError on every shape; fresh29's course transformer).
    pytest.param("masked_block.py", "x = S.clone()", "TCL001",
                 ["the other a 0-dim zero (no call in sight shows them)", "bitwise equal"], id="other-inputs-as-zeros"),
    # An abstract base class (`ABC`) with the step: a subclass whose abstract methods do nothing builds it
    # (it could not be built: "Can't instantiate abstract class"; fresh30's CMU homework trainers).
    # The step computes its loss through a method it inherits from a class of the file: the stand-ins are
    # also those of what that method reads (`self.criterion`), and the evidence names them.
    pytest.param("inherited_loss_attack.py", "grad = torch.autograd.grad(loss, x, retain_graph=True)[0]", "TCL011",
                 ["without `retain_graph=True` the run went on", "stand-ins: self.model = StandInNet(",
                  "self.criterion = "], id="a-method-inherited-from-a-class-of-the-file"),
    # The lines between the copy and its read run only with `use_rand_start=True` and the L2 norm at once: the
    # flag guarding them is tried on every setting, the norm's among them; the last branch's `raise` is no path.
    pytest.param("rand_start_attack.py", "start = kept.clone()", "TCL001",
                 ["bitwise equal", "(same in 13 configurations)"], id="a-flag-and-an-attribute-together"),
    # The script passes the block's later inputs by keyword (`confused(p, mu=0.5, sigma=0.1)`).
    pytest.param("keyword_inputs.py", "return torch.tensor(density).mean() * 10", "TCL008",
                 ["UserWarning: To copy construct from a tensor", "with ConfusedLoss() found in the file"],
                 id="keyword-inputs-from-the-call-site"),
    pytest.param("abstract_trainer.py", "total_loss += loss", "TCL007",
                 ["`Learning` is abstract: its `_load_test` did nothing", "every iteration's graph stays alive"],
                 id="abstract-base-class"),
    # EnergyModel(energy_net, step_size): a stand-in network for `energy_net`, named; the graph kept by
    # `torch.autograd.grad(..., retain_graph=True)` is measured like a `.backward()`'s.
    pytest.param("energy_model.py", "return torch.autograd.grad(energy", "TCL011",
                 ["the retained graph still held 4 saved activation tensors", "to the return of `input_gradient` with no second-backward error",
                  "built as EnergyModel(<network>, 16), each <network> a StandInNet"],
                 id="network-argument-and-autograd-grad"),
    pytest.param("dict_batches.py", "total += loss", "TCL007",
                 ["loader = 4 batches of {'image': (4, 8) float32, 'label': (4,) int64}"], id="dict-batches"),
    # The losses compare the discriminator's scores with `torch.ones(batch)`: a (batch, 1) output does
    # not fit them, a flat one does.
    pytest.param("gan_flat_scores.py", "fake_loss = F.binary", "TCL003",
                 ["self.disc = StandInNet(any -> 8 -> Linear -> sigmoid -> 1, flat)"], id="flat-discriminator-scores"),
    pytest.param("plain_class.py", "upper.clone().abs()", "TCL001",
                 ["stand-ins: lower = tensor(4, 8), upper = tensor(4, 8)"], id="constructor-of-a-plain-class"),
    pytest.param("plain_class.py", "self.anchor = {name: p.clone().detach()", "TCL005",
                 ["records CloneBackward0", "with the object built with stand-ins for its `model`, `loaders`"],
                 id="constructor-keeping-what-nothing-explains"),
    pytest.param("generator_function.py", "yield window.clone().abs()", "TCL001",
                 ["the clone allocated 64 bytes per call"], id="generator-function-iterated"),
    # A zoo's network built as its factory builds it: a class of the file and a list, from the call.
    # `self.folder = path + self.folder`: text added to a folder's name is text (a float failed at the `+`).
    pytest.param("folder_prefix.py", "total = total + loss", "TCL007",
                 ["path = 'torchcopylint-stand-in'", "every iteration's graph stays alive"], id="text-prefix"),
    # A list of loaders, one per task (`for loader in self.task_loaders: for batch in loader`), and a
    # network output squared in place: a list of stand-in loaders, and a stand-in network whose output
    # may be written as a real one's may (its sigmoid's output, kept for the backward, failed there).
    pytest.param("task_loaders.py", "self.anchors[name] = w.clone().detach()", "TCL005",
                 ["as written records CloneBackward0", "stand-ins for its `net`, `task_loaders`"],
                 id="list-of-loaders"),
    # `train = GANTrain(lr, epochs, batch)`, then `train(G, D, 0.0, 1.0)`: the method (`__call__`) gets the
    # script's networks, whose `.width` a stand-in network lacks (fresh58's 1-D GAN demo).
    pytest.param("callable_trainer.py", "self.critic_losses.append(critic_loss.clone().detach())", "TCL005",
                 ["as written records CloneBackward0",
                  "the object built by the top-level call at line 49, the method given what the top-level call "
                  "at line 50 passes"], id="method-called-on-the-object-the-script-builds"),
    # A parameter made not to require grad, moved with `.to("cuda:0")`: the copy is a leaf too, and the
    # claim is the registration, which the run measures (fresh59: refuted for being a leaf, wrongly).
    pytest.param("frozen_vector.py", "self.u = nn.Parameter(", "TCL012",
                 ["a Tensor (is_leaf=True, requires_grad=False), not an nn.Parameter",
                  "PowerIteration.parameters() leaves it out"], id="registration-of-a-frozen-parameter"),
    # A network's methods read constants bound in a main guard written the other way round
    # (`if "__main__" == __name__:`), where the script builds it from a list of widths (`FCN(layers)`); the
    # method hands its argument to its own forward and iterates it: a tensor, by rows (fresh83's PINNs).
    pytest.param("pinn_globals.py", "n = torch.tensor(torch.ceil(lamda * t), dtype=torch.int32)", "TCL008",
                 ["UserWarning: To copy construct from a tensor", "with FCN([1, 16, 16, 3]) found in the file"],
                 id="globals-of-a-main-guard-written-the-other-way-round"),
    # `for i, sigma in enumerate(sigmas)` and `sigmas[-1] ** 2`: a schedule of noise levels, few enough for
    # the network's table of levels; the history is kept only with `save_history=True`, the default the
    # other way (fresh81's score-matching samplers: a batch stood in for the schedule and failed).
    pytest.param("noise_schedule.py", "history.append(x)", "TCL002",
                 ["sigmas = a schedule of 5 values, 1 down to 0.01", "with ScoreNet(), stand-ins", "save_history=True"],
                 id="a-schedule-read-level-by-level-on-a-flag"),
    # `x += step_size * scorenet(x, labels)`: the network stands in with an output of its input's shape.
    pytest.param("noise_schedule.py", "images.append(x)", "TCL002",
                 ["scorenet = StandInNet(any -> 8 -> Linear -> sigmoid -> its input's shape)",
                  "sigmas = a schedule of 5 values"], id="a-network-whose-output-updates-its-input"),
    # `def __init__(self, **kwargs): super().__init__(**kwargs)`: built with stand-ins for what the base's
    # constructor takes, by keyword (fresh90's Hamiltonian trainers, built with nothing, failed in the base).
    pytest.param("kwargs_trainer.py", "self.history.append(loss)", "TCL007",
                 ["every call's graph stays alive", "built by its own constructor as PenaltyTrainer(model, loader, optimizer)"],
                 id="a-constructor-handing-its-keywords-to-the-base"),
    # `ims.view(-1, 784)` of an argument: a made-up (4, 8) tensor cannot be read so; samples of 784 values
    # can (fresh90's Defense-GAN attack, "shape '[-1, 784]' is invalid for input of size 32").
    pytest.param("flat_inputs.py", "flat.clone().repeat(copies, 1)", "TCL001",
                 ["bitwise equal", "ims = tensor(4, 784)",
                  "samples of shape (784,), as the code reshapes its input to (-1, 784)"],
                 id="an-argument-read-as-flat-samples"),
    pytest.param("zoo_resnet.py", "stem = x", "TCL002",
                 ["with `.clone()` the result differs", "with ResNet(BasicBlock, [1, 1]) found in the file"],
                 id="constructor-given-a-class-of-the-file"),
]


# The same, where the claim is conditional ("if `x` requires grad") and only a made-up value met the
# condition: the stand-ins run and are said, and the verdict stays unverified, the assumption said.
MEASURED_ON_MADE_UP_VALUES = [
    # `label.cpu().numpy().item()`, nothing else says one sample at a time: a batch of four fails there,
    # the next setting holds one (fresh24's multi-model DeepFool).
    pytest.param("scalar_label_attack.py", "start = image.clone().detach()", "TCL005",
                 ["as written records CloneBackward0", "on (1, 8) float32", "with stand-ins (batches of one sample)"],
                 id="one-sample-said-only-by-failing"),
    pytest.param("dict_batches.py", "kept = features.clone().detach()", "TCL005",
                 ["batch['features']`, a stand-in made to require grad"], id="dict-argument"),
    # `if best_loss is None:` holds the copies: a stand-in tensor never takes that path, None does.
    *(pytest.param("keep_best.py", text, "TCL005", ["with stand-ins with best_loss = None", "assumed:"],
                   id=f"none-path-{text.split(' =')[0]}")
      for text in ("best_x = x.clone().detach()", "best_loss = loss.clone().detach()")),
]


def test_a_write_through_a_detached_alias_after_the_name_was_rebound_is_refuted_not_confirmed(standins_verified):
    # The first restart's `lolip` changed; the second restart's `lolip`, which the code reads, is
    # another tensor. Comparing the name's values before and after confirmed this false finding.
    verdict = _standin_verdict(standins_verified, "restart_best.py", "best = lolip.detach()", "TCL006")
    assert verdict.status == "refuted", verdict
    assert "`lolip` named another tensor when the write at line 32 ran" in verdict.evidence, verdict.evidence


@pytest.mark.parametrize("name, text, code, evidence", MEASURED_ON_MADE_UP_VALUES)
def test_a_conditional_claim_met_only_by_a_made_up_value_runs_on_stand_ins_and_stays_unverified(
        standins_verified, name, text, code, evidence):
    verdict = _standin_verdict(standins_verified, name, text, code)
    assert verdict.status == "unverified", verdict
    for part in [*evidence, "the claim holds if it does, and nothing run shows that it does"]:
        assert part in verdict.evidence, (part, verdict.evidence)


@pytest.mark.parametrize("name, text, code, evidence", CONFIRMED_ON_STAND_INS)
def test_code_that_needs_stand_ins_of_a_kind_is_confirmed_and_says_what_stood_in(standins_verified, name, text,
                                                                                  code, evidence):
    verdict = _standin_verdict(standins_verified, name, text, code)
    assert verdict.status == "confirmed", verdict
    for part in evidence:
        assert part in verdict.evidence, (part, verdict.evidence)


def test_a_copy_in_a_loop_is_judged_on_the_pass_that_shows_it_and_never_refuted_on_the_first_alone(
        standins_verified):
    # The first pass copies a value of detached images; from the second on, the previous step's result,
    # which requires grad through `x`. Refuted on the first pass alone before.
    verdict = _standin_verdict(standins_verified, "loop_passes.py", "x = adv.clone().detach()", "TCL005")
    assert verdict.status == "confirmed", verdict
    assert "as written records CloneBackward0" in verdict.evidence and "assumed" not in verdict.evidence, verdict
    # The same loop where the run fails right after the first pass: the later passes never ran.
    source = standins_verified["sources"][str(standins_verified["directory"] / "loop_passes.py")]
    line = line_of(source, "x = adv.clone().detach()", occurrence=2)
    verdict = standins_verified["by_key"][("loop_passes.py", line, "TCL005")].verdict
    assert verdict.status == "unverified", verdict
    assert "does not require grad here" in verdict.evidence and "but the line is in a loop, and the run failed " \
        "after its first pass (AttributeError: 'StandInNet' object has no attribute 'num_classes')" in verdict.evidence, \
        verdict.evidence


def test_an_alias_overwritten_by_a_layer_a_stand_in_replaced_is_never_refuted(standins_verified):
    # The network cannot be built; its in-place ReLU is a stand-in network in the run, which writes
    # nothing in place: equal results there could not have shown the overwrite (refuted before).
    verdict = _standin_verdict(standins_verified, "stand_in_writer.py", "stem = x", "TCL002")
    assert verdict.status == "unverified", verdict
    assert "the in-place write at line 19 is a call of `self.relu`, which a stand-in network replaced" \
        in verdict.evidence, verdict.evidence


def test_an_alias_that_holds_the_written_values_is_confirmed_even_where_the_output_does_not_change(
        standins_verified):
    # A U-Net skip rectified in place by the next down block, read by an up path that starts with a
    # ReLU: the output and gradients are the same with the copy, but the read saw the written values,
    # which is the claim (it was refuted: "the alias was not overwritten", fresh23's pix2pix).
    verdict = _standin_verdict(standins_verified, "unet_skips.py", "return self.up(torch.cat((x1, x0), dim=1))",
                               "TCL002")
    assert verdict.status == "confirmed", verdict
    held = re.search(r"`x0` held the written values \(largest difference ([\d.e+-]+) from the values passed in",
                     verdict.evidence)
    assert held and float(held.group(1)) > 0, verdict.evidence
    assert "the output and all gradients are the same either way" in verdict.evidence, verdict.evidence
    # A skip the write leaves as it was (a square: nothing for the leaky activation to change): refuted,
    # and the evidence says what the read saw.
    verdict = _standin_verdict(standins_verified, "unet_skips.py", "return self.out(torch.cat((x1, h), dim=1))",
                               "TCL002")
    assert verdict.status == "refuted", verdict
    assert "`h` held the values passed in: the write changed none of them" in verdict.evidence, verdict.evidence


def test_a_copy_of_a_value_computed_from_made_up_arguments_made_without_grad_is_never_refuted(standins_verified):
    # `for scores in action_scores: scores.clone().detach()`: the rows of made-up scores do not require
    # grad, which says nothing of the policy network's scores the callers pass (fresh22: refuted a true
    # TCL005 of a course's policy-gradient loss).
    verdict = _standin_verdict(standins_verified, "iterated_scores.py", "act_scores = scores.clone().detach()",
                               "TCL005")
    assert verdict.status == "unverified", verdict
    assert "but the run made up `batch`, `action_scores`, which it may be computed from, without grad: what the " \
           "code is given decides" in verdict.evidence, verdict.evidence


def test_train_epoch_accumulation_is_confirmed_with_stand_ins_it_names(standins_verified):
    verdict = _standin_verdict(standins_verified, "train_epoch.py", "total += loss", "TCL007")
    assert verdict.status == "confirmed", verdict
    assert "every iteration's graph stays alive" in verdict.evidence, verdict.evidence
    # What stood in for each argument is in the evidence: a network, batches of (inputs, labels), SGD over it.
    assert re.search(r"model = StandInNet", verdict.evidence), verdict.evidence
    assert re.search(r"loader = \d+ batches of", verdict.evidence), verdict.evidence
    assert "opt = SGD(model)" in verdict.evidence, verdict.evidence


def test_trainer_whose_networks_cannot_be_imported_is_confirmed_with_stand_in_networks(standins_verified):
    verdict = _standin_verdict(standins_verified, "gan_trainer.py", "d_fake = self.disc(fake)", "TCL003")
    assert verdict.status == "confirmed", verdict
    reached = re.search(r"reached (\d+) of (\d+) generator parameters", verdict.evidence)
    assert reached and int(reached.group(1)) > 0, verdict.evidence
    assert "self.gen = StandInNet" in verdict.evidence and "self.disc = StandInNet" in verdict.evidence, \
        verdict.evidence


def test_inplace_op_under_a_constructor_flag_is_confirmed_and_the_flag_named(standins_verified):
    source = standins_verified["sources"][str(standins_verified["directory"] / "flag_blocks.py")]
    line = [n for n, text in enumerate(source.splitlines(), 1) if text.strip() == "identity = x"][0]
    verdict = standins_verified["by_key"][("flag_blocks.py", line, "TCL002")].verdict
    assert verdict.status == "confirmed", verdict
    assert "inplace_act=True" in verdict.evidence, verdict.evidence


def test_a_flag_that_also_chooses_the_targets_kind_is_flipped_on_batches_of_value_targets(standins_verified):
    # `if one_hot_targets: criterion(output, torch.argmax(target, dim=1))`: the flag's path needs
    # two-dimensional targets, which the batches of class indices made for its other path lack.
    verdict = _standin_verdict(standins_verified, "one_hot_flag.py", "loss += criterion(", "TCL007")
    assert verdict.status == "confirmed", verdict
    assert verdict.evidence.endswith("with stand-ins (batches with value targets), one_hot_targets=True"), \
        verdict.evidence


def test_a_line_under_a_boolean_argument_s_other_value_is_reached_and_the_value_named(standins_verified):
    # `random_start(x, eps, rand_init=False)`: the copy-construct runs only with a random start.
    verdict = _standin_verdict(standins_verified, "flag_arguments.py", "start = torch.tensor(", "TCL008")
    assert verdict.status == "confirmed", verdict
    assert verdict.evidence.endswith("with stand-ins, rand_init=True"), verdict.evidence
    verdict = _standin_verdict(standins_verified, "flag_arguments.py", "start = torch.tensor(", "TCL008", occurrence=2)
    assert verdict.status == "confirmed", verdict
    assert verdict.evidence.endswith("with stand-ins, rand_init=True"), verdict.evidence
    # `project(x, eps, distance="l_inf")`: the copy-construct is under `elif distance == "l_2":`.
    verdict = _standin_verdict(standins_verified, "flag_arguments.py", "delta = torch.tensor(", "TCL008")
    assert verdict.status == "confirmed", verdict
    assert verdict.evidence.endswith("with stand-ins, distance='l_2'"), verdict.evidence


def test_inplace_op_on_a_branch_nothing_takes_is_not_reached_never_refuted(standins_verified):
    source = standins_verified["sources"][str(standins_verified["directory"] / "flag_blocks.py")]
    line = [n for n, text in enumerate(source.splitlines(), 1) if text.strip() == "identity = x"][1]
    verdict = standins_verified["by_key"][("flag_blocks.py", line, "TCL002")].verdict
    write_line = line_of(source, "x = self.relu(x)", occurrence=2)
    assert verdict.status == "not reached", verdict
    assert f"line {write_line} (the in-place write) never ran" in verdict.evidence, verdict.evidence


def test_copy_needed_only_on_a_branch_the_defaults_skip_is_refuted_by_the_configuration_that_runs_it(
        standins_verified):
    # The defaults never run the in-place activation, so they would show the copy as redundant: a
    # wrong confirmation. preact=True runs every line and shows the copy is needed.
    verdict = _standin_verdict(standins_verified, "gated_clone.py", "identity = x.clone()", "TCL001", occurrence=1)
    assert verdict.status == "refuted", verdict
    assert "preact=True" in verdict.evidence and "the copy is needed" in verdict.evidence, verdict.evidence


def test_copy_on_a_branch_no_configuration_takes_is_not_reached(standins_verified):
    source = standins_verified["sources"][str(standins_verified["directory"] / "gated_clone.py")]
    verdict = _standin_verdict(standins_verified, "gated_clone.py", "identity = x.clone()", "TCL001", occurrence=2)
    assert verdict.status == "not reached", verdict
    assert f"line {line_of(source, 'x = self.act(x)', occurrence=2)}" in verdict.evidence, verdict.evidence


def test_bottleneck_is_built_with_widths_that_chain_through_its_expansion(standins_verified):
    verdict = _standin_verdict(standins_verified, "bottleneck.py", "identity = x", "TCL002")
    assert verdict.status == "confirmed", verdict
    # inplanes == planes * expansion (4): the only way its identity path adds up.
    built = re.search(r"Bottleneck\((\d+), (\d+)\)", verdict.evidence)
    assert built and int(built.group(1)) == 4 * int(built.group(2)), verdict.evidence


def test_every_fixture_diagnosis_gets_a_verdict(fixtures_verified):
    for key, diagnostic in fixtures_verified["by_key"].items():
        assert diagnostic.verdict is not None, key
        assert diagnostic.verdict.status in STATUSES, (key, diagnostic.verdict)
        assert diagnostic.verdict.evidence.strip(), (key, diagnostic.verdict)


def test_redundant_clone_is_confirmed_with_equal_results_and_the_bytes_it_cost(fixtures_verified):
    verdict = _verdict(fixtures_verified, "residual.py", "identity = x.clone()", "TCL001", occurrence=1)
    assert verdict.status == "confirmed", verdict
    assert "bitwise equal" in verdict.evidence and "gradients" in verdict.evidence, verdict.evidence
    # The bytes are those of the input the evidence names: float32, 4 bytes a value.
    shape = re.search(r"input \(([\d, ]+)\)", verdict.evidence)
    allocated = re.search(r"allocated ([\d,]+) bytes", verdict.evidence)
    assert shape and allocated, verdict.evidence
    values = math.prod(int(part) for part in shape.group(1).split(",") if part.strip())
    assert int(allocated.group(1).replace(",", "")) == values * 4, verdict.evidence


def test_alias_overwritten_by_inplace_relu_is_confirmed_with_the_difference(fixtures_verified):
    verdict = _verdict_alias(fixtures_verified)
    assert verdict.status == "confirmed", verdict
    difference = re.search(r"largest output difference ([0-9.eE+-]+|inf)", verdict.evidence)
    assert difference, verdict.evidence
    assert float(difference.group(1)) > 0, verdict.evidence


def _verdict_alias(fixtures_verified) -> Verdict:
    """The TCL002 verdict at AliasBlock's `identity = x` (a line `line_of` cannot single out)."""
    source = fixtures_verified["sources"][str(fixtures_verified["directory"] / "residual.py")]
    line = next(n for n, text in enumerate(source.splitlines(), 1) if text.strip() == "identity = x")
    diagnostic = fixtures_verified["by_key"].get(("residual.py", line, "TCL002"))
    assert diagnostic is not None and diagnostic.verdict is not None, sorted(fixtures_verified["by_key"])
    return diagnostic.verdict


def test_false_redundant_clone_is_refuted(fixtures_verified):
    # NeededCloneBlock: the in-place ReLU rewrites x, so without the clone the shortcut changes.
    verdict = _verdict(fixtures_verified, "residual.py", "identity = x.clone()", "TCL001", occurrence=2)
    assert verdict.status == "refuted", verdict
    assert "difference" in verdict.evidence, verdict.evidence


def test_false_inplace_on_leaf_under_no_grad_is_refuted(fixtures_verified):
    verdict = _verdict(fixtures_verified, "no_grad.py", "clamp_(", "TCL004")
    assert verdict.status == "refuted", verdict
    assert "without the leaf error" in verdict.evidence, verdict.evidence


def test_missing_import_is_unverified_and_named(fixtures_verified):
    verdict = _verdict(fixtures_verified, "missing_import.py", "identity = x.clone()", "TCL001", occurrence=1)
    assert verdict.status == "unverified", verdict
    assert "not_a_real_package" in verdict.evidence, verdict.evidence


def test_missing_import_the_target_does_not_need_is_left_out(fixtures_verified):
    # PlainBlock names nothing from the missing package: its snippet leaves the import out.
    verdict = _verdict(fixtures_verified, "missing_import.py", "identity = x.clone()", "TCL001", occurrence=2)
    assert verdict.status == "confirmed", verdict


def test_script_top_level_never_runs(fixtures_verified):
    directory = fixtures_verified["directory"]
    # The top level would have written this file first (then trained, slept 30 s and exited).
    assert not (directory / "training_started").exists(), (directory / "training_started").read_text()
    # ... while the class defined in the script was verified.
    verdict = _verdict(fixtures_verified, "training_script.py", "identity = x.clone()", "TCL001")
    assert verdict.status == "confirmed", verdict
    # A finding in the top-level loop itself runs that loop (its slice), and only it: the marker
    # write before it, the sleep and the exit after it never run.
    verdict = _verdict(fixtures_verified, "training_script.py", "total_loss += loss", "TCL007")
    assert verdict.status == "confirmed", verdict


def test_sys_exit_in_the_code_is_unverified_and_said(fixtures_verified):
    verdict = _verdict(fixtures_verified, "exits.py", "identity = x.clone()", "TCL001", occurrence=1)
    assert verdict.status == "unverified", verdict
    assert "exit" in verdict.evidence.lower() and "no result" not in verdict.evidence, verdict


def test_sys_exit_does_not_lose_the_next_diagnosis(fixtures_verified):
    verdict = _verdict(fixtures_verified, "exits.py", "identity = x.clone()", "TCL001", occurrence=2)
    assert verdict.status == "confirmed", verdict


def test_sibling_module_is_imported(fixtures_verified):
    verdict = _verdict(fixtures_verified, "uses_sibling.py", "identity = x.clone()", "TCL001")
    assert verdict.status == "confirmed", verdict


def test_fixture_files_are_never_written(fixtures_verified):
    # Byte for byte, and nothing new: no marker file, no __pycache__ beside the imported sibling.
    assert user_files(fixtures_verified["directory"]) == fixtures_verified["before"]


def test_timings_are_filled_per_experiment(fixtures_verified):
    """VerifyOptions.timings: seconds per diagnosis (by index), measured inside the child."""
    timings = fixtures_verified["timings"]
    assert all(isinstance(seconds, float) and seconds >= 0 for seconds in timings.values()), timings
    ran = [index for index, d in enumerate(fixtures_verified["by_key"].values())
           if d.verdict.status in ("confirmed", "refuted")]
    assert ran
    for index in ran:
        assert timings.get(index, 0) > 0, (index, timings)


# --- time limit, through the command line --------------------------------------------------


def test_infinite_loop_is_unverified_after_the_time_limit(tmp_path: Path):
    shutil.copy(FIXTURES / "infinite_loop.py", tmp_path / "infinite_loop.py")
    before = user_files(tmp_path)
    result = run_torchcopylint("--verify", "--verify-timeout", "2", "--output-format", "json", "infinite_loop.py",
                               cwd=tmp_path, timeout=300)
    records = json.loads(result.stdout)
    assert [r["code"] for r in records] == ["TCL001"], result.stderr
    verdict = records[0]["verdict"]
    assert verdict["status"] == "unverified", verdict
    # The child's own limit ends the experiment, not the parent killing the child.
    assert "timed out after 2 s" in verdict["evidence"], verdict
    assert result.returncode == 1  # unverified findings still count
    assert user_files(tmp_path) == before


# --- exit status and reporters, without running anything ----------------------------------


def test_refuted_diagnoses_do_not_fail_the_run(tmp_path: Path, monkeypatch, cli):
    """`verify` is replaced by one that refutes everything: the findings stay listed, exit 0."""
    import torchcopylint.verify.runner as runner

    (tmp_path / "m.py").write_text("import torch\n\n\ndef f():\n    return x.clone().detach()\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(runner, "resolve_device", lambda requested, python=sys.executable: "cpu")
    monkeypatch.setattr(runner, "verify", lambda diagnostics, sources, options, tree=(): [
        dataclasses.replace(d, verdict=Verdict("refuted", "made up for the test")) for d in diagnostics])
    refuted = cli("--verify", "m.py")
    assert "TCL005" in refuted.stdout and "[refuted: made up for the test]" in refuted.stdout, refuted
    assert refuted.exit_code == 0, refuted
    monkeypatch.setattr(runner, "verify", lambda diagnostics, sources, options, tree=(): [
        dataclasses.replace(d, verdict=Verdict("unverified", "could not run")) for d in diagnostics])
    assert cli("--verify", "m.py").exit_code == 1


def test_reporters_carry_verdicts(tmp_path: Path):
    from torchcopylint.report import render
    from torchcopylint.rules import ALL_RULES

    path = str(tmp_path / "m.py")
    (tmp_path / "m.py").write_text("import torch\n\n\ndef f(x):\n    return x.clone().detach()\n", encoding="utf-8")
    diagnostic = Diagnostic("TCL005", "clone-detach-order", "clone then detach", Location(path, 5, 12, 5, 31),
                            verdict=Verdict("confirmed", "same values; 3 µs vs 2 µs"))
    unverified = Diagnostic("TCL005", "clone-detach-order", "clone then detach", Location(path, 5, 12, 5, 31),
                            verdict=Verdict("unverified", ""))

    def rendered(format: str, diagnostics) -> str:
        stream = io.StringIO()
        render(format, diagnostics, stream=stream, rules=ALL_RULES, root=tmp_path, show_fixes=False,
               statistics=False, color=False, files_checked=1)
        return stream.getvalue()

    assert json.loads(rendered("json", [diagnostic]))[0]["verdict"] == {
        "status": "confirmed", "evidence": "same values; 3 µs vs 2 µs"}
    sarif = json.loads(rendered("sarif", [diagnostic]))
    assert sarif["runs"][0]["results"][0]["properties"]["verdict"] == {
        "status": "confirmed", "evidence": "same values; 3 µs vs 2 µs"}
    assert rendered("github", [diagnostic]).rstrip("\n").endswith("clone then detach [confirmed: same values; 3 µs vs 2 µs]")
    text = rendered("text", [diagnostic])
    assert "m.py:5:12: TCL005" in text and "[confirmed: same values; 3 µs vs 2 µs]" in text, text
    gitlab = json.loads(rendered("gitlab", [diagnostic]))
    assert gitlab[0]["description"].endswith("[confirmed: same values; 3 µs vs 2 µs]")
    # No evidence: the status alone.
    assert "[unverified]" in rendered("text", [unverified])
    # No verdict (no --verify): nothing added.
    plain = Diagnostic("TCL005", "clone-detach-order", "clone then detach", Location(path, 5, 12, 5, 31))
    assert json.loads(rendered("json", [plain]))[0]["verdict"] is None
    assert "[" not in rendered("github", [plain]).split("::", 2)[2]


# --- the examples' results (last: their run overlaps the tests above) ---------------------


def test_examples_every_diagnosis_gets_a_verdict(examples_verified):
    records = examples_verified["records"]
    assert records, "the examples gave no diagnosis at all"
    for record in records:
        verdict = record.get("verdict")
        where = f"{record['path']}:{record['line']} {record['code']}"
        assert isinstance(verdict, dict), f"{where}: no verdict"
        assert verdict["status"] in STATUSES, f"{where}: {verdict}"
        assert isinstance(verdict["evidence"], str) and verdict["evidence"].strip(), f"{where}: no evidence or reason"
    # Confirmed findings remain findings.
    assert examples_verified["returncode"] == 1, examples_verified["stderr"][-2000:]


def test_examples_every_marked_diagnosis_is_confirmed(examples_verified):
    copy = examples_verified["copy"]
    expected = {(path.relative_to(copy).as_posix(), line, code)
                for path in sorted(copy.rglob("*.py"))
                for line, code in markers(path.read_text(encoding="utf-8"))}
    assert expected, "examples/ has no `# expect:` markers"
    verdicts = {(r["path"], r["line"], r["code"]): r["verdict"] for r in examples_verified["records"]}
    problems = []
    for key in sorted(expected):
        verdict = verdicts.get(key)
        if verdict is None:
            problems.append(f"{key}: not reported")
        elif verdict["status"] != "confirmed" or not verdict["evidence"].strip():
            problems.append(f"{key}: {verdict['status']}: {verdict['evidence']}")
    assert not problems, "\n".join(problems)


def test_examples_files_are_never_written(examples_verified):
    # The same files, byte for byte, and no new ones (no marker files, no __pycache__).
    assert user_files(examples_verified["copy"]) == examples_verified["before"]


def test_a_clone_whose_removal_changes_gradients_by_rounding_only_is_not_needed():
    from torchcopylint.verify.experiments import ROUNDING, Versions

    def versions(outputs_equal: bool, difference: float, scale: float = 3.26e4) -> Versions:
        return Versions(outputs_equal, difference == 0.0, 0.0, difference, 160, [524288], (2, 3, 32, 32), set(), "",
                        scale)

    # fresh21's SRGAN generator: outputs bitwise equal, gradients of up to 3.26e4 differing by 1.14e-5 (the
    # backward adds the skip's and the blocks' gradients in another order without CloneBackward): this
    # refuted a true TCL001. Rounding decides nothing; more than rounding, or another output, still does.
    assert versions(True, 1.14e-5).equal_but_for_rounding
    assert not versions(True, 10 * ROUNDING * 3.26e4).equal_but_for_rounding
    assert not versions(False, 1.14e-5).equal_but_for_rounding
    assert not versions(True, 0.0).equal_but_for_rounding and versions(True, 0.0).equal


def test_children_running_at_once_share_the_cpus(monkeypatch):
    """Two children of two torch threads each on two cores ran an attack's experiment past the time
    limit; with one thread each, both finished in half the time."""
    from torchcopylint import parallel
    from torchcopylint.verify.runner import MOST_TORCH_THREADS, torch_threads

    monkeypatch.setattr(parallel, "default_jobs", lambda: 2)
    assert (torch_threads(2), torch_threads(1), torch_threads(7)) == (1, 2, 1)
    monkeypatch.setattr(parallel, "default_jobs", lambda: 64)
    assert (torch_threads(2), torch_threads(32)) == (MOST_TORCH_THREADS, 2)


def test_one_flagged_file_gets_the_threads_of_every_child_that_does_not_start(monkeypatch):
    from torchcopylint import parallel
    from torchcopylint.verify import runner

    monkeypatch.setattr(parallel, "default_jobs", lambda: 2)
    given = []
    monkeypatch.setattr(runner, "_verify_file", lambda path, source, items, options, threads, callers: given.append(
        threads) or {})
    source = "import torch\n\nw = torch.ones(3, requires_grad=True)\nw.add_(1)\n"  # TCL004
    for paths in (["a.py"], ["a.py", "b.py"]):
        given.clear()
        sources = {path: source for path in paths}
        diagnostics = [d for path in paths for d in lint_source(source, path)]
        assert diagnostics, "the source is flagged"
        runner.verify(diagnostics, sources, runner.VerifyOptions(jobs=2))
        assert given == [2 // len(paths)] * len(paths), (paths, given)
