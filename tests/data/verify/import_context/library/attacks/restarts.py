"""An attack whose public entry prepares the object before the step it repeats: `run_once` reads
`self.sample_dims`, which only `setup(x)` sets, and `attack` calls `setup(x)` first. The experiment
on `run_once` runs `setup` with the same `x` before it."""

import torch


class RestartAttack:
    def __init__(self, model, steps=3, eps=0.1):
        self.model = model
        self.steps = steps
        self.eps = eps

    def setup(self, x):
        self.sample_dims = x.dim() - 1
        self.scale = self.eps / max(self.steps, 1)

    def run_once(self, x, y):
        delta = torch.zeros_like(x)
        best = x.clone()
        for _ in range(self.steps):
            delta = (delta + self.scale * torch.sign(torch.randn_like(x))).clamp(-self.eps, self.eps)
            candidate = x + delta
            index = (self.model(candidate).argmax(1) == y).logical_not().nonzero().squeeze(1)
            best[index] = candidate[index].clone()  # expect: TCL001
        return best.view(x.shape[0], *x.shape[-self.sample_dims:])

    def attack(self, x, y):
        self.setup(x)
        return self.run_once(x, y)
