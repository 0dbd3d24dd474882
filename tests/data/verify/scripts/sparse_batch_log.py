"""A classifier's training loop that keeps the loss of every 50th batch for a plot, graph and all
(TCL007): `if (i + 1) % 50 == 0` under `for i, (images, labels) in enumerate(train_loader)`. The
stand-in loader yields as many batches as the line takes to run, not its usual four."""

import torch
import torch.nn as nn
import torchvision
from torch.utils.data import DataLoader

train_set = torchvision.datasets.MNIST("data", train=True, download=True,
                                       transform=torchvision.transforms.ToTensor())
train_loader = DataLoader(train_set, batch_size=64, shuffle=True)
model = nn.Linear(784, 10)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loss_history = []
for epoch in range(5):
    for i, (images, labels) in enumerate(train_loader):
        outputs = model(images.reshape(-1, 784))
        loss = criterion(outputs, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if (i + 1) % 50 == 0:
            loss_history.append(loss)  # expect: TCL007
