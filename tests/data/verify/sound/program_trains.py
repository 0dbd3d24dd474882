"""`snapshot`'s only caller is a program that trains to make what it passes (`fit(model)`): that is
never run, so what `snapshot` is given is not known, and the verdict says what it assumed."""

import torch


def fit(model):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(1000):
        optimizer.zero_grad()
        model(torch.randn(8, 4)).sum().backward()
        optimizer.step()
    return model.weight


def snapshot(t):
    return t.clone().detach()  # expect: TCL005


def main():
    model = torch.nn.Linear(4, 2)
    weights = fit(model)
    return snapshot(weights)
