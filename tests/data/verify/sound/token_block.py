"""A GPT block's sampling helper, annotated as taking a tensor; the one file that calls it passes a
list of token ids (token_sampler.py). What that call passes decides the claim, not the annotation."""

import torch


def generate(model, idx: torch.Tensor, steps: int = 2):
    idx = torch.tensor(idx)  # expect: TCL008
    for _ in range(steps):
        idx = torch.cat([idx, model(idx)[-1:].argmax(-1)])
    return idx
