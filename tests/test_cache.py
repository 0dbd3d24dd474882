"""The results cache: layout, hits, and that a changed file, selection or version invalidates what it must."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from conftest import CLONE_DETACH, CLONE_DETACH_FIXED, write
from torchcopylint import cache as cache_module
from torchcopylint import engine
from torchcopylint.config import Settings
from torchcopylint.engine import lint_paths

CLEAN = "import torch\n\n\ndef f(x):\n    return x + 1\n"
LEAF = "import torch\n\n\ndef f():\n    w = torch.ones(3, requires_grad=True)\n    w.add_(1)\n    return w\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path / "pkg" / "a.py", CLONE_DETACH)
    write(tmp_path / "pkg" / "b.py", CLEAN)
    write(tmp_path / "pkg" / "c.py", LEAF)
    write(tmp_path / "pkg" / "same_as_a.py", CLONE_DETACH)
    return tmp_path


@pytest.fixture
def linted(monkeypatch):
    """Records the path of every file actually linted (not answered from the cache)."""
    paths: list[str] = []
    original = engine.lint_task

    def counting(path, codes, prefilter=True):
        paths.append(Path(path).name)
        return original(path, codes, prefilter)

    monkeypatch.setattr(engine, "lint_task", counting)
    return paths


def _settings(root: Path, **changes) -> Settings:
    settings = Settings(root=root, respect_gitignore=False)
    for key, value in changes.items():
        setattr(settings, key, value)
    return settings


def _run(root: Path, settings: Settings = None, **options):
    options.setdefault("cache", True)
    options.setdefault("jobs", 1)
    return lint_paths([str(root / "pkg")], settings or _settings(root), **options)


def _view(run):
    return [d.to_dict() for d in run.diagnostics], dict(run.sources), run.files_checked


def _age(path: Path, seconds: float = 3600) -> None:
    """Make the file's mtime old, as for a file not touched in the last hour."""
    stamp = time.time() - seconds
    os.utime(path, (stamp, stamp))


def _age_all(root: Path) -> None:
    for path in (root / "pkg").rglob("*.py"):
        _age(path)


# ------------------------------------------------------------------ layout


def test_cache_directory_layout(project):
    _run(project)
    directory = project / ".torchcopylint_cache"
    assert (directory / ".gitignore").read_text().splitlines()[-1] == "*"
    tag = (directory / "CACHEDIR.TAG").read_text()
    assert tag.startswith("Signature: 8a477f597d28d172789f06886806bc55")
    indexes = list(directory.glob("*/results-*.json"))
    assert len(indexes) == 1 and indexes[0].parent.name == cache_module.__version__
    data = json.loads(indexes[0].read_text())
    assert data["format"] == cache_module.FORMAT
    assert len(data["files"]) == 4


def test_no_cache_writes_nothing(project):
    _run(project, cache=False)
    assert not (project / ".torchcopylint_cache").exists()


def test_cache_dir_option(project, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "cache"
    _run(project, cache_dir=elsewhere)
    assert (elsewhere / "CACHEDIR.TAG").is_file()
    assert not (project / ".torchcopylint_cache").exists()


# ------------------------------------------------------------------ hits


def test_warm_run_lints_nothing_and_says_the_same(project, linted, monkeypatch):
    _age_all(project)
    cold = _run(project)
    assert sorted(linted) == ["a.py", "b.py", "c.py", "same_as_a.py"]
    linted.clear()

    def no_parse(*args, **kwargs):
        raise AssertionError("a warm run must not parse")

    monkeypatch.setattr(engine.cst, "parse_module", no_parse)
    warm = _run(project)
    assert linted == []
    assert warm.files_cached == 4
    assert _view(warm) == _view(cold)
    assert set(warm.sources) == {str(project / "pkg" / "a.py"), str(project / "pkg" / "c.py"),
                                 str(project / "pkg" / "same_as_a.py")}


def test_warm_run_without_pool(project, monkeypatch):
    """Everything cached: no process pool is started, whatever --jobs says."""
    _run(project)
    from torchcopylint import parallel

    def no_pool(*args, **kwargs):
        raise AssertionError("no pool for a fully cached run")

    monkeypatch.setattr(parallel, "run", no_pool)
    assert _run(project, jobs=4).files_cached == 4


def test_paths_are_those_of_this_run(project):
    """An entry stores no path: the one the file is reached by now is put back."""
    _run(project)
    os.chdir(project)
    run = lint_paths(["pkg"], _settings(project), cache=True, jobs=1)
    assert run.files_cached == 4
    assert {d.path for d in run.diagnostics} == {os.path.join("pkg", name) for name in ("a.py", "c.py", "same_as_a.py")}
    assert set(run.sources) == {d.path for d in run.diagnostics}


def test_written_only_when_something_changed(project):
    _age_all(project)
    _run(project)
    index = next((project / ".torchcopylint_cache").glob("*/results-*.json"))
    stamp = index.stat().st_mtime_ns
    _run(project)  # stat-trusted hits: nothing to record
    assert index.stat().st_mtime_ns == stamp


# ------------------------------------------------------------------ invalidation


def test_edited_file_is_linted_again_alone(project, linted):
    _age_all(project)
    _run(project)
    linted.clear()
    write(project / "pkg" / "b.py", CLEAN + "# edited\n")
    run = _run(project)
    assert linted == ["b.py"]
    assert run.files_cached == 3


def test_edit_that_keeps_size_and_mtime_is_seen_when_racy(project, linted):
    """Written just before it was linted, a file's stat is not trusted: an edit of the same
    size within the same mtime is still caught by the content digest."""
    path = project / "pkg" / "b.py"
    _run(project)  # b.py was written just now: racy
    linted.clear()
    status = path.stat()
    path.write_text(CLEAN.replace("x + 1", "x + 2"), encoding="utf-8")
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
    _run(project)
    assert linted == ["b.py"]


def test_touched_file_is_a_hit(project, linted):
    _age_all(project)
    _run(project)
    linted.clear()
    os.utime(project / "pkg" / "a.py")  # a new mtime, the same bytes
    run = _run(project)
    assert linted == []
    assert run.files_cached == 4


def test_changed_selection_invalidates(project, linted):
    _age_all(project)
    _run(project)
    linted.clear()
    narrow = _run(project, _settings(project, select=["TCL005"]))
    assert sorted(linted) == ["a.py", "b.py", "c.py", "same_as_a.py"]
    assert {d.code for d in narrow.diagnostics} == {"TCL005"}
    linted.clear()
    # Each selection keeps its own index: going back to the default is still warm.
    assert _run(project).files_cached == 4
    assert linted == []


def test_per_file_ignores_invalidate_that_file_only(project, linted):
    _age_all(project)
    settings = _settings(project)
    _run(project, settings)
    linted.clear()
    settings = _settings(project, per_file_ignores={"pkg/c.py": ["TCL004"]})
    run = _run(project, settings)
    assert linted == ["c.py"]
    assert "TCL004" not in {d.code for d in run.diagnostics}


def test_prefilter_setting_is_part_of_the_key(project, linted):
    _run(project)
    linted.clear()
    _run(project, prefilter=False)
    assert len(linted) == 4


def test_new_version_invalidates(project, linted, monkeypatch):
    _age_all(project)
    _run(project)
    linted.clear()
    monkeypatch.setattr(cache_module, "_fingerprint", None)
    monkeypatch.setattr(cache_module, "__version__", "99.0.0")
    run = _run(project)
    assert len(linted) == 4 and run.files_cached == 0
    assert list((project / ".torchcopylint_cache").glob("99.0.0/results-*.json"))


def test_edited_linter_source_invalidates(project, linted, monkeypatch):
    """In a checkout the version stays put while rules change: the fingerprint catches it."""
    _age_all(project)
    _run(project)
    linted.clear()
    monkeypatch.setattr(cache_module, "_fingerprint", "0.1.0+another-checkout")
    assert _run(project).files_cached == 0
    assert len(linted) == 4


def test_deleted_file_is_forgotten(project):
    _run(project)
    (project / "pkg" / "b.py").unlink()
    write(project / "pkg" / "d.py", CLEAN)
    _run(project)
    index = next((project / ".torchcopylint_cache").glob("*/results-*.json"))
    names = {Path(path).name for path in json.loads(index.read_text())["files"]}
    assert names == {"a.py", "c.py", "d.py", "same_as_a.py"}


# ------------------------------------------------------------------ robustness


def test_corrupt_index_is_ignored(project, linted):
    _run(project)
    index = next((project / ".torchcopylint_cache").glob("*/results-*.json"))
    index.write_text("{not json")
    linted.clear()
    run = _run(project)
    assert len(linted) == 4 and run.files_cached == 0
    assert json.loads(index.read_text())["files"]


def test_malformed_entries_are_misses(project, linted):
    _run(project)
    index = next((project / ".torchcopylint_cache").glob("*/results-*.json"))
    data = json.loads(index.read_text())
    for key in data["files"]:
        data["files"][key] = ["short"]
    index.write_text(json.dumps(data))
    linted.clear()
    _run(project)
    assert len(linted) == 4


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs permissions that root ignores")
def test_unwritable_cache_does_not_fail_the_run(project):
    directory = project / ".torchcopylint_cache"
    directory.mkdir()
    directory.chmod(0o500)
    try:
        run = _run(project)
    finally:
        directory.chmod(0o700)
    assert run.diagnostics and not run.internal_errors


def test_unwritable_cache_location_does_not_fail_the_run(project):
    blocker = write(project / "not-a-directory", "")
    run = _run(project, cache_dir=blocker / "cache")
    assert run.diagnostics and not run.internal_errors


def test_internal_errors_are_not_cached(project, monkeypatch):
    from torchcopylint.rules import ALL_RULES

    rule = next(rule for rule in ALL_RULES if rule.code == "TCL005")

    def broken(facts):
        raise ValueError("boom")

    monkeypatch.setattr(rule, "check", broken, raising=False)
    first = _run(project)
    second = _run(project)
    # a.py, same_as_a.py and c.py pass the prefilter, so every selected rule runs on them.
    assert len(first.internal_errors) == len(second.internal_errors) == 3


# ------------------------------------------------------------------ the command line


def test_fix_works_from_cached_results(project, cli, monkeypatch):
    monkeypatch.chdir(project)
    _age_all(project)
    assert cli("check", "pkg").exit_code == 1
    assert (project / ".torchcopylint_cache").is_dir()
    result = cli("check", "--fix", "pkg")
    assert (project / "pkg" / "a.py").read_text() == CLONE_DETACH_FIXED
    assert (project / "pkg" / "same_as_a.py").read_text() == CLONE_DETACH_FIXED
    assert "TCL004" in result.stdout and "TCL005" not in result.stdout
    # The fixed files are linted afresh on the next run.
    after = cli("check", "pkg")
    assert "TCL005" not in after.stdout and "TCL004" in after.stdout


def test_cli_cache_options(project, cli, monkeypatch, tmp_path_factory):
    monkeypatch.chdir(project)
    first = cli("check", "--no-cache", "pkg")
    assert not (project / ".torchcopylint_cache").exists()
    elsewhere = tmp_path_factory.mktemp("cli-cache") / "c"
    second = cli("check", "--cache-dir", str(elsewhere), "pkg")
    assert (elsewhere / "CACHEDIR.TAG").is_file() and not (project / ".torchcopylint_cache").exists()
    third = cli("check", "--cache-dir", str(elsewhere), "pkg")
    assert first.stdout == second.stdout == third.stdout
    assert first.exit_code == second.exit_code == third.exit_code == 1


def test_cli_cache_dir_from_the_environment(project, cli, monkeypatch, tmp_path_factory):
    monkeypatch.chdir(project)
    elsewhere = tmp_path_factory.mktemp("env-cache") / "c"
    monkeypatch.setenv("TORCHCOPYLINT_CACHE_DIR", str(elsewhere))
    cli("check", "pkg")
    assert (elsewhere / "CACHEDIR.TAG").is_file()


def test_cache_at_the_configured_root(tmp_path, cli, monkeypatch):
    write(tmp_path / "pyproject.toml", "[tool.torchcopylint]\n")
    write(tmp_path / "src" / "a.py", CLONE_DETACH)
    monkeypatch.chdir(tmp_path / "src")
    cli("check", ".")
    assert (tmp_path / ".torchcopylint_cache").is_dir()
    assert not (tmp_path / "src" / ".torchcopylint_cache").exists()


def test_overlapping_runs_keep_each_others_entries(project):
    """Two runs that read the index before either saved (pre-commit batches) lose nothing."""
    settings = _settings(project)
    namespace = engine._cache_namespace([rule.code for rule in engine.select_rules(settings)], True)
    directory = project / ".torchcopylint_cache"
    first = cache_module.Cache(directory, project, namespace)
    second = cache_module.Cache(directory, project, namespace)
    first.store("/x/one.py", "k", "d1", 1, 1, 10**19, [])
    second.store("/x/two.py", "k", "d2", 1, 1, 10**19, [])
    assert first.save() and second.save()
    assert set(cache_module.Cache(directory, project, namespace).entries) == {"/x/one.py", "/x/two.py"}


def test_index_of_another_version_is_replaced(project, monkeypatch):
    _run(project)
    index = next((project / ".torchcopylint_cache").glob("*/results-*.json"))
    data = json.loads(index.read_text())
    data["fingerprint"] = "0.0.1+old"
    data["files"]["/old/file.py"] = ["d", "k", 1, 1, 1, [], False]
    index.write_text(json.dumps(data))
    _run(project)
    files = json.loads(index.read_text())["files"]
    assert "/old/file.py" not in files and len(files) == 4
