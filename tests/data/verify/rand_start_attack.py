"""A boundary attack whose start is perturbed only with `use_rand_start=True`, by a rule of each norm
the object keeps (FAB's `attack_single_run`, copied with AutoAttack and torchattacks). The copy of
the input is never needed (TCL001); the lines between the copy and its read run only with the flag
and the L2 norm at once, and the last branch raises for a norm it does not know (fresh76's and
fresh77's FAB copies: before, "never ran in 10 configurations tried")."""

import torch


class BoundaryAttack:
    def __init__(self, model, norm="Linf", eps=0.3):
        self.model = model
        self.norm = norm
        self.eps = eps

    def attack_single_run(self, x, use_rand_start=False):
        kept = x.detach().clone()
        start = kept.clone()
        moved = kept
        if use_rand_start:
            if self.norm == "Linf":
                noise = (2 * torch.rand_like(kept) - 1) * self.eps
            elif self.norm == "L2":
                noise = torch.randn_like(kept)
                noise = noise / noise.flatten(1).norm(dim=1).view(-1, *[1] * (kept.dim() - 1)) * self.eps
            else:
                raise ValueError("norm not supported")
            moved = (kept + noise).clamp(0.0, 1.0)
        distance = (moved - start).flatten(1).norm(dim=1)
        return distance, moved
