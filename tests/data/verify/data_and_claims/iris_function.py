"""scikit-learn's iris, loaded at the top level and handed to a training function (TCL007 inside)."""

import torch
from torch import nn
from sklearn.datasets import load_iris


def train(model, features, labels, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    history = 0
    for epoch in range(epochs):
        loss = nn.functional.cross_entropy(model(features), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history += loss  # expect: TCL007
    return history


iris = load_iris()
inputs = torch.tensor(iris.data, dtype=torch.float32)
targets = torch.tensor(iris.target)
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
train(net, inputs, targets, 100)
