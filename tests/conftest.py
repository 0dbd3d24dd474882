"""Shared helpers: the repository's paths, and running the command line in-process or in a subprocess.

The tests work from a checkout (nothing installed) and against an installed package: the
repository root goes first on sys.path here and on PYTHONPATH for subprocesses.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional, Sequence, Union

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = REPO_ROOT / "examples"
TESTS_DATA = REPO_ROOT / "tests" / "data"

if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

# A flagged line for each implemented rule family the foundation tests rely on (line 5, column 12).
CLONE_DETACH = "import torch\n\nx = torch.ones(2, requires_grad=True)\ndef f():\n    return x.clone().detach()\n"
CLONE_DETACH_FIXED = "import torch\n\nx = torch.ones(2, requires_grad=True)\ndef f():\n    return x.detach().clone()\n"
CLEAN = CLONE_DETACH_FIXED


def sarif_schema_path() -> Path:
    """The OASIS SARIF 2.1.0 schema: the shared copy next to the project, else the one in tests/data."""
    shared = REPO_ROOT.parent / "shared" / "schemas" / "sarif-2.1.0.json"
    return shared if shared.is_file() else TESTS_DATA / "sarif-2.1.0.json"


def subprocess_env(extra: Optional[dict] = None) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env.pop("NO_COLOR", None)
    env.pop("FORCE_COLOR", None)
    env["PYTHONIOENCODING"] = "utf-8"
    if extra:
        env.update(extra)
    return env


def run_torchcopylint(
    *args: Union[str, os.PathLike],
    cwd: Union[str, os.PathLike, None] = None,
    env: Optional[dict] = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess:
    """`python -m torchcopylint ARGS` in a subprocess, with no stdin (as in CI)."""
    return subprocess.run(
        [sys.executable, "-m", "torchcopylint", *map(str, args)],
        cwd=str(cwd or REPO_ROOT),
        env=subprocess_env(env),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
    )


def only_verdict(folder: Union[str, os.PathLike], name: str, code: str, timeout_per_diagnosis: int = 120) -> dict:
    """The `--verify` verdict of the one `code` finding on the file `name` of `folder` (a patient time
    limit per diagnosis: a loaded machine must not turn a verdict into "timed out")."""
    import json

    result = run_torchcopylint("--verify", "--verify-timeout", str(timeout_per_diagnosis), "--output-format", "json",
                               "--no-cache", name, cwd=folder, timeout=600)
    records = [r for r in json.loads(result.stdout) if r["code"] == code]
    assert len(records) == 1, (result.stdout, result.stderr[-2000:])
    return records[0]["verdict"]


class CliResult:
    def __init__(self, exit_code: int, stdout: str, stderr: str, exception: Optional[BaseException]) -> None:
        self.exit_code = exit_code
        self.stdout = stdout
        self.stderr = stderr
        self.exception = exception

    def __repr__(self) -> str:
        return f"CliResult(exit_code={self.exit_code}, stdout={self.stdout!r}, stderr={self.stderr!r})"


def invoke(args: Sequence[Union[str, os.PathLike]]) -> CliResult:
    """Run the command line in this process (fast; monkeypatching works), stdout and stderr apart."""
    from click.testing import CliRunner

    from torchcopylint.cli import main

    try:
        runner = CliRunner(mix_stderr=False)  # click < 8.2
    except TypeError:
        runner = CliRunner()
    result = runner.invoke(main, [str(arg) for arg in args], catch_exceptions=True)
    exception = result.exception if not isinstance(result.exception, SystemExit) else None
    if exception is not None:
        raise exception
    return CliResult(result.exit_code, result.stdout, result.stderr, exception)


@pytest.fixture
def cli(monkeypatch):
    """`cli(*args)` runs torchcopylint in-process from the current directory."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    return lambda *args: invoke(args)


@pytest.fixture
def examples_copy(tmp_path: Path) -> Path:
    """A private copy of examples/ (no configuration above it)."""
    target = tmp_path / "examples"
    shutil.copytree(EXAMPLES, target)
    return target


def write(path: Path, text: Union[str, bytes]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def snapshot(directory: Path) -> dict[str, bytes]:
    """Every file's bytes, by path relative to `directory`; the linter's own cache left out."""
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file() and ".torchcopylint_cache" not in p.relative_to(directory).parts
    }


EXPECT_MARKER = re.compile(r"#\s*expect:\s*(TCL\d{3})")


@contextlib.contextmanager
def judging_arguments_out_of_sight():
    """TCL005 as it was before it stopped judging a function's argument no call in the file shows
    (GradFlow.only_an_argument): the verifier still meets such conditional claims (an argument a call
    passes a computed value for), and its fixtures of them are helpers whose callers are out of sight."""
    from torchcopylint.analysis.autograd import GradFlow

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(GradFlow, "only_an_argument", lambda self, expr, function, statement=None: False)
        yield


def lint_marked_fixtures(directory: Path) -> tuple[dict, list]:
    """(path -> source, every diagnostic) of the `.py` files in `directory`, after checking that
    each file still holds exactly the findings its `# expect: TCLxxx` comments mark, and nothing
    else (a fixture that drifted would make the verdicts about it meaningless). The verifier's
    fixtures are read as `judging_arguments_out_of_sight` reads them."""
    from torchcopylint.engine import lint_source

    sources = {str(path): path.read_text(encoding="utf-8") for path in sorted(directory.glob("*.py"))}
    diagnostics = []
    for path, source in sources.items():
        with judging_arguments_out_of_sight():
            found = list(lint_source(source, path))
        marked = {(number, match.group(1)) for number, text in enumerate(source.splitlines(), 1)
                  for match in [EXPECT_MARKER.search(text)] if match}
        assert {(d.location.line, d.code) for d in found} == marked, path
        diagnostics += found
    return sources, diagnostics
