"""Lint real PyTorch code: counts per rule, time, internal errors, and every finding of chosen rules.

    python bench/lint_corpora.py                                  # the default corpora
    python bench/lint_corpora.py --corpus timm,torch-nn --show TCL001,TCL002
    python bench/lint_corpora.py --wheel-dir /work/corpora --json bench/results/corpora.json

Each finding shown with --show is printed as `path:line: CODE message` followed by
its source lines, so a person can review it and call it correct or a false positive.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Optional

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout
sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpora import DEFAULT_CORPORA, CorpusError, corpus_path, split_names  # noqa: E402
from torchcopylint.config import Settings  # noqa: E402
from torchcopylint.engine import lint_paths  # noqa: E402


def source_context(path: str, line: int, end_line: int, before: int, after: int) -> list[str]:
    try:
        lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    start = max(1, line - before)
    stop = min(len(lines), max(line, end_line) + after)
    shown = []
    for number in range(start, stop + 1):
        marker = ">" if line <= number <= max(line, end_line) else " "
        shown.append(f"  {marker}{number:5d} | {lines[number - 1]}")
    return shown


def lint_corpus(name: str, directory: Path) -> dict:
    settings = Settings(root=directory, respect_gitignore=False)
    started = time.perf_counter()
    run = lint_paths([str(directory)], settings)
    seconds = time.perf_counter() - started
    counts = Counter(d.code for d in run.diagnostics)
    return {
        "corpus": name,
        "path": str(directory),
        "files": run.files_checked,
        "seconds": round(seconds, 3),
        "counts": dict(sorted(counts.items())),
        "internal_errors": list(run.internal_errors),
        "diagnostics": run.diagnostics,
    }


def relative(path: str, root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(root.resolve().parent).as_posix()
    except ValueError:
        return path


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", action="append", default=[],
                        help=f"comma-separated names (default: {','.join(DEFAULT_CORPORA)})")
    parser.add_argument("--show", default="", help="print every finding of these codes (comma-separated, or ALL)")
    parser.add_argument("--context", type=int, default=2, help="source lines shown before and after a finding")
    parser.add_argument("--errors", type=int, default=3, help="internal errors printed in full per corpus")
    parser.add_argument("--wheel-dir", type=Path, default=None, help="where pinned wheels may already be")
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = parser.parse_args(argv)

    names = split_names(args.corpus) or list(DEFAULT_CORPORA)
    show = {code.strip().upper() for code in args.show.split(",") if code.strip()}
    results = []
    status = 0
    for name in names:
        try:
            directory = corpus_path(name, args.wheel_dir)
        except CorpusError as error:
            print(f"== {name}: unavailable: {error}")
            status = 1
            continue
        result = lint_corpus(name, directory)
        results.append(result)
        counts = ", ".join(f"{code} {count}" for code, count in result["counts"].items()) or "no findings"
        print(f"== {name}: {result['files']} files in {result['seconds']:.2f} s "
              f"({result['seconds'] / max(result['files'], 1) * 1000:.1f} ms/file) — {counts}")
        print(f"   {directory}")
        errors = result["internal_errors"]
        if errors:
            status = 2
            print(f"   internal errors: {len(errors)}")
            for error in errors[: args.errors]:
                for line in error.rstrip().splitlines()[:12]:
                    print(f"   ! {line}")
                print("   !")
        shown = [d for d in result["diagnostics"] if "ALL" in show or d.code in show]
        for diagnostic in shown:
            location = diagnostic.location
            print(f"{relative(location.path, directory)}:{location.line}: {diagnostic.code} {diagnostic.message}")
            for line in source_context(location.path, location.line, location.end_line, args.context, args.context):
                print(line)
        if shown:
            print()

    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = [{**{k: v for k, v in r.items() if k != "diagnostics"},
                    "diagnostics": [d.to_dict() for d in r["diagnostics"]]} for r in results]
        args.json.write_text(json.dumps(payload, indent=2, default=str) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
