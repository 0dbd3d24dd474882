"""PGD calling FGSM in a loop that hands each step's output to the next (TCL005): from the second step
on, `x` is what the previous step computed from a leaf that requires grad, so its clone records a
node. With made-up inputs the loop stops after one step (the label flips at once): one step, whose
`x` does not require grad, refutes nothing of the later ones."""
import torch
from torch import nn


def fgsm(model, x, target, eps):
    start = x.clone().detach_()  # expect: TCL005
    start.requires_grad_()
    loss = nn.CrossEntropyLoss()(model(start), target)
    loss.backward()
    return start + eps * start.grad.sign()


def pgd(model, x, target, steps, eps):
    x_min, x_max = x - eps, x + eps
    x = 2 * eps * torch.rand_like(x) - eps  # a random start, which needs no grad
    for _ in range(steps):
        x = fgsm(model, x, target, eps / 4)
        x = torch.min(torch.max(x, x_min), x_max)
        if (model(x).argmax(1) != target).all():
            break
    return x
