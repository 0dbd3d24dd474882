"""A classifier whose class weights come from a NumPy file read at the top level and used in the very
step that is flagged (TCL007): --verify cannot run it without the file's values, which it never reads,
so the verdict says which read it needed."""

import numpy as np
import torch
from torch import nn

class_weights = torch.from_numpy(np.load("weights.npy")).float()
model = nn.Linear(8, 3)
criterion = nn.CrossEntropyLoss(weight=class_weights)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
total = 0
for step in range(100):
    x, y = torch.randn(16, 8), torch.randint(3, (16,))
    loss = criterion(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    total += loss  # expect: TCL007
