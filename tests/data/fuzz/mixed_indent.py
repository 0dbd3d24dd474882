"""Indentation that mixes tabs and spaces the way CPython accepts and libcst does not (fuzz seed)."""

import torch
from torch import nn


class Scaler(nn.Module):
    def __init__(self, factor):
	    super().__init__()
	    self.factor = factor

    def forward(self, x):
	    kept = x.clone().detach()
	    if kept.sum() > 0:
		    out = torch.tensor(kept) * self.factor
	    else:
		    out = kept
	    return out


def collect(model, batches):
    outputs = []
    for batch in batches:
	    outputs.append(model(batch))
    return outputs
