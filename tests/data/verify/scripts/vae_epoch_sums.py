"""A VAE's training epoch, given its model and loader by a caller not in sight: the reconstruction
is compared with the input by a loss object, and the epoch's sums keep every step's graph (TCL007).
The stand-in network must return an output of its input's shape for the loss to run."""

import torch
from torch import nn


def train_epoch(model, optimizer, loader, kl_weight=1.0):
    criterion = nn.BCEWithLogitsLoss(reduction="sum")
    epoch_loss = 0
    for images, _ in loader:
        optimizer.zero_grad()
        reconstruction, mean, log_variance = model(images)
        kl = -0.5 * torch.sum(1 + log_variance - mean.pow(2) - log_variance.exp())
        loss = criterion(reconstruction, images) + kl_weight * kl
        loss.backward()
        optimizer.step()
        epoch_loss += loss
    return epoch_loss / len(loader)
