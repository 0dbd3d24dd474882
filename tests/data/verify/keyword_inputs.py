"""A loss module whose inputs after the first are given by keyword where the script calls it
(`confused(p, mu=0.5, sigma=0.1)`), and which copy-constructs a tensor (TCL008): the block under test
gets those keywords in their places (fresh76's cDCGAN: before, "keyword inputs of a block under test
are not supported")."""

import torch
from torch import nn


class ConfusedLoss(nn.Module):
    def forward(self, p, mu, sigma):
        second = torch.topk(p, k=2)[0][:, 1]
        density = torch.exp(-(second - mu) ** 2 / (2 * sigma ** 2))
        return torch.tensor(density).mean() * 10


classifier = nn.Linear(8, 4)
confused = ConfusedLoss()
optimizer = torch.optim.SGD(classifier.parameters(), lr=0.1)
for step in range(100):
    p = torch.softmax(classifier(torch.randn(16, 8)), 1)
    loss = confused(p, mu=0.5, sigma=0.1)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
