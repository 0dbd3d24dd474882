"""A tutorial's cell of writes to a parameter, one entry per line: PyTorch refuses each (the weight is
a leaf that requires grad) before writing anything, so each is confirmed on its own, the later ones
after the run went past the earlier refusals."""

import torch
from torch import nn

layer = nn.Linear(2, 3, bias=False)
layer.weight[0, 0] = 1
layer.weight[0, 1] = 2
layer.weight[1, 0] = 3
print(layer(torch.ones(2)))
