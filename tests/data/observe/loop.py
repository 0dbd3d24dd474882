"""A flagged statement inside a loop: `torch.tensor(t)` of a tensor (TCL008), run N times.

`python loop.py [N]` (default 1000) copies a small tensor N times and prints the
total. tests/test_observe.py checks the verdict counts every execution;
bench/observe_overhead.py times the loop plain and observed.
"""

import sys

import torch


def copies(n: int) -> float:
    t = torch.arange(4.0)
    total = 0.0
    for _ in range(n):
        copy = torch.tensor(t)
        total += float(copy.sum())
    return total


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    print(f"copies: {n}, total: {copies(n)}")
