"""The model classes of a course project, in their own module: its training script imports them."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class ImageClassifierBase(nn.Module):
    def training_step(self, batch):
        images, labels = batch
        return F.cross_entropy(self(images), labels)

    def validation_epoch(self, loader):
        losses = [F.cross_entropy(self(images), labels).detach() for images, labels in loader]
        return {"val_loss": torch.stack(losses).mean().item()}


class DigitsNet(ImageClassifierBase):
    def __init__(self, hidden=32):
        super().__init__()
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, hidden), nn.ReLU(), nn.Linear(hidden, 10))

    def forward(self, x):
        return self.body(x)
