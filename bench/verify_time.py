"""How long does `--verify` take per diagnosis?

    python bench/verify_time.py                      # examples/ on CPU
    python bench/verify_time.py --device cuda --jobs 4 PATH...

Lints PATHS (default: examples/) as the command line does, then calls
`torchcopylint.verify.runner.verify` directly. The figure that matters is the
median time per diagnosis *after the first torch import*: VerifyOptions.timings,
which verify() fills with the seconds each experiment took inside its child
process (the child's start and its `import torch` excluded). Target: under
2 s per diagnosis. The total wall time (children's starts and torch imports
included) is printed next to it. Figures only; nothing is asserted.

A diagnosis with no experiment time (0 s) ended before its experiment did
anything measurable: unverified, or a verdict recorded without timing; such
diagnoses are listed but left out of the median.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout

from torchcopylint.config import load_settings  # noqa: E402
from torchcopylint.engine import lint_paths  # noqa: E402
from torchcopylint.verify.runner import VerifyOptions, resolve_device, verify  # noqa: E402

TARGET_SECONDS = 2.0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=[str(ROOT / "examples")])
    parser.add_argument("--device", choices=("cpu", "cuda", "auto"), default="cpu")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds per diagnosis (as --verify-timeout; default: the tool's own)")
    parser.add_argument("--jobs", type=int, default=None, help="files verified at once (default: VerifyOptions')")
    arguments = parser.parse_args(argv)

    settings = load_settings(None, Path(arguments.paths[0]))
    started = time.perf_counter()
    run = lint_paths(arguments.paths, settings)
    lint_seconds = time.perf_counter() - started
    diagnostics = [d for d in run.diagnostics if not d.code.startswith("TCL9")]
    if not diagnostics:
        print("no diagnoses to verify")
        return 0

    options = VerifyOptions(device=resolve_device(arguments.device))
    if arguments.timeout:
        options.timeout = arguments.timeout
    if arguments.jobs:
        options.jobs = arguments.jobs
    started = time.perf_counter()
    verified = verify(diagnostics, run.sources, options)
    wall = time.perf_counter() - started

    width = max(len(_where(d)) for d in verified)
    print(f"{'diagnosis':<{width}}  code    seconds  verdict")
    measured = []
    for index, diagnostic in enumerate(verified):
        seconds = options.timings.get(index)
        status = diagnostic.verdict.status if diagnostic.verdict else "(none)"
        shown = "-" if seconds is None else f"{seconds:7.3f}"
        print(f"{_where(diagnostic):<{width}}  {diagnostic.code}  {shown:>7}  {status}")
        if seconds:
            measured.append(seconds)

    files = len({d.path for d in diagnostics})
    print()
    print(f"device: {options.device}; files: {files}; diagnoses: {len(diagnostics)}; "
          f"children at once: {options.jobs}")
    print(f"lint: {lint_seconds:.2f} s; verify wall time (child starts and torch imports included): {wall:.2f} s "
          f"({wall / len(diagnostics):.2f} s per diagnosis)")
    if measured:
        median = statistics.median(measured)
        print(f"per diagnosis after the torch import ({len(measured)} timed): median {median:.3f} s, "
              f"mean {statistics.fmean(measured):.3f} s, max {max(measured):.3f} s, "
              f"total {sum(measured):.2f} s")
        print(f"target: median under {TARGET_SECONDS:g} s per diagnosis: {'met' if median < TARGET_SECONDS else 'NOT met'}")
    else:
        print("no diagnosis was timed")
    counts: dict[str, int] = {}
    for diagnostic in verified:
        key = diagnostic.verdict.status if diagnostic.verdict else "(none)"
        counts[key] = counts.get(key, 0) + 1
    print("verdicts: " + ", ".join(f"{count} {status}" for status, count in sorted(counts.items())))
    return 0


def _where(diagnostic) -> str:
    try:
        path = Path(diagnostic.path).resolve().relative_to(ROOT).as_posix()
    except ValueError:
        path = diagnostic.path
    return f"{path}:{diagnostic.location.line}"


if __name__ == "__main__":
    sys.exit(main())
