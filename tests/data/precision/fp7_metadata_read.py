import torch


def f(x: torch.Tensor) -> torch.Tensor:
    y = x.view(-1)
    x.add_(1)
    return torch.zeros(y.shape, dtype=y.dtype)
