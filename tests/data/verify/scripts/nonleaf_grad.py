"""A tutorial's look at gradients: `y1` is computed from the leaf `x`, and the script reads `y1.grad`
after the backward of a loss made from it. The slice of that read keeps the backward, which gives
the gradients."""

import torch

x = torch.tensor(3.0, requires_grad=True)
y1 = x + 1
y2 = 2 * x
loss = (y1 - y2) ** 2
print("loss", loss.item())
loss.backward()
print("y1.grad:", y1.grad)
print("x.grad:", x.grad)
