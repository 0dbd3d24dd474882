"""Spectral normalisation by power iteration: the vector is kept on the module, not trained."""
import torch
from torch import nn


class PowerIteration(nn.Module):
    def __init__(self, rows):
        super().__init__()
        self.u = nn.Parameter(torch.randn(rows, 1), requires_grad=False).to("cuda:0")

    def forward(self, weight):
        v = weight.t() @ self.u
        v = v / (v.norm() + 1e-12)
        self.u = (weight @ v).detach()
        self.u = self.u / (self.u.norm() + 1e-12)
        return weight / (self.u.t() @ weight @ v)
