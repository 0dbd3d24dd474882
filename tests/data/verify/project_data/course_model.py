"""The course's training script: as many outputs as the data module's dataset has classes."""

import torch
from torch import nn

from course_data import class_names, train_dataloader

model = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 10), nn.Linear(10, len(class_names)))
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(3):
    train_loss = 0
    for X, y in train_dataloader:
        loss = loss_fn(model(X), y)
        train_loss += loss  # expect: TCL007
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
