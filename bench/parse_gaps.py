"""Which files CPython compiles and libcst refuses, and whether the linter reads them now.

    python bench/parse_gaps.py PATH... [--json]

For every .py file under PATHs: does libcst (as the linter parses: `parse_for_analysis`) read
it; if not, does CPython (`compile`, AST only); if it does, does the normalised text
(normalise.py) parse, and what kind of text is it. Prints one line per file libcst refuses and
a count; a file CPython compiles that neither libcst nor the normalisation reads is a gap to
handle (exit 1).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from torchcopylint import normalise, syntax_errors  # noqa: E402
from torchcopylint.parsing import parse_for_analysis  # noqa: E402


def parses(text: str) -> bool:
    try:
        parse_for_analysis(text)
    except Exception:  # noqa: BLE001 - any refusal counts
        return False
    return True


def classify(path: Path) -> dict | None:
    """None when libcst reads the file; else what CPython and the normalisation say."""
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return {"path": str(path), "cpython": "not UTF-8", "normalised": None}
    if parses(text):
        return None
    problem = syntax_errors.problem_in(text)
    if problem is not None:
        return {"path": str(path), "cpython": f"{problem.line}:{problem.column} {problem.message}",
                "normalised": None}
    normalised = normalise.normalise(text)
    return {"path": str(path), "cpython": "compiles",
            "normalised": None if normalised is None else (normalised.kind if parses(normalised.text) else "fails")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args(argv)
    start, files, refused = time.perf_counter(), 0, []
    for root in options.paths:
        walked = [(str(root.parent), [], [root.name])] if root.is_file() else os.walk(root)
        for directory, _dirs, names in walked:
            for name in sorted(names):
                if name.endswith(".py"):
                    files += 1
                    record = classify(Path(directory, name))
                    if record is not None:
                        refused.append(record)
    gaps = [r for r in refused if r["cpython"] == "compiles" and r["normalised"] in (None, "fails")]
    if options.json:
        print(json.dumps({"files": files, "refused": refused, "gaps": len(gaps)}, indent=1))
    else:
        for record in refused:
            print(f"{record['path']}: CPython {record['cpython']}; normalised: {record['normalised']}")
        print(f"{files} files in {time.perf_counter() - start:.0f} s: libcst refuses {len(refused)}, "
              f"of which CPython compiles {sum(r['cpython'] == 'compiles' for r in refused)}, "
              f"left unread {len(gaps)}")
    return 1 if gaps else 0


if __name__ == "__main__":
    sys.exit(main())
