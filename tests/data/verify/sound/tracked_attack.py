"""An attack whose `forward` copies its input in the wrong order. Nothing in this file calls it, but
another file of the tree (`attack_campaign.py`) imports it and hands it data batches, which never
require grad: the conditional TCL005 must not be confirmed on a made-up input that requires grad
(fresh26's JSMA attack, whose only user passes test images)."""

import torch
from torch import nn


class TrackedAttack(nn.Module):
    def __init__(self, model, steps=3):
        super().__init__()
        self.model = model
        self.steps = steps

    def forward(self, input):
        adversarial = input.clone().detach()  # expect: TCL005
        for _ in range(self.steps):
            adversarial = adversarial + 0.01 * torch.sign(torch.randn_like(adversarial))
        return adversarial
