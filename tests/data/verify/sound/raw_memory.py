"""The same memory fed raw features, another fed its layer's output under no-grad, and another fed
the output of a module without weights of its own: nothing shows that what it is given requires
grad, so a made-up input confirms nothing."""

import torch
import torch.nn as nn


class Memory(nn.Module):
    def __init__(self, size, count):
        super().__init__()
        self.register_buffer("params", torch.tensor([-1.0, 0.07]))
        self.register_buffer("bank", torch.randn(count, size))

    def forward(self, v, idx):
        out = torch.exp(torch.mm(v, self.bank.t()) / self.params[1])
        if self.params[0].item() < 0:
            self.params[0] = out.mean()
            scale = self.params[0].clone().detach().item()  # expect: TCL005
        else:
            scale = self.params[0].item()
        return out / scale


class RawLookup(nn.Module):
    def __init__(self, size, count):
        super().__init__()
        self.memory = Memory(size, count)

    def forward(self, features, idx):
        return self.memory(features, idx)


class FrozenLookup(nn.Module):
    def __init__(self, inputs, size, count):
        super().__init__()
        self.embed = nn.Linear(inputs, size)
        self.memory = Memory(size, count)

    def forward(self, features, idx):
        with torch.no_grad():
            embedded = self.embed(features)
            return self.memory(embedded, idx)


class Normalize(nn.Module):
    def forward(self, x):
        return x / x.norm(dim=1, keepdim=True)


class NormalizedLookup(nn.Module):
    def __init__(self, size, count):
        super().__init__()
        self.normalize = Normalize()
        self.memory = Memory(size, count)

    def forward(self, features, idx):
        normalized = self.normalize(features)
        return self.memory(normalized, idx)
