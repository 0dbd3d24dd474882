"""A course's Runner: how long to train comes from its caller, through **kwargs, 0 epochs by default."""

import torch


class Runner:
    def __init__(self, model, optimizer, loss_fn):
        self.model, self.optimizer, self.loss_fn = model, optimizer, loss_fn

    def train(self, train_loader, **kwargs):
        num_epochs = kwargs.get("num_epochs", 0)
        for epoch in range(num_epochs):
            total_loss = 0
            for X, y in train_loader:
                loss = self.loss_fn(self.model(X), y)
                total_loss += loss  # expect: TCL007
                loss.backward()
                self.optimizer.step()
                self.optimizer.zero_grad()
        return total_loss
