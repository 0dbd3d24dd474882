"""A random-start attack whose start is a Parameter filled in place: in grad mode that write raises.
Nothing in this file calls it; `noise_evaluation.py` imports it and calls `perturb` only inside
`with torch.no_grad():`, where the write is allowed. The run in grad mode shows the error, but where
the code really runs the claim does not hold: unverified, naming those calls (fresh27's PGD attack)."""

import torch
from torch import nn


class NoiseAttack:
    def __init__(self, eps=0.03):
        self.eps = eps

    def perturb(self, images):
        delta = nn.Parameter(torch.zeros_like(images))
        delta.uniform_(-self.eps, self.eps)  # expect: TCL004
        return (images + delta).clamp(0, 1)
