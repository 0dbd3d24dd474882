"""An attack with restarts that keeps the best result of each sample: the first restart's values are
kept by detaching them, later restarts write into those through the alias. Every restart's step loop
rebinds `lolip` before the write, so what `lolip` is read as never shares the written memory: a
TCL006 here is false (fresh57's Lipschitz attack: only a step loop that never ran would read the old
`lolip`; the linter no longer reports it, and the test hands --verify the diagnosis it used to make),
and --verify must refute it, not confirm it by comparing the first restart's values with the second's."""

import torch
from torch import nn


class LocalLipschitz(nn.Module):
    def forward(self, x, x_adv, out, adv_out):
        return torch.norm(adv_out - out, dim=1) / torch.norm((x_adv - x).flatten(1), dim=1)


def local_lipschitz(model, batches, restarts=2, steps=3, eps=0.1, alpha=0.02):
    lll = LocalLipschitz()
    for x in batches:
        out = model(x).detach()
        for restart in range(restarts):
            x_adv = x + torch.zeros_like(x).uniform_(-eps, eps)
            for _ in range(steps):
                x_adv = x_adv.detach().requires_grad_(True)
                lolip = lll.forward(x, x_adv, out, model(x_adv))
                torch.sum(lolip).backward()
                x_adv = x_adv.data + alpha * x_adv.grad.sign()
            if restart == 0:
                best = lolip.detach()
            else:
                better = lolip > best
                best[better] = lolip[better].detach()
    return best
