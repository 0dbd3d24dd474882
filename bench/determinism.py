"""Lint folders under several hash seeds and print every finding that is not reported under all of them.

    python bench/determinism.py DIR [DIR ...]

The analysis must not depend on the order Python's sets iterate in (which follows the hash seed):
a finding that comes and goes between runs is a flaky CI job. Prints one line per folder that
differs, then how many did.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

SEEDS = ("1", "6", "11")


def findings(folder: str, seed: str) -> set:
    completed = subprocess.run([sys.executable, "-m", "torchcopylint", "check", "--no-cache", "--exit-zero",
                                "--output-format", "json", "-j", "1", "."], cwd=folder, capture_output=True,
                               text=True, env={**os.environ, "PYTHONHASHSEED": seed})
    return {(r["path"], r["line"], r["code"], r["message"]) for r in json.loads(completed.stdout or "[]")}


def main(folders: list[str]) -> int:
    differ = 0
    for folder in folders:
        runs = [findings(folder, seed) for seed in SEEDS]
        unstable = set.union(*runs) - set.intersection(*runs)
        if unstable:
            differ += 1
            print(f"{folder}: {sorted((path, line, code) for path, line, code, _ in unstable)}")
    print(f"{differ} of {len(folders)} folders differ between hash seeds {', '.join(SEEDS)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
