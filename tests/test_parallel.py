"""Linting in a process pool: the same output as in-process, in the same order, and a run that survives
workers that raise or die."""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from conftest import CLONE_DETACH, EXAMPLES, write
from torchcopylint import engine, parallel
from torchcopylint.config import Settings
from torchcopylint.engine import lint_paths

LEAF = "import torch\n\n\ndef f():\n    w = torch.ones(3, requires_grad=True)\n    w.add_(1)\n    return w\n"
needs_fork = pytest.mark.skipif(parallel._context().get_start_method() != "fork",
                                reason="the test patches the worker's code, which only fork carries over")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """Forty files of assorted sizes and findings, and the examples."""
    for index in range(40):
        body = [CLONE_DETACH, LEAF, "import torch\n\n\ndef f(x):\n    return x + 1\n"][index % 3]
        padding = "".join(f"# line {n}\n" for n in range(index * 37 % 400))
        write(tmp_path / "tree" / f"d{index % 4}" / f"m{index:02d}.py", padding + body)
    return tmp_path


@pytest.fixture
def always_pool(monkeypatch):
    monkeypatch.setattr(engine, "POOL_MIN_BYTES", 0)
    monkeypatch.setattr(engine, "POOL_MIN_FILES", 2)


def _lint(paths, root: Path, jobs: int):
    run = lint_paths([str(path) for path in paths], Settings(root=root, respect_gitignore=False), jobs=jobs)
    return run


def _view(run):
    return [d.to_dict() for d in run.diagnostics], run.sources, run.internal_errors, run.files_checked, \
        run.files_skipped


def test_pool_output_equals_in_process(tree, always_pool):
    paths = [tree / "tree", EXAMPLES]
    serial = _lint(paths, tree, jobs=1)
    pooled = _lint(paths, tree, jobs=2)
    assert serial.diagnostics and serial.sources
    assert _view(pooled) == _view(serial)


def test_order_is_sorted_and_stable(tree, always_pool):
    runs = [_view(_lint([tree / "tree"], tree, jobs=jobs)) for jobs in (3, 2, 3)]
    assert runs[0] == runs[1] == runs[2]
    keys = [(d["location"]["path"], d["location"]["line"], d["location"]["column"], d["code"]) for d in runs[0][0]]
    assert keys == sorted(keys)


def test_pool_is_used_and_workers_are_other_processes(tree):
    tasks = [(str(path), path.stat().st_size) for path in sorted((tree / "tree").rglob("*.py"))]
    results = list(parallel.run(tasks, _pids, 2, crashed=lambda task: None))
    assert sorted(path for path, _pid in results) == sorted(task[0] for task in tasks)
    assert os.getpid() not in {pid for _path, pid in results}


def _pids(chunk, options):
    return [(task[0], os.getpid()) for task in chunk]


def test_small_runs_stay_in_process(tree, monkeypatch):
    def no_pool(*args, **kwargs):
        raise AssertionError("a single small file needs no pool")

    monkeypatch.setattr(parallel, "run", no_pool)
    path = tree / "tree" / "d0" / "m00.py"
    assert _lint([path], tree, jobs=8).files_checked == 1


def test_chunks_biggest_first_and_bounded():
    tasks = [(f"f{index}.py", size) for index, size in enumerate([10, 500_000, 30, 70_000, 9, 1, 300] * 20)]
    chunks = parallel.chunked(tasks, 2)
    flat = [task for chunk in chunks for task in chunk]
    assert sorted(flat) == sorted(tasks)
    assert [task[1] for task in flat] == sorted((task[1] for task in tasks), reverse=True)
    for chunk in chunks:
        assert 1 <= len(chunk) <= parallel.CHUNK_FILES
        assert len(chunk) == 1 or sum(task[1] for task in chunk) <= parallel.CHUNK_BYTES
    assert len(chunks) >= 8


def test_default_jobs_is_the_cpu_count():
    assert parallel.default_jobs() >= 1
    if hasattr(os, "sched_getaffinity"):
        assert parallel.default_jobs() == len(os.sched_getaffinity(0))


@pytest.mark.parametrize("jobs", [1, 2])
def test_internal_error_in_a_worker_is_reported(tree, always_pool, monkeypatch, jobs):
    from torchcopylint.rules import ALL_RULES

    rule = next(rule for rule in ALL_RULES if rule.code == "TCL005")
    original = rule.check

    def fragile(facts):
        if facts.path.endswith("m03.py"):
            raise ValueError("boom")
        return original(facts)

    monkeypatch.setattr(rule, "check", fragile, raising=False)
    run = _lint([tree / "tree"], tree, jobs=jobs)
    assert len(run.internal_errors) == 1
    assert "m03.py" in run.internal_errors[0] and "ValueError: boom" in run.internal_errors[0]
    assert run.files_checked == 40
    assert {Path(d.path).name for d in run.diagnostics if d.code == "TCL005"} >= {"m00.py", "m06.py"}


@needs_fork
@pytest.mark.parametrize("how", ["exit", "segfault"])
def test_worker_that_dies_is_reported_and_the_run_goes_on(tree, always_pool, monkeypatch, how):
    original = engine.lint_task

    def deadly(path, codes, prefilter=True):
        if path.endswith("m04.py"):
            if how == "exit":
                os._exit(3)
            faulthandler.disable()  # pytest's would print the worker's stack
            os.kill(os.getpid(), signal.SIGSEGV)
        return original(path, codes, prefilter)

    monkeypatch.setattr(engine, "lint_task", deadly)
    started = time.monotonic()
    run = _lint([tree / "tree"], tree, jobs=2)
    assert time.monotonic() - started < 120
    assert len(run.internal_errors) == 1 and "m04.py" in run.internal_errors[0]
    assert "died" in run.internal_errors[0]
    monkeypatch.setattr(engine, "lint_task", original)
    healthy = _lint([tree / "tree"], tree, jobs=1)
    assert [d for d in healthy.diagnostics if not d.path.endswith("m04.py")] == run.diagnostics


def test_cli_jobs_give_the_same_output(tree, cli, monkeypatch, always_pool):
    monkeypatch.chdir(tree)
    serial = cli("check", "--no-cache", "-j", "1", "tree")
    pooled = cli("check", "--no-cache", "--jobs", "2", "tree")
    auto = cli("check", "--no-cache", "-j", "0", "tree")
    assert serial.exit_code == pooled.exit_code == auto.exit_code == 1
    assert serial.stdout == pooled.stdout == auto.stdout


def test_cli_rejects_negative_jobs(cli):
    result = cli("check", "-j", "-1", str(EXAMPLES))
    assert result.exit_code == 2


# ------------------------------------------------------------------ the progress bar


class _Terminal:
    def __init__(self):
        self.parts = []

    def isatty(self):
        return True

    def write(self, text):
        self.parts.append(text)

    def flush(self):
        pass


def test_progress_bar_on_a_terminal_for_long_runs(tree, monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr(engine, "PROGRESS_MIN_FILES", 10)
    lint_paths([str(tree / "tree")], Settings(root=tree, respect_gitignore=False), jobs=1, progress=True)
    assert "Linting" in "".join(terminal.parts)


def test_no_progress_bar_for_short_runs_or_pipes(tree, monkeypatch, capsys):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    lint_paths([str(tree / "tree")], Settings(root=tree, respect_gitignore=False), jobs=1, progress=True)
    assert terminal.parts == []  # 40 small files: not a long run
    monkeypatch.undo()
    monkeypatch.setattr(engine, "PROGRESS_MIN_FILES", 1)
    lint_paths([str(tree / "tree")], Settings(root=tree, respect_gitignore=False), jobs=1, progress=True)
    assert capsys.readouterr().err == ""  # not a terminal
