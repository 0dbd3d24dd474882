"""A loss whose arguments say nothing of their kind but arithmetic, until what they make is cloned."""

import torch


def weighted_pixels(out, target, original):
    difference = out - original
    kept = difference.clone()  # expect: TCL001
    kept = torch.where(target != 0, kept, torch.tensor(0.0))
    return torch.sum(torch.abs(kept))
