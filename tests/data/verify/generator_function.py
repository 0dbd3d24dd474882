"""A generator function: its body runs only as its result is iterated, so the experiment iterates it
(a few items) to reach the flagged line."""

import torch


def sliding_windows(values, steps):
    signal = torch.as_tensor(values)
    for start in range(steps):
        window = signal[start:start + 2]
        yield window.clone().abs()  # expect: TCL001
