"""A script that expects the gradient in `y1`, computed from the leaf `x`: it reads `y1.grad` after
the backward of a loss made from it, and never looks at `x.grad`. The slice of that read keeps the
backward, which gives the gradients. (Where the script also reads `x.grad`, it knows which is the
leaf, and `y1.grad` is a look at a non-leaf: not flagged.)"""

import torch

x = torch.tensor(3.0, requires_grad=True)
y1 = x + 1
y2 = 2 * x
loss = (y1 - y2) ** 2
print("loss", loss.item())
loss.backward()
print("y1.grad:", y1.grad)
