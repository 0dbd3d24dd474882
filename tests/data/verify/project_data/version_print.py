"""A course script that prints its packages' versions first."""

import torch
import torch.nn as nn
import torchvision

print(f"torch {torch.__version__}, torchvision {torchvision.__version__}")

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
total = 0
for step in range(10):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    total += loss  # expect: TCL007
