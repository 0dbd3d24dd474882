"""A course's training loop in its own file; the model class comes from the project's models module."""
import torch

from course_models_lib import DigitsNet


def fit(epochs, model, train_loader, val_loader, lr=0.01):
    optimizer = torch.optim.SGD(model.parameters(), lr)
    history = []
    for epoch in range(epochs):
        epoch_losses = []
        for batch in train_loader:
            loss = model.training_step(batch)
            epoch_losses.append(loss)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        result = model.validation_epoch(val_loader)
        result["train_loss"] = torch.stack(epoch_losses).mean().item()
        history.append(result)
    return history


def build():
    return DigitsNet(hidden=64)
