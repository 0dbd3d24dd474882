"""A tutorial script whose demonstrations are switched on and off by hand (`flag = False`): the
flagged in-place write on a leaf sits under a switch the script leaves off."""

import torch

# flag = True
flag = False
if flag:
    w = torch.tensor([1.0], requires_grad=True)
    y = (w + 2) * (w + 1)
    w.add_(1)
    y.backward()

flag = True
if flag:
    print("another demonstration")
