"""An attack step whose bounds are numbers the code compares (`lo < hi`), and whose device is read
through `.type`: stand-ins of the wrong kind (a tensor for `lo`, a string for `device`) would fail
before the flagged line ("Boolean value of Tensor with more than one value is ambiguous")."""

import torch


def pgd(model, x, lo, hi, step, device, steps):
    x = x.to(device)
    if device.type == "cuda":
        torch.cuda.synchronize()
    if lo is not None and lo < hi:
        x = torch.clamp(x, lo, hi)
    delta = torch.zeros_like(x, requires_grad=True)
    for _ in range(steps):
        loss = model(x + delta).sum()
        loss.backward()
        delta.add_(step * delta.grad.sign())  # expect: TCL004
    return x + delta
