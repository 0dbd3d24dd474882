"""A memory bank of embeddings (a contrastive loss's), normalised by a constant it estimates on its
first call from what it is given. Whether that estimate requires grad depends on what the parts of
the networks below feed it: their own layers' outputs (it does), raw inputs (it does not), or
anything under no-grad (it does not)."""

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


class Embed(nn.Module):
    def __init__(self, inputs, size):
        super().__init__()
        self.linear = nn.Linear(inputs, size)

    def forward(self, x):
        return self.linear(x)


class ContrastiveLoss(nn.Module):
    """The memory is fed the student's embedding: the output of a layer this loss trains."""

    def __init__(self, inputs, size, count):
        super().__init__()
        self.embed = Embed(inputs, size)
        self.memory = Memory(size, count)

    def forward(self, features, idx):
        embedded = self.embed(features)
        return self.memory(embedded, idx).mean()
