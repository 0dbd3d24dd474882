import torch


def f(c: bool):
    x = torch.zeros(3)
    z = torch.ones(3)
    if c:
        z = x
    else:
        x.add_(1)
    return z + 1
