"""A family of trainers that share their base's constructor: each subclass takes `**kwargs` and hands
them on whole (`super().__init__(**kwargs)`), so what it is built with is the base's `model, loader,
optimizer`, passed by keyword."""
import torch


class BaseTrainer:
    def __init__(self, model, loader, optimizer, epochs=2):
        self.model = model
        self.loader = loader
        self.optimizer = optimizer
        self.epochs = epochs


class PenaltyTrainer(BaseTrainer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.history = []

    def train(self):
        for epoch in range(self.epochs):
            for x, y in self.loader:
                loss = torch.nn.functional.cross_entropy(self.model(x), y)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                self.history.append(loss)  # expect: TCL007
