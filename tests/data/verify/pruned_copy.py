"""A pruning study's network: `prune_layer(idx, indices_to_remove)` returns a smaller copy of itself,
whose weights are rows of the old ones picked by a list (advanced indexing, a copy already). The sizes
and the indices come from annotations: `hidden_sizes: list[int]` builds it, `idx: int` picks a layer."""
from __future__ import annotations

import copy

import torch
from torch import nn


class PrunableMLP(nn.Module):
    def __init__(self, hidden_sizes: list[int], input_dim: int = 4, output_dim: int = 2):
        super().__init__()
        layers, width = [], input_dim
        for size in hidden_sizes:
            layers += [nn.Linear(width, size), nn.ReLU()]
            width = size
        layers.append(nn.Linear(width, output_dim))
        self.net = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)

    def prune_layer(self, idx: int, indices_to_remove: list[int]) -> "PrunableMLP":
        layer, consumer = self.net[2 * idx], self.net[2 * (idx + 1)]
        keep = [i for i in range(layer.out_features) if i not in set(indices_to_remove)]
        smaller = nn.Linear(layer.in_features, len(keep))
        smaller.weight.data = layer.weight.data[keep].clone()
        smaller.bias.data = layer.bias.data[keep]
        narrower = nn.Linear(len(keep), consumer.out_features)
        narrower.weight.data = consumer.weight.data[:, keep]
        narrower.bias.data = consumer.bias.data.clone()
        pruned = copy.deepcopy(self)
        pruned.net[2 * idx], pruned.net[2 * (idx + 1)] = smaller, narrower
        return pruned
