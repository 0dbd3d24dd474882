"""`--verify` on shapes a measurement on unseen repositories found it weak on (tests/data/verify/shapes):

- a TCL003 verdict rests on the flagged call: marked (the gradient that goes back through that very
  argument) and compared with the step run with only that argument detached (two_calls.py);
- a discriminator step written in a helper is measured at the helper's backward (helper_step.py);
- a function called at the top level runs with what that call passes, built by the slice
  (mnist_script.py), with stand-ins for what cannot be built (fallback_call.py); argparse options
  the script requires get values of their declared types;
- networks that return tuples, a plain trainer class, labels as class indices (tuple_gan.py);
- TCL007 on state a module keeps across calls (module_state.py);
- TCL012 on a comprehension handed to an optimizer (comprehension.py).

`shapes_verified` is one `verify()` call over a copy of the folder, with the linter's diagnostics
and hand-made false ones; a false TCL003 placed on the detached call of a step that also calls the
discriminator on the undetached fake is verified on its own (with the linter's finding in the same
function, the isolation of findings would fix that other call first). The pieces are tested in
process too. Skipped where torch is not installed.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import re
import shutil
import textwrap
from pathlib import Path

import pytest

from conftest import TESTS_DATA, lint_marked_fixtures, run_torchcopylint, snapshot

from torchcopylint.diagnostic import Diagnostic, Location, Severity

pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                                reason="--verify needs torch (pip install torchcopylint[verify])")

SHAPES = TESTS_DATA / "verify" / "shapes"
PATIENT_TIMEOUT = 120  # per diagnosis: a loaded machine must not turn a verdict into "timed out"


def line_of(source: str, text: str, occurrence: int = 1) -> int:
    found = [number for number, line in enumerate(source.splitlines(), 1) if text in line]
    assert len(found) >= occurrence, f"{text!r} occurs {len(found)} times"
    return found[occurrence - 1]


def _hand_made(code: str, path: str, source: str, anchor: str, text: str, context: dict,
               occurrence: int = 1) -> Diagnostic:
    """A diagnostic on `text`, on the line holding `anchor`: the span a rule would give it."""
    line = line_of(source, anchor, occurrence)
    column = source.splitlines()[line - 1].index(text) + 1
    return Diagnostic(code, "hand-made", "hand-made", Location(path, line, column, line, column + len(text)),
                      Severity.ERROR, context=context)


def _tcl003_context(source: str, generator_line: str, backward_line: str, step_line: str, **more) -> dict:
    return {"generator": more.pop("generator", "G"), "discriminator": more.pop("discriminator", "D"),
            "generator_line": line_of(source, generator_line), "backward_line": line_of(source, backward_line),
            "step_line": line_of(source, step_line), **more}


@pytest.fixture(scope="module")
def shapes_verified(tmp_path_factory):
    from torchcopylint.verify.runner import VerifyOptions, verify

    root = tmp_path_factory.mktemp("verify-shapes")
    project, markers = root / "project", root / "markers"
    shutil.copytree(SHAPES, project)
    markers.mkdir()
    before = snapshot(project)
    # The fixtures still hold the findings they were written for, and nothing else.
    sources, diagnostics = lint_marked_fixtures(project)

    def path_of(name: str) -> str:
        return str(project / name)

    helper = sources[path_of("helper_step.py")]
    diagnostics.append(_hand_made("TCL003", path_of("helper_step.py"), helper,
                                  "d_step(netD, optD, real, fake.detach())", "fake.detach()",
                                  {"generator": "netG", "discriminator": "netD",
                                   "generator_line": line_of(helper, "fake = netG(torch.randn(real.size(0), 4))", 2),
                                   "backward_line": line_of(helper, "d_step(netD, optD, real, fake.detach())"),
                                   "step_line": line_of(helper, "opt_d.step()"),
                                   "helper_backward_line": line_of(helper, "loss.backward()")}))
    state = sources[path_of("module_state.py")]
    # DetachedCenter's update (the second of the file), from a detached mean.
    diagnostics.append(_hand_made("TCL007", path_of("module_state.py"), state,
                                  "self.avg = self.avg * self.momentum + mean", "self.avg * self.momentum + mean",
                                  {"accumulator": "self.avg", "kept": "graph chain"}, occurrence=2))
    comprehension = sources[path_of("comprehension.py")]
    diagnostics.append(_hand_made("TCL012", path_of("comprehension.py"), comprehension, "kept = torch.optim.SGD(",
                                  "[torch.ones(2, requires_grad=True) for _ in range(3)]",
                                  {"name": "the list", "condition": "", "use": "optimizer"}))
    options = VerifyOptions(device="cpu", timeout=PATIENT_TIMEOUT, jobs=2)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TCL_TEST_MARKERS", str(markers))  # outside the project: a real write, if it happens
        verified = verify(diagnostics, sources, options)
        # Alone: the finding on `D(fake)` in the same function would be fixed first otherwise.
        two_calls = sources[path_of("two_calls.py")]
        wrong = _hand_made("TCL003", path_of("two_calls.py"), two_calls, "d_fake = D(fake.detach())", "fake.detach()",
                           _tcl003_context(two_calls, "fake = G(z)", "d_loss.backward()", "opt_d.step()"))
        verified += verify([wrong], {wrong.path: two_calls}, options)
    by_key = {(Path(d.path).name, d.location.line, d.code, d.message == "hand-made"): d.verdict for d in verified}
    return {"by_key": by_key, "sources": sources, "project": project, "markers": markers, "before": before}


def _verdict(verified, name: str, text: str, code: str, hand_made: bool = False, occurrence: int = 1):
    source = verified["sources"][str(verified["project"] / name)]
    key = (name, line_of(source, text, occurrence), code, hand_made)
    verdict = verified["by_key"].get(key)
    assert verdict is not None, f"no {code} at {key}: {sorted(verified['by_key'])}"
    return verdict


# --- 1. a TCL003 verdict rests on the flagged call ------------------------------------------------


def test_the_undetached_call_of_two_is_confirmed_through_that_call(shapes_verified):
    verdict = _verdict(shapes_verified, "two_calls.py", "d_match = D(fake)", "TCL003")
    assert verdict.status == "confirmed", verdict
    # The gradient that went back through the flagged argument itself, and the step with it detached.
    assert re.search(r"the gradient went back through `fake` itself \(norm [\d.e+-]+\), into a graph holding 2 "
                     r"generator parameters", verdict.evidence), verdict.evidence
    assert "with `fake` detached (the fix) that backward leaves the generator's `.grad` as it was" \
        in verdict.evidence, verdict.evidence


def test_a_trainer_s_step_arguments_are_shaped_for_the_networks_its_constructor_built(shapes_verified):
    # The object's own networks, not stand-ins for them: noise of the 100 features its generator reads,
    # samples of the 64-pixel images its critic reads; and the evidence says so (not the stand-ins
    # the plan would have made for `self.generator` and `self.critic`).
    verdict = _verdict(shapes_verified, "trainer_object.py", "loss = self.critic(fake).mean()", "TCL003")
    assert verdict.status == "confirmed", verdict
    assert "reached 8 of 8 generator parameters" in verdict.evidence, verdict.evidence
    assert "the object built by its own constructor as Trainer(); stand-ins: real = tensor(4, 3, 64, 64), " \
           "noise = tensor(4, 100)" in verdict.evidence, verdict.evidence
    assert "StandInNet" not in verdict.evidence, verdict.evidence


def test_a_finding_on_the_detached_call_of_two_is_refuted_by_the_flagged_call_s_measurement(shapes_verified):
    # The backward does reach the generator, through the other call: the flagged one carries nothing,
    # and detaching it leaves the generator's gradient bitwise the same.
    verdict = _verdict(shapes_verified, "two_calls.py", "d_fake = D(fake.detach())", "TCL003", hand_made=True)
    assert verdict.status == "refuted", verdict
    assert "reached 2 of 2 generator parameters, but not through the flagged call: `fake.detach()` is a tensor " \
           "with requires_grad=False there: it carries no graph" in verdict.evidence, verdict.evidence
    assert re.search(r"with `fake.detach\(\)` detached \(the fix\) that backward changes the generator's `.grad` "
                     r"by the same [\d.e+-]+, bitwise: the gradient comes through another call of the step",
                     verdict.evidence), verdict.evidence


def test_the_flagged_argument_is_the_span_s_expression_or_the_discriminator_call_s_first_argument():
    from torchcopylint.verify.flagged import detached, flagged_argument, marked

    source = "d = D(fake.detach()) + D(fake)\nscore = D( x )\n"
    exact = flagged_argument(source, (1, 26, 1, 30), "D")  # `fake` of the second call
    assert exact.text == "fake" and detached(source, exact).splitlines()[0] == \
        "d = D(fake.detach()) + D((fake).detach())"
    on_call = flagged_argument(source, (1, 5, 1, 21), "D")  # `D(fake.detach())`, as a hand-made finding puts it
    assert on_call.text == "fake.detach()"
    assert marked(source, on_call).splitlines()[0] == "d = D(__tcl_flagged__(fake.detach())) + D(fake)"
    sloppy = flagged_argument(source, (2, 9, 2, 11), "D")  # overlaps `D( x )` only
    assert sloppy.text == "x"
    assert flagged_argument(source, None, "D") is None


def test_marks_record_what_the_measured_backward_sends_through_the_flagged_argument():
    import torch

    from torchcopylint.verify.experiments import _graph_of, _leaf_ids
    from torchcopylint.verify.flagged import Marks

    weight = torch.randn(3, requires_grad=True)
    fake = weight * 2
    marks = Marks()
    through = marks(fake)
    untouched = marks(fake.detach())
    loss = (through * 3).sum() + (fake * 5).sum() + untouched.sum()
    nodes, _ = _graph_of([loss])
    marks.before(nodes, {id(weight)}, _leaf_ids)
    loss.backward()
    marks.after()
    assert [mark.what for mark in marks.marks] == ["a tensor that requires grad", "a tensor with requires_grad=False"]
    carried = marks.carried
    # Only the gradient through the marked use (3 per element), not the other use of the same tensor.
    assert len(carried) == 1 and carried[0].gradient == pytest.approx(3 * 3 ** 0.5)
    assert carried[0].generator_parameters == 1


# --- 6. a discriminator step in a helper -----------------------------------------------------------


@pytest.mark.parametrize("text", ["d_loss = d_step(netD, optD, real, fake)", "d_step(netD, optD, real, fake)  #"])
def test_a_step_in_a_helper_is_measured_at_the_helper_s_backward(shapes_verified, text):
    verdict = _verdict(shapes_verified, "helper_step.py", text, "TCL003")
    assert verdict.status == "confirmed", verdict
    source = shapes_verified["sources"][str(shapes_verified["project"] / "helper_step.py")]
    helper_line, call_line = line_of(source, "loss.backward()"), line_of(source, text)
    assert f"the discriminator's backward in `d_step()` (line {helper_line}, called at line {call_line}) reached " \
           f"4 of 4 generator parameters" in verdict.evidence, verdict.evidence
    assert "the gradient went back through `fake` itself" in verdict.evidence, verdict.evidence


def test_a_helper_step_given_the_detached_fake_is_refuted_at_the_helper_s_backward(shapes_verified):
    verdict = _verdict(shapes_verified, "helper_step.py", "d_step(netD, optD, real, fake.detach())", "TCL003",
                       hand_made=True)
    assert verdict.status == "refuted", verdict
    assert re.search(r"the backward in `d_step\(\)` \(line \d+, called at line \d+\) ran with none of the "
                     r"generator's 4 parameters in its graph", verdict.evidence), verdict.evidence


def test_the_helper_s_backward_lines_come_from_the_context_or_the_helper_itself():
    from torchcopylint.verify.flagged import inner_backward_lines

    source = textwrap.dedent("""\
        def d_step(D, opt, real, fake):
            loss = D(real).mean() - D(fake).mean()
            loss.backward()
            opt.step()

        for real in batches:
            d_step(netD, optD, real, netG(z))
            loss.backward()
        """)
    assert inner_backward_lines(source, 7, {}) == (3,)
    assert inner_backward_lines(source, 7, {"helper_backward_line": 3}) == (3,)
    assert inner_backward_lines(source, 8, {}) == ()  # the statement runs the backward itself


# --- 2 and 7. what a top-level call passes; argparse's required options ----------------------------


def test_a_function_called_at_the_top_level_runs_with_what_the_call_passes(shapes_verified):
    verdict = _verdict(shapes_verified, "mnist_script.py", "train_loss += loss", "TCL007")
    assert verdict.status == "confirmed", verdict
    assert re.search(r"after 3 iterations `train_loss` references autograd graphs of \d+ -> \d+ -> \d+ nodes",
                     verdict.evidence), verdict.evidence
    source = shapes_verified["sources"][str(shapes_verified["project"] / "mnist_script.py")]
    call = line_of(source, "    train(model, device, train_loader, optimizer, epoch)")
    for shown in (f"the arguments the top-level call at line {call} passes", "`model`: the script's Net (",
                  "`device`: device(type='cpu')", "`train_loader`: the script's loader, on stand-in batches",
                  "`optimizer`: the script's SGD", "`epoch` = 1 (the first of `range(1, args.epochs + 1)`)",
                  "over `datasets.MNIST(...)`", "random samples 1x28x28"):
        assert shown in verdict.evidence, (shown, verdict.evidence)
    # The parser's required options, each with a value of its declared type, named.
    assert "values for the options it requires or gives none: `--data-root x`, `--lr 0.1`, `--epochs 1`, `--optimizer sgd`" \
        in verdict.evidence, verdict.evidence


def test_a_required_option_the_script_compares_with_strings_takes_the_first_of_them():
    pytest.importorskip("torch")
    import argparse

    from torchcopylint.verify import script

    source = textwrap.dedent("""\
        if args.dataset == "MNIST":
            n_z = 62
        elif args.dataset in ("SVHN", "CelebA"):
            n_z = 128
        """)
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--size", type=int, required=True)
    script.begin()
    script._log.compared = script.compared_options(source)
    # Without one, `n_z` is bound by no branch (fresh29's InfoGAN: NameError); "x" for an option it never compares.
    assert script._required_values(parser) == (["--dataset", "MNIST", "--root", "x", "--size", "1"],
                                               ["`--dataset MNIST`", "`--root x`", "`--size 1`"])
    # `--device` with no default, for `torch.device(args.device)`: the CPU. One with a default keeps it.
    parser.add_argument("--device", type=str)
    assert script._required_values(parser)[0][-2:] == ["--device", "cpu"]
    defaulted = argparse.ArgumentParser()
    defaulted.add_argument("--device", default="cuda:0")
    assert script._required_values(defaulted) == ([], [])



def test_a_number_option_with_no_default_that_the_script_never_tests_for_none_gets_one():
    # fresh107's DCGAN: `--n_epochs` and `--batch_size` of type int with no default (its README passes them),
    # then `epoch % n_epochs`: None failed the run. `--seed`, tested for None, keeps None; a string keeps it too.
    pytest.importorskip("torch")
    import argparse

    from torchcopylint.verify import script

    source = textwrap.dedent("""\
        args = vars(parser.parse_args())
        if args["seed"] is not None:
            torch.manual_seed(args["seed"])
        limit = opt.max_steps or 100
        train(args["n_epochs"], args["batch_size"])
        """)
    parser = argparse.ArgumentParser()
    for option in ("--n_epochs", "--batch_size", "--seed", "--max_steps"):
        parser.add_argument(option, type=int)
    parser.add_argument("--class_name", type=str)
    parser.add_argument("--lr", type=float, default=0.01)
    script.begin()
    script._log.none_tested = script.options_tested_for_none(source)
    assert script._required_values(parser) == (["--n_epochs", "1", "--batch_size", "4"],
                                               ["`--n_epochs 1`", "`--batch_size 4`"])


def test_an_argument_the_slice_cannot_make_is_a_stand_in_and_said(shapes_verified):
    verdict = _verdict(shapes_verified, "fallback_call.py", "total += loss", "TCL007")
    assert verdict.status == "confirmed", verdict
    source = shapes_verified["sources"][str(shapes_verified["project"] / "fallback_call.py")]
    made, skipped = line_of(source, "batches = [torch"), line_of(source, "verbose = wants_output")
    assert "`model`: the script's Sequential (41 parameter values)" in verdict.evidence, verdict.evidence
    assert f"`batches`: a list of 4 tensors (made by `batches = [torch.randn(4, 8) for _ in range(4)]` (line {made}), " \
           f"run once)" in verdict.evidence, verdict.evidence
    assert f"stand-ins for `verbose` (`verbose`: `verbose = wants_output(epoch)` (line {skipped}) calls a function " \
           f"the experiment does not run)" in verdict.evidence and "stand-ins: verbose = False" in verdict.evidence


def test_a_call_whose_values_nothing_can_make_leaves_stand_ins_and_says_why(shapes_verified):
    verdict = _verdict(shapes_verified, "fallback_call.py", "total += loss", "TCL007", occurrence=2)
    assert verdict.status == "confirmed", verdict
    source = shapes_verified["sources"][str(shapes_verified["project"] / "fallback_call.py")]
    call = line_of(source, "fit_remote(build_remote_model()")
    assert f"with stand-ins (the top-level call at line {call} passes nothing the experiment could make: `model`: " \
           f"AbsentPackageUsed: needs `experiment_tools`, which is not installed" in verdict.evidence, verdict.evidence
    assert "stand-ins: model = StandInNet(" in verdict.evidence, verdict.evidence


def test_no_loop_around_a_top_level_call_ran_and_no_file_was_written(shapes_verified):
    assert sorted(path.name for path in shapes_verified["markers"].iterdir()) == []
    assert snapshot(shapes_verified["project"]) == shapes_verified["before"]


def test_top_level_calls_say_what_each_parameter_gets_and_what_it_reads():
    from torchcopylint.verify.topcalls import top_level_calls

    source = textwrap.dedent("""\
        def train(model, loader, opt, epoch, log=None):
            pass

        def main():
            a = build()
            b = torch.randn(4, requires_grad=True)
            log = open("log.txt", "w")
            c = b * 2
            train(a, b, c, d)

        if __name__ == "__main__":
            for epoch in range(1, args.epochs + 1):
                for x, y in loader:
                    x = x.to(device)
                    flag = decide(epoch)
                    train(net, [x], optimizer, epoch, log=writer)
        """)
    site, in_main = top_level_calls(source, "train")  # the top level's call first
    assert site.arguments == (("model", "net"), ("loader", "[x]"), ("opt", "optimizer"), ("epoch", "epoch"),
                              ("log", "writer"))
    assert site.loops == (("epoch", "range(1, args.epochs + 1)"), ("(x, y)", "loader"))
    assert [(names, runnable) for names, _, _, runnable in site.before] == [(("x",), True), (("flag",), False)]
    assert site.reads == {"args", "loader", "device", "net", "optimizer", "writer"}
    # main()'s call: only what its arguments need of the body before it (not the log file), its own
    # names read from there (`d`, which it never binds, from the module).
    assert in_main.caller == "main" and in_main.described == "the call in `main()` at line 9"
    assert [(names, runnable) for names, _, _, runnable in in_main.before] == [(("a",), False), (("b",), True),
                                                                                (("c",), True)]
    assert in_main.reads == {"torch", "d"}


def test_a_function_of_the_file_that_only_computes_data_runs_for_a_call_s_arguments():
    from torchcopylint.verify.topcalls import top_level_calls

    source = textwrap.dedent("""\
        def create_data(slope, n=50):
            x = torch.randn(n, 1)
            return x, slope * x + torch.randn(n, 1) / 2

        def load_data(path):
            return torch.load(path)

        def fit(model, x, y):
            for step in range(3):
                model(x)

        def train(x, y):
            pass

        for slope in slopes:
            x, y = create_data(slope)
            a, b = load_data("data.pt")
            fit(net, a, b)
            train(x, y)
        """)
    [site] = top_level_calls(source, "train")
    # create_data computes its values (no loop, no file, no other function of the file): it runs once.
    # load_data reads a file, fit loops and trains: neither does.
    assert [(names, runnable) for names, _, _, runnable in site.before] == [
        (("x", "y"), True), (("a", "b"), False)]


def test_a_function_of_the_file_that_makes_a_loader_runs_for_a_call_s_arguments_on_stand_in_data():
    # fresh121's WGAN-GP trainer: `main(*args)` passes `loader = prepare_loader()`, whose ImageFolder and
    # DataLoader the experiment's code has on stand-ins. A maker that also loops or trains does not run.
    from torchcopylint.verify.topcalls import top_level_calls

    source = textwrap.dedent("""\
        import torch
        from torch.utils.data import DataLoader
        from torchvision import datasets, transforms

        def prepare_loader():
            transform = transforms.Compose([transforms.ToTensor()])
            data = datasets.ImageFolder(root="data/cats", transform=transform)
            return DataLoader(data, batch_size=64, shuffle=True)

        def warmed_loader(model):
            loader = DataLoader(datasets.MNIST("data"), batch_size=64)
            for x, _ in loader:
                model(x).sum().backward()
            return loader

        def train(loader, other):
            pass

        def main(*args):
            loader = prepare_loader()
            other = warmed_loader(args[0])
            train(loader, other)
        """)
    [site] = top_level_calls(source, "train")
    assert [(names, runnable) for names, _, _, runnable in site.before] == [(("loader",), True), (("other",), False)]


def test_what_a_top_level_call_reads_is_carried_but_never_a_loop_or_a_training_run():
    from torchcopylint.verify.script import function_text

    source = textwrap.dedent("""\
        import torch
        from lightning import Trainer

        def train(model, opt):
            opt.zero_grad()

        model = torch.nn.Linear(2, 2)
        unrelated = torch.zeros(3)
        trainer = Trainer()
        trainer.fit(model)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(3):
            train(model, opt)
        """)
    text = function_text(source, frozenset({"train"}), frozenset({"model", "opt"})).text
    assert "model = torch.nn.Linear(2, 2)" in text and "opt = torch.optim.SGD(" in text
    assert "trainer.fit" not in text and "for epoch" not in text and "unrelated" not in text
    assert len(text.splitlines()) == len(source.splitlines())  # line numbers kept


def test_required_options_get_values_of_their_declared_types():
    from torchcopylint.verify.script import _required_values

    parser = argparse.ArgumentParser()
    parser.add_argument("root")
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--lr", type=float, required=True)
    parser.add_argument("--mode", choices=["train", "test"], required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--flag", action="store_true", required=True)
    parser.add_argument("--optional", type=int, default=3)
    arguments, shown = _required_values(parser)
    parsed = parser.parse_args(arguments)
    assert (parsed.root, parsed.size, parsed.lr, parsed.mode, parsed.name, parsed.flag, parsed.optional) == \
        ("x", 1, 0.1, "train", "x", True, 3)
    assert shown == ["`root` = `x`", "`--size 1`", "`--lr 0.1`", "`--mode train`", "`--name x`", "`--flag`"]


# --- 3. tuples, a plain trainer class, labels ------------------------------------------------------


def test_a_trainer_that_is_no_module_with_tuple_networks_and_labels_is_confirmed(shapes_verified):
    verdict = _verdict(shapes_verified, "tuple_gan.py", "logit_fake, class_fake = self.netD(fake)", "TCL003")
    assert verdict.status == "confirmed", verdict
    assert "the gradient went back through `fake` itself" in verdict.evidence, verdict.evidence
    # The object the script builds, on the script's own networks (each returns two values); the labels, a
    # loss target and an embedding index, are classes. The evidence names what ran, not the stand-ins
    # the plan would have made for `self.netG` and `self.netD`.
    assert "the object built by its own constructor as GANTrainer(...) with the arguments the top-level call at " \
           "line 61 passes (`netG`: the script's Generator" in verdict.evidence, verdict.evidence
    assert "labels = class indices [0, 1, 2, 9]" in verdict.evidence, verdict.evidence
    assert "StandInNet" not in verdict.evidence, verdict.evidence


def test_a_block_that_returns_a_tuple_is_compared_on_all_its_outputs(shapes_verified):
    verdict = _verdict(shapes_verified, "tuple_gan.py", "shortcut = feat.clone()", "TCL001")
    assert verdict.status == "confirmed", verdict
    assert re.search(r"outputs and all \d+ gradients are bitwise equal \(input \(2, 784\)\)", verdict.evidence), \
        verdict.evidence


def test_labels_are_class_indices_where_the_code_uses_them_as_classes():
    from torchcopylint.verify.standins import plan, uses

    node = ast.parse(textwrap.dedent("""\
        def step(self, x, labels, y, c, targets, t, cls, n):
            a = F.cross_entropy(self.head(x), labels)
            b = F.mse_loss(self.head(x), y)
            e = self.label_emb(c) * x
            f = criterion(self.head(x), targets)
            g = x + t
            h = self.prototypes[cls]
            return a + b + e + f + g + h + n
        """)).body[0]
    kinds = plan(["x", "labels", "y", "c", "targets", "t", "cls", "n"], uses(node), {}, {}).kinds
    # A classification loss's target, an embedding's input, a label-named loss target, an index.
    assert kinds["labels"] == kinds["c"] == kinds["targets"] == kinds["cls"] == "labels"
    assert kinds["y"] == "tensor"  # the target of a loss of values: values, not classes
    assert kinds["t"] == "float"  # `t` added to a tensor: a number


def test_a_replay_of_networks_that_return_tuples_feeds_the_discriminator_the_image():
    import torch

    from torchcopylint.verify.callsites import first_tensor, replay
    from torchcopylint.verify.inputs import probe_input_shape

    source = (SHAPES / "tuple_gan.py").read_text(encoding="utf-8")
    namespace: dict = {"__name__": "tuple_gan"}
    exec(compile(source, str(SHAPES / "tuple_gan.py"), "exec"), namespace)  # noqa: S102 - the fixture
    plan = replay(source, namespace, "cpu", ("self.netG", "Generator", namespace["Generator"]),
                  ("self.netD", "Discriminator", namespace["Discriminator"]),
                  lambda: probe_input_shape(namespace["Generator"], "forward", "cpu"))
    generator, discriminator = namespace["Generator"](), namespace["Discriminator"]()
    arguments, keywords = plan.generator_arguments()
    output = generator(*arguments, **keywords)
    assert isinstance(output, tuple) and first_tensor(output).shape[1:] == (784,)
    arguments, keywords = plan.discriminator_arguments(first_tensor(output))
    logit = first_tensor(discriminator(*arguments, **keywords))
    logit.mean().backward()
    assert all(p.grad is not None for p in generator.net.parameters())
    assert torch.equal(first_tensor({"a": (None, torch.ones(1))}), torch.ones(1))


# --- 4. TCL007 on state kept across calls ----------------------------------------------------------


def test_state_a_module_keeps_across_calls_grows_over_three_calls(shapes_verified):
    verdict = _verdict(shapes_verified, "module_state.py", "# expect: TCL007", "TCL007")
    assert verdict.status == "confirmed", verdict
    sizes = re.search(r"after 3 calls of `forward` on the same instance, `self.avg` references autograd graphs of "
                      r"(\d+) -> (\d+) -> (\d+) nodes: every call's graph stays alive", verdict.evidence)
    assert sizes and 0 < int(sizes.group(1)) < int(sizes.group(2)) < int(sizes.group(3)), verdict.evidence


def test_state_updated_from_a_detached_mean_is_refuted_over_three_calls(shapes_verified):
    verdict = _verdict(shapes_verified, "module_state.py", "self.avg = self.avg * self.momentum + mean", "TCL007",
                       hand_made=True, occurrence=2)
    assert verdict.status == "refuted", verdict
    assert "after 3 calls of `forward` on the same instance, `self.avg` holds no growing autograd graph (nodes " \
           "after each call: 0 -> 0 -> 0)" in verdict.evidence, verdict.evidence


# --- 5. TCL012 on a comprehension handed to an optimizer -------------------------------------------


def test_a_comprehension_of_copies_is_evaluated_and_the_optimizer_refuses_it(shapes_verified):
    verdict = _verdict(shapes_verified, "comprehension.py", "opt = torch.optim.SGD(", "TCL012")
    assert verdict.status == "confirmed", verdict
    line = line_of(shapes_verified["sources"][str(shapes_verified["project"] / "comprehension.py")], "opt = torch")
    assert f"the list at line {line}, evaluated as the line began, holds 3 tensors, 3 of them not a leaf " \
           f"(is_leaf=False, grad_fn=ToCopyBackward0); line {line} raised ValueError: can't optimize a non-leaf " \
           f"Tensor" in verdict.evidence, verdict.evidence


def test_a_comprehension_copied_only_on_a_gpu_is_not_decided_on_the_cpu(shapes_verified):
    import torch

    verdict = _verdict(shapes_verified, "comprehension.py", "moved = torch.optim.SGD(", "TCL012")
    if torch.cuda.is_available():  # `dev` is the GPU there, and the copy is made
        assert verdict.status == "confirmed", verdict
    else:
        assert verdict.status == "unverified", verdict
        assert "0 of them not a leaf: on the CPU the conversion returned the leaf itself" in verdict.evidence


def test_a_comprehension_of_leaves_is_refuted(shapes_verified):
    verdict = _verdict(shapes_verified, "comprehension.py", "kept = torch.optim.SGD(", "TCL012", hand_made=True)
    assert verdict.status == "refuted", verdict
    assert "holds 3 tensors, 0 of them not a leaf: every element is a leaf (requires_grad=True), and the line ran " \
           "without the optimizer's error" in verdict.evidence, verdict.evidence


def test_a_network_built_for_large_images_gets_them_last():
    import torch
    from torch import nn

    from torchcopylint.verify.inputs import probe_input_shape

    class Halving(nn.Module):
        """Seven halvings down to 2x2, then a linear layer of that size: only 256x256 images fit."""

        def __init__(self):
            super().__init__()
            self.down = nn.Sequential(*[nn.Conv2d(3 if i == 0 else 4, 4, 4, 2, 1) for i in range(7)])
            self.head = nn.Linear(4 * 2 * 2, 1)

        def forward(self, x):
            return self.head(self.down(x).flatten(1))

    assert probe_input_shape(Halving, "forward", "cpu") == (2, 3, 256, 256)
    assert Halving()(torch.zeros(2, 3, 256, 256)).shape == (2, 1)


def test_a_recurrent_network_gets_sequences_of_its_first_layer_s_width():
    from torch import nn

    from torchcopylint.verify.inputs import probe_input_shape

    class Spectra(nn.Module):
        """80 mel bands in, read by an LSTM first (fresh92 TK1730: no common width is 80)."""

        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(input_size=80, hidden_size=16, batch_first=True)
            self.head = nn.Linear(16, 80)

        def forward(self, x):
            return self.head(self.lstm(x)[0])

    assert probe_input_shape(Spectra, "forward", "cpu") == (2, 8, 80)


@pytest.mark.parametrize("flagged", ["d_loss = D(fake).mean()", 'd_loss = nets["D"](fake).mean()'])
def test_a_loader_argument_s_batches_are_shaped_for_the_top_level_network_they_feed(shapes_verified, flagged):
    # `for real in loader: ... D(real)` with `D` (or `nets["D"]`) built at the script's top level: the
    # batches take the 4 (or 3) features that network reads, so the step runs and the claim is measured.
    verdict = _verdict(shapes_verified, "global_networks_step.py", flagged, "TCL003")
    assert verdict.status == "confirmed", verdict
    assert "changed their `.grad`" in verdict.evidence, verdict.evidence



def test_a_stand_in_network_scores_in_0_1_and_reads_any_size_attribute_of_its_input():
    # A made-up discriminator's scores go to `BCELoss`, which takes probabilities only; a made-up
    # generator's `num_latent_dims` (as `latent_dim`, `nz`) sizes the noise the code makes for it.
    torch = pytest.importorskip("torch")
    from torchcopylint.verify.standins import FEATURES, StandInNet

    discriminator = StandInNet((1,))
    scores = discriminator(torch.randn(4, 3, 8, 8) * 100)  # however large: saturated at most
    assert scores.shape == (4, 1) and bool(((scores >= 0) & (scores <= 1)).all())
    loss = torch.nn.BCELoss()(scores, torch.ones(4, 1))
    loss.backward()
    assert discriminator.linear.weight.grad is not None and "sigmoid" in discriminator.describe()
    generator = StandInNet((3, 4, 4))
    for name in ("num_latent_dims", "latent_dim", "nz", "n_z_dim"):
        assert getattr(generator, name) == FEATURES, name
    with pytest.raises(AttributeError):
        generator.num_layers  # not a size of its input


TIME_CONDITIONED_BLOCK = textwrap.dedent("""\
    import torch
    from torch import nn


    class TimeBlock(nn.Module):
        def __init__(self, channels, time_dim):
            super().__init__()
            self.conv = nn.Conv2d(channels, channels, 3, padding=1)
            self.time_adapter = nn.Sequential(nn.SiLU(), nn.Linear(time_dim, channels))

        def forward(self, x, t_embed):
            t = self.time_adapter(t_embed).unsqueeze(-1).unsqueeze(-1)
            return self.conv(x) + t
""")


def test_a_block_s_other_input_read_by_its_own_linear_layer_gets_that_layer_s_width(tmp_path):
    # A diffusion U-Net's residual block, `forward(x, t_embed, y_embed)`, called nowhere the verifier sees
    # (fresh75's sketch2image: a 0-dim zero for `t_embed` fits no `nn.Linear`, five TCL001 unverified).
    pytest.importorskip("torch")
    from torchcopylint.verify.inputs import WithZeroExtras, probe_input_shape

    block = tmp_path / "block.py"
    block.write_text(TIME_CONDITIONED_BLOCK)  # where inspect reads the forward's source
    namespace: dict = {}
    exec(compile(TIME_CONDITIONED_BLOCK, str(block), "exec"), namespace)  # noqa: S102
    found = probe_input_shape(lambda: namespace["TimeBlock"](4, 24), "forward", "cpu", extras=1)
    assert isinstance(found, WithZeroExtras) and found.widths == (24,) and found.shape[1] == 4
    assert "zeros (2, 24)" in str(found)


def test_a_network_of_no_layers_gets_the_channels_and_the_crop_its_forward_reads(tmp_path: Path, monkeypatch):
    # fresh99's grid-puzzle networks (NeuroGolf): `c9 = x[:, 9:10]`, kernels of their own, crops to
    # `[:, :, :30, :30]`; "no input shape fits Task349.forward" among the common shapes.
    import importlib

    from torchcopylint.verify.inputs import probe_input_shape, shapes_read

    (tmp_path / "grid_task.py").write_text(textwrap.dedent("""\
        import torch
        import torch.nn.functional as F
        from torch import nn


        class GridTask(nn.Module):
            def forward(self, x):
                cells = x[:, 9:10, :, :]
                spread = F.conv_transpose2d(cells, torch.ones(1, 1, 3, 3))[:, :, :30, :30]
                return cells * (spread > 0.5).float()


        class Plain(nn.Module):
            def forward(self, x):
                return x[0] * 2
        """), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("grid_task")
    assert shapes_read(module.GridTask(), "forward") == [(2, 10, 30, 30)]
    assert probe_input_shape(module.GridTask, "forward", "cpu") == (2, 10, 30, 30)
    assert shapes_read(module.Plain(), "forward") == []  # an index of the batch only: no channels read


def test_a_network_s_input_is_tried_in_the_shape_its_forward_documents(tmp_path: Path, monkeypatch):
    # fresh98's DarkNet-19: `:param x (B, 3, 416, 416)` and `skip.view(-1, 2048, 13, 13)`, which no common
    # shape fits ("no input shape fits DarkNet19.forward").
    import importlib

    from torchcopylint.verify.inputs import documented_shapes, probe_input_shape

    (tmp_path / "documented.py").write_text(textwrap.dedent("""\
        from torch import nn


        class Backbone(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 8, 3, stride=2, padding=1)

            def forward(self, x):
                '''
                :param x (B, 3, 40, 40)
                '''
                features = self.conv(x)  # (B, 8, 20, 20)
                return features.view(-1, 32, 10, 10)


        class Vague(nn.Module):
            def forward(self, x):
                '''x: (B, C, H, W)'''
                return x
        """), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("documented")
    assert documented_shapes(module.Backbone(), "forward") == [(2, 3, 40, 40), (2, 8, 20, 20)]
    assert probe_input_shape(module.Backbone, "forward", "cpu") == (2, 3, 40, 40)
    assert documented_shapes(module.Vague(), "forward") == []  # named dims only: nothing to make


def test_a_call_that_unpacks_the_parsed_options_passes_each_parameter_its_option():
    # fresh114's deep-learning course template: `kwargs = vars(args)`, then `train(**kwargs)`; a call with
    # `**` was no call site, and the stand-ins for `hidden_dims` failed where the options would have run.
    from torchcopylint.verify.topcalls import top_level_calls

    source = textwrap.dedent("""\
        def train(hidden_dims, lr, *, seed):
            pass

        if __name__ == "__main__":
            args = parser.parse_args()
            kwargs = vars(args)
            train(**kwargs)
            train(**vars(args), lr=0.5)
            train(**args.__dict__)
            train(**options)
        """)
    first, second, third = top_level_calls(source, "train")  # `**options`, unknown, is no call site
    assert first.arguments == (("hidden_dims", "args.hidden_dims"), ("lr", "args.lr"), ("seed", "args.seed"))
    assert second.arguments == (("lr", "0.5"), ("hidden_dims", "args.hidden_dims"), ("seed", "args.seed"))
    assert third.arguments == first.arguments
    # A name bound twice may be either: no call site.
    twice = top_level_calls(source.replace("    kwargs = vars(args)\n", "    kwargs = vars(args)\n    kwargs = {}\n"),
                            "train")
    assert [site.arguments for site in twice] == [second.arguments, third.arguments]


OPTIONS_UNPACKED_SCRIPT = '''\
import argparse

import torch
from torch import nn, optim


def train(hidden_dims, lr, batch_size, epochs, seed):
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(8, hidden_dims[0]), nn.ReLU(), nn.Linear(hidden_dims[0], 3))
    optimizer = optim.SGD(model.parameters(), lr=lr)
    logging = {"loss": []}
    for epoch in range(1, epochs + 1):
        epoch_loss = 0
        for _ in range(4):
            x, y = torch.randn(batch_size, 8), torch.randint(0, 3, (batch_size,))
            loss = nn.functional.cross_entropy(model(x), y)
            epoch_loss += loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        logging["loss"].append(epoch_loss / 4)
    return model, logging


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--hidden_dims", default=[128], type=int, nargs="+")
    parser.add_argument("--lr", default=0.1, type=float)
    parser.add_argument("--batch_size", default=128, type=int)
    parser.add_argument("--epochs", default=10, type=int)
    parser.add_argument("--seed", default=42, type=int)
    args = parser.parse_args()
    kwargs = vars(args)
    model, logging = train(**kwargs)
'''


def test_a_function_the_script_calls_with_its_parsed_options_unpacked_runs_on_their_defaults(tmp_path: Path):
    (tmp_path / "train_mlp.py").write_text(OPTIONS_UNPACKED_SCRIPT, encoding="utf-8")
    result = run_torchcopylint("--verify", "--output-format", "json", "--no-cache", "train_mlp.py", cwd=tmp_path,
                               timeout=600)
    records = [r for r in json.loads(result.stdout) if r["code"] == "TCL007" and r["line"] == 17]
    assert len(records) == 1, (result.stdout, result.stderr[-2000:])
    verdict = records[0]["verdict"]
    assert verdict["status"] == "confirmed", verdict
    assert "`lr` = `args.lr`: 0.1" in verdict["evidence"] and "`epochs` = `args.epochs`: 10" in verdict["evidence"]
