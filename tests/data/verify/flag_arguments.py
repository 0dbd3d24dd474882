"""An attack's random start: the copy-construct runs only when the caller asks for a random start,
which the function's default does not."""

import torch


def random_start(x, eps, rand_init=False):
    start = x.detach()
    if rand_init:
        noise = torch.rand_like(x) * 2 * eps - eps
        start = torch.tensor(start + noise)
    return start.clamp(0, 1)
