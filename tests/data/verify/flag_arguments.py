"""An attack's random start: the copy-construct runs only when the caller asks for a random start,
which the function's default does not."""

import torch


def random_start(x, eps, rand_init=False):
    start = x.detach()
    if rand_init:
        noise = torch.rand_like(x) * 2 * eps - eps
        start = torch.tensor(start + noise)
    return start.clamp(0, 1)


class RandomStart:
    """The same start as a method of an attack object (not a module: no configuration builds it)."""

    def __init__(self, eps=0.1):
        self.eps = eps

    def perturb(self, x, rand_init=False):
        start = x.detach()
        if rand_init:
            start = torch.tensor(start + torch.rand_like(x) * self.eps)
        return start.clamp(0, 1)


def project(x, eps, distance="l_inf"):
    """A mode given as a string default: the copy-construct is on the path of the other value the
    function compares it with."""
    delta = x.detach()
    if distance == "l_inf":
        delta = delta.clamp(-eps, eps)
    elif distance == "l_2":
        delta = torch.tensor(delta + torch.rand_like(delta) * eps)
    return delta
