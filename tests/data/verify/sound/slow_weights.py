"""An optimizer written by hand that keeps a slow copy of what it trains (a Lookahead): what the code
hands torch.optim's Optimizer is a network's parameters, which require grad. A helper that only
reads `requires_grad` of what it is given says nothing of that."""

import torch
from torch.optim import Optimizer


class SlowFast(Optimizer):
    def __init__(self, params, lr=1e-3, alpha=0.5):
        super().__init__(params, dict(lr=lr, alpha=alpha))
        self.slow = [[p.clone().detach() for p in group["params"]]  # expect: TCL005
                     for group in self.param_groups]

    @torch.no_grad()
    def step(self, closure=None):
        for group, slow in zip(self.param_groups, self.slow):
            for p, q in zip(group["params"], slow):
                if p.grad is not None:
                    p.add_(p.grad, alpha=-group["lr"])
                    q.add_(p - q, alpha=group["alpha"])
                    p.copy_(q)
