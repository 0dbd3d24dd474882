"""An epoch over a fifth of the loader (fresh80's profiling homework): `max_steps = len(loader) // 5`,
then `if i >= max_steps: break`. Over four stand-in batches that is zero, and the loop stopped after
one pass; the loss accumulated with its graph needs two to show."""

import torch


def run_epoch(model, train_loader, criterion, optimizer):
    epoch_loss = 0
    max_steps = len(train_loader) // 5
    for i, (data, label) in enumerate(train_loader):
        output = model(data)
        loss = criterion(output, label)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        epoch_loss += loss / len(train_loader)
        if i >= max_steps:
            break
    return epoch_loss
