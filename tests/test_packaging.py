"""Packaging: the wheel (with the rule pages, without torch), pre-commit, the README and CI script.

The wheel and pre-commit tests build real environments from the package registry (libcst,
click, pathspec, hatchling); they take a minute or so and run by default, in CI too.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import CLEAN, EXAMPLES, REPO_ROOT, write

import torchcopylint
from torchcopylint import pages
from torchcopylint.rules import ALL_RULES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FLAGGED_EXAMPLE = EXAMPLES / "utils" / "tensor_utils.py"
CLEAN_EXAMPLE = EXAMPLES / "clean" / "train_classifier.py"
README = REPO_ROOT / "README.md"
PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))

# What a pip/pre-commit install needs from the repository: no examples, tests or caches.
PACKAGE_SOURCES = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "torchcopylint", "rules")


def clean_env(**extra: str) -> dict:
    """The environment without this checkout on PYTHONPATH: what an installed package sees."""
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1", PYTHONIOENCODING="utf-8", **extra)
    return env


def run(args, cwd: Path, env: dict, timeout: float = 600, check: bool = True) -> subprocess.CompletedProcess:
    completed = subprocess.run([str(arg) for arg in args], cwd=str(cwd), env=env, stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=timeout)
    if check and completed.returncode != 0:
        raise AssertionError(f"{args} exited {completed.returncode}\n{completed.stdout}\n{completed.stderr}")
    return completed


def copy_package_sources(target: Path) -> Path:
    target.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in PACKAGE_SOURCES:
        source = REPO_ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=ignore)
        else:
            shutil.copy2(source, target / name)
    return target


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def venv_script(venv: Path, name: str) -> Path:
    return venv / ("Scripts" if os.name == "nt" else "bin") / (name + (".exe" if os.name == "nt" else ""))


def has_torch(python: Path, cwd: Path) -> bool:
    code = "import importlib.util; print(importlib.util.find_spec('torch') is not None)"
    return run([python, "-c", code], cwd, clean_env()).stdout.strip() == "True"


# --- pyproject -------------------------------------------------------------------------------------


def test_pyproject_declares_one_package_and_its_entry_points():
    project = PYPROJECT["project"]
    assert project["name"] == "torchcopylint"
    assert project["scripts"] == {"torchcopylint": "torchcopylint.cli:main"}
    requirements = [re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0].lower() for req in project["dependencies"]]
    assert sorted(requirements) == ["click", "libcst", "pathspec", "tomli"]
    assert any("tomli" in req and "python_version < '3.11'" in req for req in project["dependencies"])
    assert not any("torch" == req for req in requirements)
    extras = project["optional-dependencies"]
    # numpy: TCL009's experiment converts tensors to NumPy, and torch does not pull it in.
    assert [req.split(">")[0].split("=")[0] for req in extras["verify"]] == ["torch", "numpy"]
    assert {re.split(r"[<>=]", req)[0] for req in extras["test"]} >= {"pytest", "jsonschema", "pre-commit", "numpy"}
    force_include = PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    assert force_include == {"rules": "torchcopylint/rule_pages"}


def test_python_dash_m_runs_the_cli():
    assert (REPO_ROOT / "torchcopylint" / "__main__.py").is_file()
    completed = subprocess.run([sys.executable, "-m", "torchcopylint", "--version"], cwd=REPO_ROOT,
                               capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    assert completed.returncode == 0 and torchcopylint.__version__ in completed.stdout


def test_a_checkout_reads_the_pages_from_rules():
    if Path(torchcopylint.__file__).resolve().parent.parent != REPO_ROOT:
        pytest.skip("torchcopylint is imported from an installed copy, not this checkout")
    assert pages.pages_directory() == REPO_ROOT / "rules"
    for rule in ALL_RULES:
        if (REPO_ROOT / "rules" / f"{rule.code}.md").is_file():
            assert pages.page_text(rule.code) == (REPO_ROOT / "rules" / f"{rule.code}.md").read_text(encoding="utf-8")


# --- the wheel --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_wheel_ships_the_pages_and_works_without_torch(tmp_path: Path):
    env = clean_env()
    wheels = tmp_path / "wheels"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", wheels, copy_package_sources(tmp_path / "src")],
        tmp_path, env)
    [wheel] = wheels.glob("torchcopylint-*.whl")

    names = zipfile.ZipFile(wheel).namelist()
    shipped = sorted(name for name in names if name.startswith("torchcopylint/rule_pages/"))
    assert shipped == sorted(f"torchcopylint/rule_pages/{page.name}" for page in (REPO_ROOT / "rules").glob("*.md"))
    assert "torchcopylint/__main__.py" in names and "torchcopylint/cli.py" in names
    assert not any(name.startswith(("tests/", "examples/", "rules/")) for name in names)
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "Requires-Dist: libcst" in metadata and "Provides-Extra: verify" in metadata
    assert not re.search(r"^Requires-Dist: torch\b(?!.*extra ==)", metadata, re.M)

    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", venv], tmp_path, env)
    python = venv_python(venv)
    # The wheel's own requirements come from the registry: libcst, click, pathspec (no torch).
    run([python, "-m", "pip", "install", "-q", wheel], tmp_path, env)
    assert not has_torch(python, tmp_path)

    outside = tmp_path / "elsewhere"  # no checkout, no rules/ anywhere near
    outside.mkdir()
    page = run([venv_script(venv, "torchcopylint"), "rule", "TCL005"], outside, env)
    assert page.stdout == (REPO_ROOT / "rules" / "TCL005.md").read_text(encoding="utf-8")
    location = run([python, "-c", "from torchcopylint import pages; print(pages.pages_directory())"],
                   outside, env).stdout.strip()
    assert Path(location).parts[-2:] == ("torchcopylint", "rule_pages") and "site-packages" in location

    version = run([python, "-m", "torchcopylint", "--version"], outside, env)
    assert torchcopylint.__version__ in version.stdout

    # The linter itself, with no torch installed at all.
    shutil.copytree(EXAMPLES, outside / "examples")
    lint = run([venv_script(venv, "torchcopylint"), "examples"], outside, env, check=False)
    assert lint.returncode == 1, lint.stdout + lint.stderr
    assert ": TCL005 " in lint.stdout and ": TCL008 " in lint.stdout
    assert lint.stderr == ""

    # An editable install of the same sources reads the pages from the repository's rules/.
    run([python, "-m", "pip", "install", "-q", "--no-deps", "-e", tmp_path / "src"], tmp_path, env)
    location = run([python, "-c", "from torchcopylint import pages; print(pages.pages_directory())"],
                   outside, env).stdout.strip()
    assert Path(location) == tmp_path / "src" / "rules"
    page = run([venv_script(venv, "torchcopylint"), "rule", "TCL008"], outside, env)
    assert page.stdout == (REPO_ROOT / "rules" / "TCL008.md").read_text(encoding="utf-8")


# --- pre-commit --------------------------------------------------------------------------------------


def test_pre_commit_hooks_file():
    import yaml  # pre-commit's own dependency

    hooks = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    [hook] = [hook for hook in hooks if hook["id"] == "torchcopylint"]
    assert hook["language"] == "python"
    assert hook["types_or"] == ["python", "pyi", "jupyter"]
    assert hook["entry"] == "torchcopylint --force-exclude"
    assert "additional_dependencies" not in hook  # nothing beyond the package: no torch


def git(args, cwd: Path) -> None:
    run(["git", "-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false",
         "-c", "init.defaultBranch=main", *args], cwd, clean_env())


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="pre-commit needs git")
def test_pre_commit_try_repo(tmp_path: Path):
    hook_repo = copy_package_sources(tmp_path / "torchcopylint")
    git(["init", "-q"], hook_repo)
    git(["add", "-A"], hook_repo)
    git(["commit", "-q", "-m", "snapshot"], hook_repo)

    # A user's project (no [tool.torchcopylint]) with a flagged file and a clean one.
    project = tmp_path / "project"
    shutil.copy2(FLAGGED_EXAMPLE, write(project / "flagged.py", ""))
    write(project / "clean.py", CLEAN)
    write(project / "build" / "generated.py", FLAGGED_EXAMPLE.read_text(encoding="utf-8"))
    git(["init", "-q"], project)
    git(["add", "-A"], project)
    git(["commit", "-q", "-m", "project"], project)

    # try-repo installs the hook into a throw-away store each time (PRE_COMMIT_HOME keeps the
    # user's own cache out of it); the hook's dependencies come from pyproject.toml: no torch.
    env = clean_env(PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), PRE_COMMIT_COLOR="never")
    try_repo = [sys.executable, "-m", "pre_commit", "try-repo", hook_repo, "torchcopylint", "--verbose", "--files"]

    failed = run([*try_repo, "flagged.py"], project, env, check=False)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert re.search(r"^torchcopylint\.+Failed$", failed.stdout, re.M), failed.stdout
    assert "flagged.py:" in failed.stdout and ": TCL005 " in failed.stdout and ": TCL008 " in failed.stdout

    # The clean file passes; with --force-exclude in the hook's entry, so does a file under build/
    # (excluded by default) that pre-commit names explicitly.
    passed = run([*try_repo, "clean.py", "build/generated.py"], project, env, check=False)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert re.search(r"^torchcopylint\.+Passed$", passed.stdout, re.M), passed.stdout


# --- README and CI -----------------------------------------------------------------------------------

INSTALL_AND_RUN = "pip install . && torchcopylint examples/"
INSTALL_AND_TEST = "pip install torch==2.13.0 && pip install '.[test]' && python -m pytest"


def test_readme_starts_with_the_two_set_up_commands():
    text = README.read_text(encoding="utf-8")
    head = text[: text.index("\n## ")]
    first_block = re.search(r"```(?:bash|sh|console)?\n(.*?)```", head, re.S)
    assert first_block, "no command block before the first section"
    commands = [line.strip() for line in first_block.group(1).splitlines() if line.strip() and not line.startswith("#")]
    assert commands == [INSTALL_AND_RUN, INSTALL_AND_TEST]
    assert "exits 1" in first_block.group(1)


def test_readme_rules_table_marks_what_is_implemented():
    text = README.read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| \[?(TCL\d{3})\]?[^|]*\|.*\| (implemented|planned|[^|]*) \|$", text, re.M))
    for number in range(1, 9):
        assert f"TCL00{number}" in rows, f"TCL00{number} missing from the README's rules table"
    implemented = {code for code, status in rows.items() if status == "implemented"}
    assert implemented == {rule.code for rule in ALL_RULES}


def test_readme_links_and_sections():
    text = README.read_text(encoding="utf-8")
    assert (REPO_ROOT / "docs" / "output-formats.md").is_file() and "docs/output-formats.md" in text
    for needle in ("[tool.torchcopylint]", "per-file-ignores", "--output-format github", "upload-sarif",
                   "id: torchcopylint", "--verify", "## Exit codes"):
        assert needle in text, needle


def test_ci_script_runs_the_readme_test_command():
    script = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert script.startswith("#!/usr/bin/env bash\n")
    assert "set -euo pipefail" in script
    assert "pip install torch==2.13.0" in script
    assert "pip install '.[test]'" in script
    assert "python -m pytest -q" in script
    assert script.index("pip install torch==2.13.0") < script.index("pip install '.[test]'")
