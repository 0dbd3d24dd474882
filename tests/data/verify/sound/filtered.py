"""A copy in a comprehension whose filter keeps only what requires grad: the element the filter drops
is never copied, so what it holds says nothing of the claim (the line starts for it all the same)."""

import torch


def snapshot(tensors):
    return [t.clone().detach() for t in tensors if t.requires_grad]  # expect: TCL005


def shadow(model):
    return snapshot([torch.zeros(3), *model.parameters()])


def ema_of(parameters):
    return [p.clone().detach() for p in parameters if p.requires_grad]  # expect: TCL005
