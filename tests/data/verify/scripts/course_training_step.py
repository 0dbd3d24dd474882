"""A course's training loop: the model class carries its own step (no top-level call of `fit`)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def fit(epochs, lr, model, train_loader, val_loader, opt_func=torch.optim.SGD):
    history = []
    optimizer = opt_func(model.parameters(), lr)
    for epoch in range(epochs):
        model.train()
        train_losses = []
        for batch in train_loader:
            loss = model.training_step(batch)
            train_losses.append(loss)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        result = model.evaluate(val_loader)
        result["train_loss"] = torch.stack(train_losses).mean().item()
        history.append(result)
    return history


class ClassificationBase(nn.Module):
    def training_step(self, batch):
        images, labels = batch
        return F.cross_entropy(self(images), labels)

    def evaluate(self, loader):
        losses = [F.cross_entropy(self(images), labels).detach() for images, labels in loader]
        return {"val_loss": torch.stack(losses).mean().item()}


class MnistCnn(ClassificationBase):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU())
        self.classifier = nn.Linear(8 * 28 * 28, 10)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))
