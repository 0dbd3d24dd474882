"""Does the analysis scale linearly with the size of a function?

    python bench/scale.py                 # sizes 500 and 5000
    python bench/scale.py --sizes 500,1000,2000,5000 --repeat 5
    python bench/scale.py --emit 200      # print the generated module and exit

A synthetic `forward` of N statements is generated: nested if/else, for, while,
try and with blocks (depth up to 4) around realistic tensor code (module calls,
aliases, clones, in-place methods, augmented assignments, views, reads). The
number of distinct local names grows with N, so an analysis that is quadratic
in names x statements shows it. `lint_source` is timed (median of --repeat runs,
CPU seconds of this process, steadier than wall time on a shared machine) next
to a bare `libcst.parse_module`, the floor; time(largest)/time(smallest) should
be near the size ratio (10 for 500 -> 5000), not its square.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Callable, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout

MAX_DEPTH = 4
INDENT = "    "
HEADER = '''import torch
import torch.nn as nn
import torch.nn.functional as F


class Synthetic(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv0 = nn.Conv2d(8, 8, 3, padding=1)
        self.conv1 = nn.Conv2d(8, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.relu = nn.ReLU(inplace=True)
        self.act = nn.GELU()

    def forward(self, x):
'''


class Generator:
    """Emits statements into `lines` until `budget` statements have been written."""

    def __init__(self, statements: int, seed: int = 0):
        self.random = random.Random(seed)
        self.budget = statements
        self.count = 0
        self.lines: list[str] = []
        self.names: list[str] = ["x"]  # every name defined so far, in order
        self.next_name = 0

    # -- names ---------------------------------------------------------------
    def fresh(self) -> str:
        name = f"t{self.next_name}"
        self.next_name += 1
        self.names.append(name)
        return name

    def some(self) -> str:
        """A name defined earlier: mostly recent ones, sometimes far back (long live ranges)."""
        if self.random.random() < 0.8:
            window = self.names[-12:]
        else:
            window = self.names
        return self.random.choice(window)

    def target(self) -> str:
        """A new name most of the time (so names grow with N), an old one otherwise (rebinding)."""
        return self.fresh() if self.random.random() < 0.6 else self.some()

    # -- statements ------------------------------------------------------------
    def emit(self, depth: int, text: str) -> None:
        self.lines.append(INDENT * (depth + 2) + text)
        self.count += 1

    def simple(self, depth: int) -> None:
        a, b = self.some(), self.some()
        r = self.random.randrange(14)
        if r == 0:
            self.emit(depth, f"{self.target()} = self.conv{self.random.randrange(3)}({a})")
        elif r == 1:
            self.emit(depth, f"{self.fresh()} = {a}")
        elif r == 2:
            self.emit(depth, f"{self.fresh()} = {a}.clone()")
        elif r == 3:
            self.emit(depth, f"{a}.add_(1)")
        elif r == 4:
            self.emit(depth, f"{a} += {b}")
        elif r == 5:
            self.emit(depth, f"{self.target()} = {a} + {b}")
        elif r == 6:
            self.emit(depth, f"{self.target()} = self.relu({a})")
        elif r == 7:
            self.emit(depth, f"{self.fresh()} = {a}.view(-1)")
        elif r == 8:
            self.emit(depth, f"{self.target()} = F.relu({a}, inplace=True)")
        elif r == 9:
            self.emit(depth, f"{self.target()} = torch.cat([{a}, {b}], dim=1)")
        elif r == 10:
            self.emit(depth, f"{a}[0] = {b}.mean()")
        elif r == 11:
            self.emit(depth, f"{self.target()} = self.bn({a}) * {b}")
        elif r == 12:
            self.emit(depth, f"print({a}.shape, {b}.sum().item())")
        else:
            self.emit(depth, f"{self.target()} = {a}.detach()")

    def block(self, depth: int, size: int) -> None:
        """About `size` statements at `depth`, some of them compound."""
        end = min(self.count + size, self.budget)
        first = True  # a body is never empty, even when the budget is spent
        while first or self.count < end:
            first = False
            if depth < MAX_DEPTH and end - self.count > 4 and self.random.random() < 0.2:
                self.compound(depth, self.random.randint(2, min(12, end - self.count - 1)))
            else:
                self.simple(depth)

    def compound(self, depth: int, size: int) -> None:
        kind = self.random.randrange(5)
        a = self.some()
        if kind == 0:
            self.emit(depth, f"if {a}.sum() > 0:")
            half = max(1, size // 2)
            self.block(depth + 1, half)
            self.lines.append(INDENT * (depth + 2) + "else:")
            self.block(depth + 1, max(1, size - half))
        elif kind == 1:
            self.emit(depth, f"for i{depth} in range(3):")
            self.block(depth + 1, size)
        elif kind == 2:
            self.emit(depth, f"while {a}.mean() > 1:")
            self.block(depth + 1, max(1, size - 1))
            self.emit(depth + 1, "break")
        elif kind == 3:
            self.lines.append(INDENT * (depth + 2) + "try:")
            self.count += 1
            self.block(depth + 1, max(1, size - 1))
            self.lines.append(INDENT * (depth + 2) + "except RuntimeError:")
            self.emit(depth + 1, f"{self.target()} = {self.some()}.clone()")
        else:
            self.emit(depth, "with torch.no_grad():")
            self.block(depth + 1, size)


def generate(statements: int, seed: int = 0) -> tuple[str, int, int]:
    """(module source, statements emitted, distinct local names)."""
    generator = Generator(statements, seed)
    generator.block(0, statements)
    body = "\n".join(generator.lines)
    last = generator.some()
    source = HEADER + body + f"\n        return {last}\n"
    return source, generator.count, len(set(generator.names))


def median_seconds(function: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.process_time()  # CPU time: steadier than wall time on a shared machine
        function()
        times.append(time.process_time() - started)
    return statistics.median(times)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500,5000", help="comma-separated statement counts")
    parser.add_argument("--repeat", type=int, default=3, help="runs per size; the median is shown")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--emit", type=int, default=None, help="print the module for this size and exit")
    args = parser.parse_args(argv)

    if args.emit is not None:
        print(generate(args.emit, args.seed)[0], end="")
        return 0

    import libcst as cst

    from torchcopylint.engine import lint_source

    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    rows = []
    print(f"{'statements':>10} {'names':>6} {'lines':>6} {'findings':>8} {'parse cpu':>9} {'lint cpu':>9} {'lint/parse':>10}")
    for size in sizes:
        source, count, names = generate(size, args.seed)
        findings = len(lint_source(source, "<synthetic>"))  # also a warm-up
        parse = median_seconds(lambda: cst.parse_module(source), args.repeat)
        lint = median_seconds(lambda: lint_source(source, "<synthetic>"), args.repeat)
        rows.append((count, parse, lint))
        print(f"{count:>10} {names:>6} {source.count(chr(10)):>6} {findings:>8} {parse:>9.3f} {lint:>9.3f} {lint / parse:>10.2f}")
    if len(rows) >= 2:
        (small, parse_small, lint_small), (large, parse_large, lint_large) = rows[0], rows[-1]
        print(f"\nsize ratio {large / small:.1f}: parse time ratio {parse_large / parse_small:.1f}, "
              f"lint time ratio {lint_large / lint_small:.1f} "
              f"(analysis alone, lint - parse: {(lint_large - parse_large) / max(lint_small - parse_small, 1e-9):.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
