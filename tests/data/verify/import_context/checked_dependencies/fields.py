import torch


def as_leaf(points: torch.Tensor):
    weights = torch.randn(points.shape[1], 4, requires_grad=True)
    values = points @ weights
    kept = values.clone().detach()  # expect: TCL005
    return kept.requires_grad_(True)
