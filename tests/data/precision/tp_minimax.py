import torch
import torch.nn as nn


class Moe(nn.Module):
    def forward(self, h):
        if self.training:
            h *= torch.empty_like(h).uniform_(0.9, 1.1)
        return self.experts(h)


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(8)
        self.mlp = Moe()

    def forward(self, h):
        h = self.norm(h)
        residual = h
        h = self.mlp(h)
        return residual + h
