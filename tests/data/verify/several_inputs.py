"""Modules whose forward takes several inputs that no single input shape fills: a perturbation that
takes the classifier it attacks, and a memory that scores two views against the rows its indices
pick. Their inputs are stand-ins from how forward uses them (a network for the one it calls, class
indices for the one it indexes with), of the width the module is built with; keyword-only
parameters by keyword."""

import torch
from torch import nn
from torch.nn import functional as F


class RandomStartAttack(nn.Module):
    def __init__(self, radius, steps):
        super().__init__()
        self.radius = radius
        self.steps = steps

    def forward(self, classifier, images, labels):
        start = images.detach()  # expect: TCL006
        start += torch.empty_like(start).uniform_(-1e-3, 1e-3)
        for _ in range(self.steps):
            start.requires_grad_()
            loss = F.cross_entropy(classifier(start), labels)
            grad, = torch.autograd.grad(loss, start)
            start = start.detach() + 1e-3 * grad.sign()
        return torch.min(torch.max(start, images - 1e-2), images + 1e-2)


class PairMemory(nn.Module):
    def __init__(self, width, slots):
        super().__init__()
        self.register_buffer("bank", torch.rand(slots, width))

    def forward(self, left, right, index):
        rows = torch.index_select(self.bank, 0, index.view(-1))
        score = torch.bmm(rows.view(left.size(0), 1, -1), right.view(left.size(0), -1, 1))
        return score.clone().exp()  # expect: TCL001


def shifted(values, *, offset, scale=1.0):
    """Keyword-only parameters (`*, offset`) are passed by keyword."""
    base = torch.as_tensor(values) * scale
    return base.clone().add(offset * 2.0)  # expect: TCL001
