"""A course's trainer base class: abstract (`ABC`), its loaders implemented by subclasses in other files."""
from abc import ABC, abstractmethod

import torch
from torch import nn


class Learning(ABC):
    def __init__(self, model, train_loader, lr=0.1):
        self.model = model
        self.train_loader = train_loader
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        self.criterion = nn.CrossEntropyLoss()

    @abstractmethod
    def _load_test(self):
        raise NotImplementedError

    def train(self, epochs=1):
        for epoch in range(epochs):
            total_loss = 0
            for x, y in self.train_loader:
                loss = self.criterion(self.model(x), y)
                total_loss += loss
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
        return total_loss
