"""An evaluation whose flag says the loader's targets are one-hot: the leak sits on that path, which
needs both the flag's other value and targets of values (`torch.argmax(target, dim=1)`)."""

import torch
from torch import nn


def evaluate(model, loader, one_hot_targets=False):
    model.eval()
    criterion = nn.CrossEntropyLoss()
    loss = 0
    for data, target in loader:
        output = model(data)
        if one_hot_targets:
            loss += criterion(output, torch.argmax(target, dim=1))
            hits = torch.all(torch.eq(output, target), dim=1)
        else:
            loss = loss + criterion(output, target).item()
            hits = torch.eq(torch.argmax(output, dim=1), target)
    return loss, hits
