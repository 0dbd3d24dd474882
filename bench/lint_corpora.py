"""Lint real PyTorch code: counts per rule, time, internal errors, and every finding of chosen rules.

    python bench/lint_corpora.py                                  # the default corpora
    python bench/lint_corpora.py --corpus timm,torch-nn --show TCL001,TCL002
    python bench/lint_corpora.py --wheel-dir DIR --json bench/results/corpora.json

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
from typing import Iterable, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout
sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpora import DEFAULT_CORPORA, CorpusError, corpus_path, split_names  # noqa: E402
from torchcopylint.config import Settings  # noqa: E402
from torchcopylint.diagnostic import Diagnostic  # noqa: E402
from torchcopylint.engine import lint_paths  # noqa: E402


def source_context(path: str, line: int, end_line: int, before: int, after: int,
                   also: Iterable[int] = (), span: int = 40) -> list[str]:
    """The finding's lines with `before`/`after` lines around them, marked `>`.

    `also`: other lines the finding names (the in-place event, the read); each is
    shown with its own context, and everything between them too when that is
    under `span` lines, so the whole story of an alias can be read at once.
    """
    try:
        lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    marked = set(range(line, max(line, end_line) + 1)) | {n for n in also if 1 <= n <= len(lines)}
    wanted: set[int] = set()
    for number in marked:
        wanted.update(range(max(1, number - before), min(len(lines), number + after) + 1))
    ordered = sorted(marked)
    for low, high in zip(ordered, ordered[1:]):
        if high - low <= span:
            wanted.update(range(low, high + 1))
    shown = []
    previous = None
    for number in sorted(wanted):
        if previous is not None and number != previous + 1:
            shown.append("         ...")
        marker = ">" if number in marked else " "
        shown.append(f"  {marker}{number:5d} | {lines[number - 1]}")
        previous = number
    return shown


def context_lines(diagnostic: Diagnostic) -> list[int]:
    """Line numbers a rule put in the diagnostic's context (`event_line`, `read_line`, ...)."""
    found = []
    for key, value in diagnostic.context.items():
        if key.endswith("line") and isinstance(value, int):
            found.append(value)
        elif key.endswith("lines") and isinstance(value, (list, tuple)):
            found.extend(v for v in value if isinstance(v, int))
    return found


def lint_corpus(name: str, directory: Path) -> dict:
    settings = Settings(root=directory, respect_gitignore=False)
    started, cpu_started = time.perf_counter(), time.process_time()
    run = lint_paths([str(directory)], settings)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    counts = Counter(d.code for d in run.diagnostics)
    return {
        "corpus": name,
        "path": str(directory),
        "files": run.files_checked,
        "seconds": round(seconds, 3),
        "cpu_seconds": round(cpu, 3),  # steadier than wall time on a busy machine
        "counts": dict(sorted(counts.items())),
        "internal_errors": list(run.internal_errors),
        "diagnostics": run.diagnostics,
    }


def slowest_files(directory: Path, settings: Settings, count: int) -> list[tuple[float, float, str]]:
    """(lint seconds, bare parse seconds, path) of the `count` slowest files: a second, per-file pass."""
    import libcst as cst

    from torchcopylint.discovery import discover
    from torchcopylint.engine import InternalError, lint_file

    timings = []
    for path in discover([str(directory)], settings).files:
        started = time.perf_counter()
        try:
            lint_file(path, settings)
        except InternalError:
            pass
        lint = time.perf_counter() - started
        started = time.perf_counter()
        try:
            cst.parse_module(path.read_bytes())
        except Exception:  # noqa: BLE001 - a file that does not parse still took its time
            pass
        timings.append((lint, time.perf_counter() - started, str(path)))
    return sorted(timings, reverse=True)[:count]


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
    parser.add_argument("--slowest", type=int, default=0,
                        help="also time each file alone (a second pass) and list the N slowest, with their parse time")
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
        print(f"== {name}: {result['files']} files in {result['seconds']:.2f} s wall, "
              f"{result['cpu_seconds']:.2f} s CPU "
              f"({result['cpu_seconds'] / max(result['files'], 1) * 1000:.1f} ms/file) — {counts}")
        print(f"   {directory}")
        errors = result["internal_errors"]
        if errors:
            status = 2
            print(f"   internal errors: {len(errors)}")
            for error in errors[: args.errors]:
                for line in error.rstrip().splitlines()[:12]:
                    print(f"   ! {line}")
                print("   !")
        if args.slowest:
            settings = Settings(root=directory, respect_gitignore=False)
            result["slowest"] = slowest_files(directory, settings, args.slowest)
            for lint, parse, path in result["slowest"]:
                print(f"   slow: {lint:7.3f} s lint, {parse:7.3f} s parse  {relative(path, directory)}")
        shown = [d for d in result["diagnostics"] if "ALL" in show or d.code in show]
        for diagnostic in shown:
            location = diagnostic.location
            print(f"{relative(location.path, directory)}:{location.line}: {diagnostic.code} {diagnostic.message}")
            for line in source_context(location.path, location.line, location.end_line, args.context, args.context,
                                       also=context_lines(diagnostic)):
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
