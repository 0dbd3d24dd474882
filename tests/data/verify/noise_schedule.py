"""Annealed Langevin sampling over a schedule of noise levels: the history keeps the sample that the
next step overwrites in place (each entry ends up the final sample). The schedule is a parameter
(`sigmas`, read level by level and at its last position), the score network of the function form an
argument whose output is added to what it is given, and the method keeps its history only when asked."""

import torch
import torch.nn as nn


class ScoreNet(nn.Module):
    def __init__(self, data_dim: int = 2, hidden: int = 32, num_levels: int = 5):
        super().__init__()
        self.data_dim = data_dim
        self.embed = nn.Embedding(num_levels, hidden)
        self.inp = nn.Linear(data_dim, hidden)
        self.out = nn.Linear(hidden, data_dim)

    def forward(self, x, level):
        return self.out(torch.relu(self.inp(x) + self.embed(level)))

    def prior(self, n_samples):
        return torch.randn(n_samples, self.data_dim)

    def sample(self, n_samples: int, n_steps: int, sigmas: torch.Tensor, eps: float = 0.01,
               save_history: bool = False):
        x = self.prior(n_samples)
        history = []
        with torch.no_grad():
            for i, sigma in enumerate(sigmas):
                alpha = eps * sigma ** 2 / sigmas[-1] ** 2
                levels = torch.full((n_samples,), i, dtype=torch.long)
                for _ in range(n_steps):
                    if save_history:
                        history.append(x)
                    x += alpha * self(x, levels) / 2 + alpha ** 0.5 * torch.randn_like(x)
        return (x, history) if save_history else x


def anneal_langevin(x, scorenet, sigmas, n_steps_each=3, step_lr=0.00002):
    images = []
    with torch.no_grad():
        for c, sigma in enumerate(sigmas):
            labels = torch.ones(x.shape[0], dtype=torch.long) * c
            step_size = step_lr * (sigma / sigmas[-1]) ** 2
            for _ in range(n_steps_each):
                images.append(x)
                x += step_size * scorenet(x, labels) + (step_size * 2) ** 0.5 * torch.randn_like(x)
    return images
