"""Parameters made in a comprehension handed straight to the optimizer: each element is the copy of
a leaf (`.double()`, `.to(dev)`), so the optimizer gets no leaves."""

import torch

dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
opt = torch.optim.SGD([torch.ones(2, requires_grad=True).double() for _ in range(3)], lr=0.1)  # expect: TCL012
moved = torch.optim.SGD([torch.ones(2, requires_grad=True).to(dev) for _ in range(3)], lr=0.1)  # expect: TCL012
kept = torch.optim.SGD([torch.ones(2, requires_grad=True) for _ in range(3)], lr=0.1)
