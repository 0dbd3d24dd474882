"""A denoising trainer whose loaders a sibling module's function builds: the loop reads each batch by
key, `batch["noisy"]` and `batch["clean"]`. The running loss keeps every iteration's graph (TCL007).
Stand-in batches are dicts of those keys, as the loops take them apart."""

import torch
import torch.nn as nn

from denoise_loaders import get_loaders

train_loader, test_loader = get_loaders("data/sidd", batch_size=8)
model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 3, 3, padding=1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.MSELoss()


def train_epoch(loader):
    running_loss = 0
    for batch in loader:
        noisy = batch["noisy"].float()
        clean = batch["clean"].float()
        loss = criterion(model(noisy), clean)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running_loss += loss
    return running_loss / len(loader)


def evaluate(loader):
    errors = []
    for batch in loader:
        errors.append(criterion(model(batch["noisy"]), batch["clean"]).item())
    return errors


for epoch in range(20):
    print(train_epoch(train_loader))
    print(evaluate(test_loader))
