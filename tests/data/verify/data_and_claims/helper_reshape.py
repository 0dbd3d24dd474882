"""The reshape of a batch is in a helper (`flatten(x)`), where no reading of the step sees it: the
first run fails on it (`view(-1, 784)` of 3x64x64 samples) and the experiment is tried again with
samples shaped for it. `total += loss` keeps every iteration's graph (TCL007)."""

import torch
from torch import nn
from torchvision import datasets, transforms

loader = torch.utils.data.DataLoader(datasets.ImageFolder("faces/", transform=transforms.ToTensor()), batch_size=8)
model = nn.Sequential(nn.Linear(784, 64), nn.ReLU(), nn.Linear(64, 10))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def flatten(batch):
    return batch.view(-1, 784)


def train():
    total = 0
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(flatten(x)), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss  # expect: TCL007
    return total
