"""Iterative attacks whose copy at the top of the loop records a node only from the second pass on:
the first pass copies a value made from detached images, the later ones the previous step's result,
which requires grad through `x`. The second attack reads an attribute a stand-in network does not have
right after the copy, so the loop never gets to its second pass."""

import torch
import torch.nn.functional as F


def iterative_attack(model, images, labels, steps=3):
    adv = images.detach() + 0.01 * torch.rand_like(images)
    for _ in range(steps):
        x = adv.clone().detach()  # expect: TCL005
        x.requires_grad_(True)
        loss = F.cross_entropy(model(x), labels)
        step, = torch.autograd.grad(loss, [x])
        adv = x + 0.01 * step.sign()
    return adv.detach()


def label_attack(model, images, steps=3):
    adv = images.detach() + 0.01 * torch.rand_like(images)
    for _ in range(steps):
        x = adv.clone().detach()  # expect: TCL005
        x.requires_grad_(True)
        predicted = torch.randint(model.num_classes, (x.shape[0],))
        loss = F.cross_entropy(model(x), predicted)
        step, = torch.autograd.grad(loss, [x])
        adv = x + 0.01 * step.sign()
    return adv.detach()


def one_step(model, images, labels, eps=0.03):
    """`images.requires_grad = True` is set on the code's own copy, not on what the caller passes, and
    the function differentiates against it: an attack's input, which its callers hand over as data
    (not flagged: the clone very likely records nothing)."""
    images = images.clone().detach()
    images.requires_grad = True
    loss = F.cross_entropy(model(images), labels)
    step, = torch.autograd.grad(loss, [images])
    return (images + eps * step.sign()).detach()
