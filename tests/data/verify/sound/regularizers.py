"""A lifelong-learning notebook's regularizers: objects (not modules) that the top level builds from
the script's own network. What `__init__` copies depends on what it is given: the network's
parameters (which require grad) for `Anchor`, `state_dict()` tensors (which never do) for `Frozen`,
so the script's own calls decide, not stand-ins made to require grad."""

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(12, 8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class Anchor:
    def __init__(self, model, loaders, device):
        self.model = model
        self.loaders = loaders
        self.device = device
        self.params = {n: p for n, p in self.model.named_parameters() if p.requires_grad}
        self.old = {}
        self.importance = self._importance()
        for n, p in self.params.items():
            self.old[n] = p.clone().detach()  # expect: TCL005

    def _importance(self):
        importance = {n: torch.zeros_like(p) for n, p in self.params.items()}
        if self.loaders[0] is not None:  # the first task has no data to weigh the parameters with
            for loader in self.loaders:
                for x, y in loader:
                    self.model.zero_grad()
                    nn.functional.cross_entropy(self.model(x.to(self.device)), y).backward()
                    for n, p in self.params.items():
                        importance[n] += p.grad ** 2 / len(loader)
        return importance

    def refresh(self):
        for n, p in self.params.items():
            self.old[n] = p.clone().detach()  # expect: TCL005


class Frozen:
    def __init__(self, weights, strength):
        self.strength = strength
        self.saved = {}
        for n, w in weights.items():
            self.saved[n] = w.clone().detach()  # expect: TCL005


device = "cuda" if torch.cuda.is_available() else "cpu"
model = Net().to(device)
anchor = Anchor(model=model, loaders=[None], device=device)
frozen = Frozen(model.state_dict(), 0.5)
