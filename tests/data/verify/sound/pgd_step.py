"""A projection step of an attack, with the copy in the wrong order. Nothing in this file calls it;
`pgd_runner.py` imports it and passes the adversarial images it made require grad: what it passes
decides the conditional TCL005, and it decides it for a confirmation."""

import torch


def project(adversarial, images, eps=0.03):
    previous = adversarial.clone().detach()  # expect: TCL005
    delta = torch.clamp(previous - images, -eps, eps)
    return images + delta
