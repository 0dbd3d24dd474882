"""The examples/ tree: every registered rule reports exactly the lines marked for it.

A line where a rule must report ends with a marker comment, `# expect: TCL001`
(several codes: `# expect: TCL005, TCL008`). For each rule in ALL_RULES, the set
of (file, line) it reports over the tree must equal the set of its markers;
markers for rules not registered yet are ignored until those rules land.
"""

from __future__ import annotations

import importlib.util
import io
import os
import re
import subprocess
import sys
import tokenize
from functools import lru_cache
from pathlib import Path

import pytest

from torchcopylint.engine import lint_source
from torchcopylint.rules import ALL_RULES

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
CATALOGUE = tuple(f"TCL{number:03d}" for number in range(1, 13))
MARKER = re.compile(r"#\s*expect:\s*(TCL\d{3}(?:\s*,\s*TCL\d{3})*)\s*$")
CODES = sorted(rule.code for rule in ALL_RULES)


def example_files() -> list[Path]:
    return sorted(EXAMPLES.rglob("*.py"))


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def markers(source: str) -> set[tuple[int, str]]:
    """(line, code) for every `# expect:` comment; comments only, never strings."""
    found = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type != tokenize.COMMENT:
            continue
        match = MARKER.search(token.string)
        if match:
            for code in re.split(r"\s*,\s*", match.group(1)):
                found.add((token.start[0], code))
    return found


@lru_cache(maxsize=None)
def expected() -> dict[str, set[tuple[str, int]]]:
    by_code: dict[str, set[tuple[str, int]]] = {}
    for path in example_files():
        for line, code in markers(path.read_text(encoding="utf-8")):
            by_code.setdefault(code, set()).add((relative(path), line))
    return by_code


@lru_cache(maxsize=None)
def reported() -> tuple:
    diagnostics = []
    for path in example_files():
        diagnostics.extend(lint_source(path.read_bytes(), relative(path)))
    return tuple(diagnostics)


def test_examples_tree_exists():
    assert example_files(), "examples/ has no Python files"


def test_every_catalogue_rule_has_a_marker():
    missing = [code for code in CATALOGUE if code in CODES and not expected().get(code)]
    assert not missing, f"no `# expect:` marker in examples/ for {', '.join(missing)}"


def test_some_file_has_no_marker():
    unmarked = [relative(path) for path in example_files() if not markers(path.read_text(encoding="utf-8"))]
    assert unmarked, "examples/ needs at least one file that every rule leaves alone"


def test_markers_name_catalogue_rules():
    unknown = sorted(code for code in expected() if code not in CATALOGUE)
    assert not unknown, f"markers for rules outside the catalogue: {unknown}"


def test_examples_parse():
    """Nothing but registered rules reports (a file that does not parse gets TCL900)."""
    failures = [d for d in reported() if d.code not in CODES]
    assert not failures, "\n".join(f"{d.path}:{d.location.line}: {d.code} {d.message}" for d in failures)


@pytest.mark.parametrize("code", CODES)
def test_rule_reports_exactly_the_marked_lines(code):
    found = {(d.path, d.location.line) for d in reported() if d.code == code}
    wanted = expected().get(code, set())
    missing = sorted(wanted - found)
    unexpected = sorted(found - wanted)
    messages = {(d.path, d.location.line): d.message for d in reported() if d.code == code}
    report = [f"missed {path}:{line}" for path, line in missing]
    report += [f"unexpected {path}:{line}: {messages[(path, line)]}" for path, line in unexpected]
    assert not report, "\n".join(report)


# --- the examples run ---------------------------------------------------------

_RUNNER = r"""
import importlib.util, pathlib, runpy, sys, warnings
warnings.simplefilter("ignore")
root = pathlib.Path(sys.argv[1])
for path in sorted(root.rglob("*.py")):
    spec = importlib.util.spec_from_file_location("example_" + path.stem, path)
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
for path in sorted(root.rglob("*.py")):
    if 'if __name__ == "__main__":' in path.read_text():
        runpy.run_path(str(path), run_name="__main__")
print("ok")
"""


@pytest.mark.slow
def test_examples_import_and_run():
    """Importing an example runs nothing; running one works on CPU in seconds."""
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed")
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", OMP_NUM_THREADS="2")
    result = subprocess.run(
        [sys.executable, "-c", _RUNNER, str(EXAMPLES)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=str(ROOT),
    )
    assert result.returncode == 0, result.stderr[-4000:]
    assert result.stdout.strip().endswith("ok")
