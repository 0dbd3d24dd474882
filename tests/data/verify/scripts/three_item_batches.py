"""A classifier trained on batches of a loader its sibling module makes at import time, over a folder
that is not there (folder_loader.py): the loop takes each batch apart into an image, its class and its
colour. The loss list keeps every step's graph (TCL007). Stand-in batches hold three items, as the
loop unpacks them: an item no name says the kind of, beside an image, is a label."""

import torch
import torch.nn as nn

from folder_loader import image_loader

model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                      nn.Linear(4, 10))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
losses = []
for epoch in range(10):
    for x, u, s in image_loader:
        scores = model(x)
        loss = criterion(scores, u) + 0.1 * criterion(scores, s)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss)
