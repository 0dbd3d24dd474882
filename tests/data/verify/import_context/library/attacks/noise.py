"""A noise attack its own constructor builds (a network for `model`, the defaults for the rest; its
`device="cuda"` default is the verification device; `eps`, None by default but computed with, a
number): what `Attack.__init__` sets is there."""

import torch

from .base import Attack


class NoiseAttack(Attack):
    def __init__(self, model, eps=None, device="cuda"):
        super().__init__("NoiseAttack", model)
        self.eps = eps
        self.step = eps / 4
        self.device = torch.device(device)

    def perturb(self, images, labels):
        noisy = (images + self.eps * torch.randn_like(images)).to(self.device)
        wrong = self.get_logits(noisy).argmax(1) != labels
        kept = noisy[wrong.nonzero().squeeze(1)].clone()  # expect: TCL001
        return kept.clamp(0, 1)
