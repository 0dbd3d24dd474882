"""A pruning helper, as model code keeps one: the kept rows of a layer, copied out before the layer is
rebuilt smaller. Nothing in the file passes it a real layer; `prune` hands its own `layer` on."""

import torch
from torch import nn


def prune_rows(layer, index, dim=0):
    index = index.to(layer.weight.device)
    kept = layer.weight.index_select(dim, index).clone().detach()  # expect: TCL005
    if dim == 1:
        bias = layer.bias.clone().detach()  # expect: TCL005
    else:
        bias = layer.bias[index].clone().detach()  # expect: TCL005
    sizes = list(layer.weight.size())
    sizes[dim] = len(index)
    pruned = nn.Linear(sizes[1], sizes[0])
    with torch.no_grad():
        pruned.weight.copy_(kept)
        pruned.bias.copy_(bias)
    return pruned


def prune(layer, index, dim=None):
    if isinstance(layer, nn.Linear):
        return prune_rows(layer, index, dim=0 if dim is None else dim)
    raise ValueError(f"cannot prune a {type(layer).__name__}")
