"""What does `--verify --run CMD` cost over running CMD alone?

    python bench/observe_overhead.py                 # 3 rounds
    python bench/observe_overhead.py --repeat 5 --loop 1000,20000 --json bench/results/observe.json

Times, as wall-clock seconds of whole processes, interleaved round by round (one
warm-up round first, not counted), medians over the rounds:

- the example DCGAN training script (examples/train/dcgan.py: two iterations on random
  data) run plain, `python train/dcgan.py`, and observed,
  `torchcopylint --verify --run "python train/dcgan.py" train/dcgan.py`;
- torchcopylint's own static lint of the same file, alone (no torch import), so that the
  reader sees where the observed run's time goes: lint + the command + the hook and probes;
- the 1,000-execution loop fixture (tests/data/observe/loop.py: a flagged
  `torch.tensor(t)` in a loop), plain and observed, as whole processes;
- the same loop timed inside the process (perf_counter around `copies(N)`, the torch
  import excluded), plain and observed, for each N of --loop: the probes' cost per
  execution, which the whole-process figures drown in the start-up time.

The ratio printed for the DCGAN run is observed / plain with nothing subtracted; the
target is at most 1.5. Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
LOOP_DIR = ROOT / "tests" / "data" / "observe"
TARGET_RATIO = 1.5
PYTHON = sys.executable
LINT = [PYTHON, "-m", "torchcopylint"]


def environment() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # the same for both runs, and nothing written into the tree
    return env


def observed(command: list[str], *paths: str) -> list[str]:
    return [*LINT, "--verify", "--run", shlex.join(command), "--exit-zero", *paths]


def loop_driver(n: int) -> list[str]:
    code = (f"import time, loop; started = time.perf_counter(); loop.copies({n}); "
            "print(f'loop seconds: {time.perf_counter() - started:.6f}', flush=True)")
    return [PYTHON, "-c", code]


GROUPS = ("dcgan", "loop", "inproc")


def cases(loop_sizes: list[int], groups: tuple[str, ...] = GROUPS) -> dict[str, tuple[list[str], Path]]:
    dcgan = [PYTHON, "train/dcgan.py"]
    loop = [PYTHON, "loop.py", "1000"]
    found = {}
    if "dcgan" in groups:
        found["dcgan plain"] = (dcgan, EXAMPLES)
        found["dcgan observed"] = (observed(dcgan, "train/dcgan.py"), EXAMPLES)
        found["dcgan lint only"] = ([*LINT, "--exit-zero", "train/dcgan.py"], EXAMPLES)
    if "loop" in groups:
        found["loop 1000 plain"] = (loop, LOOP_DIR)
        found["loop 1000 observed"] = (observed(loop, "loop.py"), LOOP_DIR)
    if "inproc" in groups:
        for n in loop_sizes:
            found[f"in-process loop {n} plain"] = (loop_driver(n), LOOP_DIR)
            found[f"in-process loop {n} observed"] = (observed(loop_driver(n), "loop.py"), LOOP_DIR)
    return found


def run_once(command: list[str], cwd: Path) -> tuple[float, float | None]:
    """(wall seconds, the loop seconds the process printed, if any)."""
    started = time.perf_counter()
    completed = subprocess.run(command, cwd=cwd, env=environment(), stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if completed.returncode != 0:
        sys.exit(f"failed ({completed.returncode}): {shlex.join(command)}\n{completed.stdout}\n{completed.stderr}")
    match = re.search(r"loop seconds: ([0-9.]+)", completed.stdout + completed.stderr)
    return wall, float(match.group(1)) if match else None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="counted rounds (at least 3; default 3)")
    parser.add_argument("--loop", default="1000,20000", help="N for the in-process loop timings (default 1000,20000)")
    parser.add_argument("--only", default=",".join(GROUPS),
                        help=f"comma-separated groups to time, of {', '.join(GROUPS)} (default: all)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    arguments = parser.parse_args(argv)
    repeat = max(3, arguments.repeat)
    loop_sizes = [int(n) for n in arguments.loop.split(",") if n.strip()]
    groups = tuple(group.strip() for group in arguments.only.split(",") if group.strip())
    unknown = [group for group in groups if group not in GROUPS]
    if unknown:
        parser.error(f"unknown group(s) {', '.join(unknown)}; choose from {', '.join(GROUPS)}")
    selected = cases(loop_sizes, groups)

    walls: dict[str, list[float]] = {name: [] for name in selected}
    inner: dict[str, list[float]] = {name: [] for name in selected}
    for round_number in range(repeat + 1):  # round 0 warms the page cache and is not counted
        names = list(selected)
        if round_number % 2:  # alternate the order, so neither side always runs first
            names.reverse()
        for name in names:
            wall, loop_seconds = run_once(*selected[name])
            if round_number:
                walls[name].append(wall)
                if loop_seconds is not None:
                    inner[name].append(loop_seconds)
        label = "warm-up" if not round_number else f"round {round_number}/{repeat}"
        print(f"{label} done", file=sys.stderr, flush=True)

    def median(name: str, table=walls) -> float:
        return statistics.median(table[name])

    print(f"python: {PYTHON}; rounds: {repeat} (after one warm-up round); wall-clock seconds, whole processes")
    print(f"{'case':<34} {'median':>8} {'min':>8} {'max':>8}")
    for name in selected:
        print(f"{name:<34} {median(name):8.3f} {min(walls[name]):8.3f} {max(walls[name]):8.3f}")

    print()
    figures: dict = {"rounds": repeat, "walls": walls}
    if "dcgan" in groups:
        plain, seen, lint = median("dcgan plain"), median("dcgan observed"), median("dcgan lint only")
        ratio = seen / plain
        print(f"DCGAN: observed / plain = {seen:.2f} / {plain:.2f} s = {ratio:.2f}x "
              f"(target <= {TARGET_RATIO}x: {'met' if ratio <= TARGET_RATIO else 'NOT met'})")
        print(f"  where the observed run's time goes: torchcopylint's static lint {lint:.2f} s (alone), "
              f"the command {plain:.2f} s (plain), the rest {seen - lint - plain:+.2f} s (hook, probes, verdicts)")
        figures.update(dcgan_ratio=ratio, lint_seconds=lint)
    if "loop" in groups:
        loop_plain, loop_seen = median("loop 1000 plain"), median("loop 1000 observed")
        print(f"loop fixture, 1000 executions, whole process: observed / plain = {loop_seen:.2f} / "
              f"{loop_plain:.2f} s = {loop_seen / loop_plain:.2f}x")
        figures["loop_ratio"] = loop_seen / loop_plain
    for n in loop_sizes:
        a, b = f"in-process loop {n} plain", f"in-process loop {n} observed"
        if a in inner and inner[a] and inner[b]:
            p, o = median(a, inner), median(b, inner)
            print(f"loop of {n} inside the process: plain {p * 1e3:.1f} ms, observed {o * 1e3:.1f} ms: "
                  f"{o / p:.2f}x, {(o - p) / n * 1e6:.1f} us per probed execution")
            figures[f"in_process_{n}"] = {"plain": inner[a], "observed": inner[b]}
    if arguments.json:
        arguments.json.parent.mkdir(parents=True, exist_ok=True)
        arguments.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
