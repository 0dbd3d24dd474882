"""Split a saved dataset into tasks of a few classes each, as continual-learning scripts do (TCL001).

The four tensors are read from one file, unpacked: --verify reads no file, and stands in a value
for each name."""

import torch

train_x, train_y, test_x, test_y = torch.load("raw/tensors.pt")
train_x = train_x.float().reshape(train_x.size(0), -1)
classes_per_task = 2
tasks = []
for task in range(4):
    low, high = task * classes_per_task, (task + 1) * classes_per_task
    chosen = ((train_y >= low) & (train_y < high)).nonzero().view(-1)
    tasks.append((train_x[chosen].clone(), train_y[chosen]))  # expect: TCL001
torch.save(tasks, "tasks.pt")
