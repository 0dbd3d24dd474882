"""`--verify --run CMD`: observe the flagged statements while the user's own command runs.

Each test runs `python -m torchcopylint --verify --run CMD PATHS --output-format json` in a
subprocess, on a private copy of its files (examples/ or tests/data/observe/), and reads the
verdicts from the JSON on stdout; the command's own output goes to stderr, followed by
"torchcopylint: `CMD` exited with status N". Every command imports torch (several seconds
here), so the tests that can share a run do; nothing here asserts a timing
(bench/observe_overhead.py measures the overhead).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from conftest import TESTS_DATA, run_torchcopylint

pytest.importorskip("torch")

OBSERVE_DATA = TESTS_DATA / "observe"
PYTHON = shlex.quote(sys.executable)
TIMEOUT = 600  # generous: importing torch alone takes seconds on a slow disk
QUIET_ENV = {"PYTHONDONTWRITEBYTECODE": "1"}


def observe(cwd: Path, command: str, *paths: str, extra: tuple = ()):
    """Run `torchcopylint --verify --run COMMAND PATHS` in cwd: (process, {(path, line, code): verdict})."""
    result = run_torchcopylint("--verify", "--run", command, "--output-format", "json", *extra, *paths,
                               cwd=cwd, env=QUIET_ENV, timeout=TIMEOUT)
    assert result.returncode in (0, 1), result.stderr
    try:
        records = json.loads(result.stdout)
    except ValueError:
        pytest.fail(f"stdout is not JSON:\n{result.stdout}\nstderr:\n{result.stderr}")
    verdicts = {(r["path"], r["line"], r["code"]): r["verdict"] for r in records}
    return result, verdicts


def exit_line(command: str, status: int) -> str:
    return f"torchcopylint: `{command}` exited with status {status}"


def marked_line(path: Path, code: str) -> int:
    """The line of `path` whose `# expect:` marker names `code` (the examples mark each diagnosis)."""
    lines = [number for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"#\s*expect:.*\b" + code + r"\b", text)]
    assert len(lines) == 1, (path, code, lines)
    return lines[0]


def executions(evidence: str) -> int:
    match = re.search(r"\((?:\d+ of )?(\d+) execution\(s\) observed\)", evidence)
    assert match, evidence
    return int(match.group(1))


@pytest.fixture
def observe_copy(tmp_path: Path) -> Path:
    """A private copy of tests/data/observe (the commands run there)."""
    target = tmp_path / "observe"
    shutil.copytree(OBSERVE_DATA, target)
    return target


# ---------------------------------------------------------------------------- the examples


def test_dcgan_run_confirms_tcl003_with_the_generator_parameter_count(examples_copy):
    command = f"{PYTHON} train/dcgan.py"
    result, verdicts = observe(examples_copy, command, "train/dcgan.py")

    assert result.returncode == 1, result.stderr  # the finding is confirmed, so it still counts
    assert "[2/2] loss_D" in result.stderr, result.stderr  # the training ran to its end
    assert exit_line(command, 0) in result.stderr
    key = ("train/dcgan.py", marked_line(examples_copy / "train" / "dcgan.py", "TCL003"), "TCL003")
    assert list(verdicts) == [key]
    verdict = verdicts[key]
    assert verdict["status"] == "confirmed", verdict
    # The generator has 10 parameters: 4 ConvTranspose2d weights (no bias) and 3 BatchNorm2d
    # weights and biases; 58,336 float32 values = 233,344 bytes of gradients.
    assert re.search(r"\b10 generator parameters \(233,344 bytes of gradients\)", verdict["evidence"]), verdict
    assert executions(verdict["evidence"]) == 2  # two iterations, each a discriminator step


def test_pytest_run_confirms_the_residual_findings(examples_copy):
    command = f"{PYTHON} -m pytest examples/tests -q -p no:cacheprovider"
    result, verdicts = observe(examples_copy.parent, command, "examples/models/resnet_blocks.py")

    assert exit_line(command, 0) in result.stderr, result.stderr
    assert re.search(r"\b\d+ passed\b", result.stderr), result.stderr
    blocks = "examples/models/resnet_blocks.py"
    source = (examples_copy / "models" / "resnet_blocks.py").read_text(encoding="utf-8").splitlines()
    clone = marked_line(examples_copy / "models" / "resnet_blocks.py", "TCL001")
    aliases = [number for number, text in enumerate(source, 1) if re.search(r"#\s*expect:\s*TCL002\b", text)]
    assert len(aliases) == 2  # PreActAliasBlock and PreActSequentialBlock
    assert set(verdicts) == {(blocks, clone, "TCL001"), *((blocks, line, "TCL002") for line in aliases)}
    for key, verdict in verdicts.items():
        assert verdict["status"] == "confirmed", (key, verdict)
        assert executions(verdict["evidence"]) >= 1
    assert "neither the source nor the copy was written" in verdicts[blocks, clone, "TCL001"]["evidence"]
    for line in aliases:
        assert "the storage was written in place before the read" in verdicts[blocks, line, "TCL002"]["evidence"]


# ---------------------------------------------------------------------------- processes and probes


def test_grandchild_process_is_observed_and_an_uncalled_function_is_not_reached(observe_copy):
    # spawner.py (no torch) starts `python -c "import worker_module; ..."`: a grandchild of torchcopylint.
    command = f"{PYTHON} spawner.py"
    result, verdicts = observe(observe_copy, command, "worker_module.py")

    assert "worker: [2.0, 2.0, 2.0]" in result.stderr, result.stderr
    assert exit_line(command, 0) in result.stderr
    used = verdicts["worker_module.py", 7, "TCL005"]
    assert used["status"] == "confirmed", used
    assert "CloneBackward" in used["evidence"] and executions(used["evidence"]) == 1
    never = verdicts["worker_module.py", 11, "TCL008"]
    assert never == {"status": "not reached", "evidence": "the flagged line never ran"}


def test_a_probe_that_fails_inside_leaves_the_program_alone(observe_copy):
    command = f"{PYTHON} not_a_tensor.py"
    result, verdicts = observe(observe_copy, command, "not_a_tensor.py")

    # The program's output is complete and its status is 0.
    assert "block: [3, 6, 9]\ntensor: [1.0, 2.0]\ndone\n" in result.stderr, result.stderr
    assert exit_line(command, 0) in result.stderr
    # The TCL001 probe met a Box (no `_version`): it failed inside, so the diagnosis stays undecided.
    clone = verdicts["not_a_tensor.py", 34, "TCL001"]
    assert clone["status"] == "unverified", clone
    assert "AttributeError" in clone["evidence"] and "_version" in clone["evidence"], clone
    # `torch.tensor(t)` got a list: the diagnosis is refuted, and a refuted finding does not fail the run...
    copy = verdicts["not_a_tensor.py", 41, "TCL008"]
    assert copy["status"] == "refuted" and "`t` is a list" in copy["evidence"], copy
    # ...but the unverified one does.
    assert result.returncode == 1


def test_a_program_that_exits_non_zero(observe_copy):
    command = f"{PYTHON} exits.py"
    result, verdicts = observe(observe_copy, command, "exits.py")

    assert exit_line(command, 3) in result.stderr, result.stderr
    assert "first: [1.0, 1.0, 1.0]" in result.stderr and "second:" not in result.stderr
    # What ran before the exit is still reported; the line after it never ran.
    assert verdicts["exits.py", 13, "TCL008"]["status"] == "confirmed"
    assert verdicts["exits.py", 17, "TCL005"] == {"status": "not reached", "evidence": "the flagged line never ran"}


def test_a_statement_in_a_loop_is_judged_on_every_execution(observe_copy):
    command = f"{PYTHON} loop.py 1000"
    result, verdicts = observe(observe_copy, command, "loop.py")

    assert "copies: 1000, total: 6000.0" in result.stderr, result.stderr
    assert exit_line(command, 0) in result.stderr
    verdict = verdicts["loop.py", 17, "TCL008"]
    assert verdict["status"] == "confirmed", verdict
    assert executions(verdict["evidence"]) == 1000, verdict


def test_run_needs_verify(tmp_path):
    result = run_torchcopylint("--run", "true", str(tmp_path), cwd=tmp_path)
    assert result.returncode == 2
    assert "--run needs --verify" in result.stderr


# ---------------------------------------------------------------------------- rewriting (in process)


def test_rewrite_keeps_lines_with_form_feeds_and_other_separators():
    from torchcopylint.verify.rewrite import ProbePoint, rewrite

    # \f, \v, \x1c and \x85 are line separators for str.splitlines(), never for Python's tokenizer.
    source = "import torch\n\f\ns = 'a\x1cb\x85c\vd'\n# \x1c \u2028\n\ndef f(t):\n    return torch.tensor(t)\n"
    text, unplaced = rewrite(source, [ProbePoint(0, 7, "before")])
    assert unplaced == []
    compile(text, "<rewritten>", "exec")
    assert text.split("\n")[6] == "    __tcl_probe__.before(0, locals()); return torch.tensor(t)"
    assert len(text.split("\n")) == len(source.split("\n"))


# ---------------------------------------------------------------------------- fixed and known bugs

BOM_MODULE = (b"\xef\xbb\xbf\"\"\"A module with a BOM and a form feed, run with `python -m`.\"\"\"\n"
              b"import torch\n"
              b"\x0c\n"
              b"def copy_of(t: torch.Tensor) -> torch.Tensor:\n"
              b"    return torch.tensor(t)\n"
              b"\n"
              b"\n"
              b"if __name__ == \"__main__\":\n"
              b"    print(\"bom module:\", copy_of(torch.ones(2)).tolist())\n")


@pytest.fixture(scope="module")
def issues_run(tmp_path_factory):
    """One observed run shared by the tests below: three commands, one torchcopylint."""
    directory = tmp_path_factory.mktemp("issues")
    for name in ("known_issues.py", "check_flagged_in_test.py"):
        shutil.copy(OBSERVE_DATA / name, directory / name)
    (directory / "bom_pkg").mkdir()
    (directory / "bom_pkg" / "__init__.py").write_text("")
    (directory / "bom_pkg" / "bom_module.py").write_bytes(BOM_MODULE)
    command = "; ".join([f"{PYTHON} -m bom_pkg.bom_module", f"{PYTHON} known_issues.py",
                         f"{PYTHON} -m pytest -q -p no:cacheprovider check_flagged_in_test.py"])
    return observe(directory, command, "bom_pkg/bom_module.py", "known_issues.py", "check_flagged_in_test.py")


def test_module_run_with_dash_m_and_a_bom_is_observed(issues_run):
    # Fixed: the probe name was only defined by exec_module (runpy does not call it): NameError in the
    # user's program; a BOM or a form feed made the rewritten file a SyntaxError.
    result, verdicts = issues_run
    assert "bom module: [1.0, 1.0]" in result.stderr, result.stderr
    assert "NameError" not in result.stderr and "SyntaxError" not in result.stderr
    verdict = verdicts["bom_pkg/bom_module.py", 5, "TCL008"]
    assert verdict["status"] == "confirmed", verdict


def test_known_issues_program_still_runs_to_its_end(issues_run):
    result, _ = issues_run
    assert "worker exit code: 0" in result.stderr and "stacked: [[2.0, 2.0]]" in result.stderr
    assert "done" in result.stderr and "1 passed" in result.stderr, result.stderr


def test_probes_do_not_evaluate_calls_again(issues_run):
    result, _ = issues_run
    assert "rng intact: True" in result.stderr, result.stderr


def test_forked_child_is_observed(issues_run):
    _, verdicts = issues_run
    assert verdicts["known_issues.py", 19, "TCL008"]["status"] == "confirmed"


def test_read_on_a_continuation_line_is_probed(issues_run):
    _, verdicts = issues_run
    assert verdicts["known_issues.py", 27, "TCL002"]["status"] == "confirmed"


def test_refuted_clone_shows_the_refuting_evidence(issues_run):
    _, verdicts = issues_run
    verdict = verdicts["known_issues.py", 40, "TCL001"]
    assert verdict["status"] == "refuted", verdict
    assert "the source was written in place" in verdict["evidence"], verdict


def test_flagged_line_in_a_pytest_test_module_is_said_to_be_out_of_reach(issues_run):
    # pytest's assertion rewriter imports test modules itself; the verdict says so instead of
    # claiming the line never ran.
    _, verdicts = issues_run
    verdict = verdicts["check_flagged_in_test.py", 11, "TCL008"]
    assert verdict["status"] == "unverified", verdict
    assert "pytest loads test modules" in verdict["evidence"], verdict


def test_a_detached_alias_written_after_its_name_was_rebound_is_refuted_under_run(tmp_path):
    torch = pytest.importorskip("torch")
    from torchcopylint.verify.probes import ProbeRuntime

    plan = {"probes": {"1": {"diagnosis": 0, "role": "detached_made", "source": "lolip"},
                       "2": {"diagnosis": 0, "role": "detached_written", "source": "lolip"}},
            "diagnoses": {"0": {}}}
    for rebound, status in ((True, "refuted"), (False, "confirmed")):
        probes = ProbeRuntime(plan, str(tmp_path))
        lolip = torch.ones(4)
        probes.after(1, {"lolip": lolip})
        best = lolip.detach()  # noqa: TCL006 - the write through it is what the probe watches
        history = [lolip]  # noqa: TCL002 - the first restart's tensor lives on (a list of results keeps it)
        if rebound:
            lolip = torch.full((4,), 2.0)  # the next restart's value, which the code reads
        best[1:] = 0.0  # the write through the alias, into the first restart's tensor
        probes.after(2, {"lolip": lolip})
        observation = probes.observations["0"]
        assert observation[status] == 1 and observation["confirmed" if rebound else "refuted"] == 0, observation
        assert history[0][1:].eq(0).all()  # the write did change the first restart's tensor
