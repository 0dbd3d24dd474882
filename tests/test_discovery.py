"""Which files are linted: recursion, default excludes, .gitignore, files and directories named explicitly."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import CLONE_DETACH, write

from torchcopylint.config import Settings, load_settings
from torchcopylint.discovery import discover


def found(root: Path, *paths: str, force_exclude: bool = False, settings: Settings = None) -> list[str]:
    settings = settings or load_settings(None, root)
    result = discover([str(root / p) for p in paths] or [str(root)], settings, force_exclude=force_exclude)
    return sorted(Path(f).resolve().relative_to(root.resolve()).as_posix() for f in result.files)


@pytest.fixture
def tree(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in ("a.py", "pkg/b.py", "pkg/stubs.pyi", "pkg/deep/c.py", "notes.txt", "script", "pkg/data.json"):
        write(tmp_path / name, CLONE_DETACH)
    return tmp_path


def test_recursive_py_and_pyi(tree: Path):
    assert found(tree) == ["a.py", "pkg/b.py", "pkg/deep/c.py", "pkg/stubs.pyi"]


@pytest.mark.parametrize(
    "directory",
    [".git", ".venv", "venv", "env", "build", "dist", "__pycache__", "site-packages", ".tox", "node_modules",
     "demo.egg-info", ".mypy_cache", "pkg/build", "pkg/.venv/lib/python3.11/site-packages",
     "notebooks/.ipynb_checkpoints", ".history/attacks"],
)
def test_default_excludes(tree: Path, directory: str):
    write(tree / directory / "hidden.py", CLONE_DETACH)
    assert found(tree) == ["a.py", "pkg/b.py", "pkg/deep/c.py", "pkg/stubs.pyi"]


def test_a_file_named_explicitly_is_linted_whatever_its_suffix(tree: Path):
    assert found(tree, "script") == ["script"]


def test_an_excluded_directory_named_explicitly_is_linted(tree: Path):
    write(tree / "build" / "gen.py", CLONE_DETACH)
    write(tree / "build" / "sub" / "more.py", CLONE_DETACH)
    write(tree / "build" / "sub" / "venv" / "skip.py", CLONE_DETACH)  # excluded below the named directory
    assert found(tree, "build") == ["build/gen.py", "build/sub/more.py"]
    assert found(tree, "build/sub") == ["build/sub/more.py"]


def test_an_extend_excluded_directory_named_explicitly_is_linted(tree: Path):
    # As in this repository: extend-exclude = ["examples"], and `torchcopylint examples/` lints them.
    write(tree / "pyproject.toml", '[tool.torchcopylint]\nextend-exclude = ["examples", "pkg/deep"]\n')
    write(tree / "examples" / "models" / "m.py", CLONE_DETACH)
    assert found(tree) == ["a.py", "pkg/b.py", "pkg/stubs.pyi"]
    assert found(tree, "examples") == ["examples/models/m.py"]
    assert found(tree, "examples/models") == ["examples/models/m.py"]
    assert found(tree, "pkg") == ["pkg/b.py", "pkg/stubs.pyi"]
    assert found(tree, "pkg/deep") == ["pkg/deep/c.py"]


def test_force_exclude_applies_to_named_files_and_directories(tree: Path):
    write(tree / "pyproject.toml", '[tool.torchcopylint]\nextend-exclude = ["pkg/deep"]\n')
    write(tree / "build" / "gen.py", CLONE_DETACH)
    assert found(tree, "build/gen.py", "a.py") == ["a.py", "build/gen.py"]
    assert found(tree, "build/gen.py", "a.py", "pkg/deep/c.py", force_exclude=True) == ["a.py"]
    assert found(tree, "build", force_exclude=True) == []


def test_force_exclude_from_the_command_line(tree: Path, cli):
    write(tree / "venv" / "lib" / "x.py", CLONE_DETACH)
    assert "venv/lib/x.py" in cli("venv/lib/x.py").stdout
    result = cli("--force-exclude", "venv/lib/x.py")
    assert result.exit_code == 0 and "TCL005" not in result.stdout


def test_a_file_given_twice_is_linted_once(tree: Path):
    assert found(tree, "a.py", "a.py", ".") == ["a.py", "pkg/b.py", "pkg/deep/c.py", "pkg/stubs.pyi"]


def test_paths_keep_the_users_spelling(tree: Path):
    result = discover(["pkg"], load_settings(None, tree))
    assert [str(p) for p in result.files] == ["pkg/b.py", "pkg/deep/c.py", "pkg/stubs.pyi"]


# --- .gitignore ------------------------------------------------------------------------------------


@pytest.fixture
def repo(tree: Path) -> Path:
    (tree / ".git").mkdir()
    return tree


def test_gitignore_is_respected(repo: Path):
    write(repo / ".gitignore", "pkg/deep/\n*.pyi\n")
    assert found(repo) == ["a.py", "pkg/b.py"]


def test_a_gitignore_pattern_git_cannot_use_is_skipped_and_the_others_kept(repo: Path):
    # Saved on Windows, a pattern ending in a lone backslash: pathspec refuses the whole file.
    (repo / ".gitignore").write_bytes(b"*data_set*\\\r\npkg/deep/\r\n*.pyi\r\n")
    assert found(repo) == ["a.py", "pkg/b.py"]


def test_nested_gitignore_and_negation(repo: Path):
    write(repo / ".gitignore", "*.pyi\n")
    write(repo / "pkg" / ".gitignore", "b.py\n!stubs.pyi\n")
    assert found(repo) == ["a.py", "pkg/deep/c.py", "pkg/stubs.pyi"]


def test_gitignore_applies_when_linting_a_subdirectory(repo: Path, monkeypatch):
    write(repo / ".gitignore", "deep/\n")
    assert found(repo, "pkg") == ["pkg/b.py", "pkg/stubs.pyi"]
    monkeypatch.chdir(repo / "pkg")
    result = discover(["."], load_settings(None, repo / "pkg"))
    assert sorted(p.as_posix() for p in result.files) == ["b.py", "stubs.pyi"]


def test_gitignore_above_the_repository_is_not_applied(tmp_path: Path, monkeypatch):
    write(tmp_path / ".gitignore", "*.py\n")
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    write(project / "a.py", CLONE_DETACH)
    monkeypatch.chdir(project)
    assert found(project) == ["a.py"]


def test_a_gitignored_directory_named_explicitly_is_linted(repo: Path):
    write(repo / ".gitignore", "generated/\n")
    write(repo / "generated" / "g.py", CLONE_DETACH)
    assert "generated/g.py" not in found(repo)
    assert found(repo, "generated") == ["generated/g.py"]


def test_respect_gitignore_false(repo: Path):
    write(repo / ".gitignore", "pkg/\n")
    write(repo / "pyproject.toml", "[tool.torchcopylint]\nrespect-gitignore = false\n")
    assert found(repo) == ["a.py", "pkg/b.py", "pkg/deep/c.py", "pkg/stubs.pyi"]


def test_gitignore_through_the_command_line(repo: Path, cli):
    write(repo / ".gitignore", "pkg/\n")
    result = cli(".")
    assert [line.split(":")[0] for line in result.stdout.splitlines() if ": TCL" in line] == ["a.py"]
