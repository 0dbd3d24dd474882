"""An attack through a purifier that projects onto a ball around its input: made up as tensors that
require grad, the input ties each step's projection to the next, and the run without
`retain_graph=True` failed on that alone; a program's images are data, and with them it runs."""

import torch
from torch import nn


class PurifiedAttack:
    def __init__(self, model, purifier, epsilon=0.03, step=0.01, steps=20):
        self.model = model
        self.purifier = purifier
        self.loss_fn = nn.CrossEntropyLoss()
        self.epsilon = epsilon
        self.step = step
        self.steps = steps

    def generate(self, x, y):
        adv = x.detach().clone()
        lower = torch.clamp(x - self.epsilon, 0, 1)
        upper = torch.clamp(x + self.epsilon, 0, 1)
        for _ in range(self.steps):
            purified = self.purifier(adv)
            purified.requires_grad_()
            purified.retain_grad()
            scores = self.model(purified)
            loss = self.loss_fn(scores, y)
            loss.backward(retain_graph=True)  # expect: TCL011
            direction = purified.grad.data.sign()
            adv = adv + self.step * direction
            adv = torch.clamp(adv, lower, upper)
        return adv
