"""Uses `pgd_step.project` on images it makes require grad (an attack's inner loop)."""

import torch

from pgd_step import project


def attack(model, images, labels, steps=3):
    adversarial = images.clone()
    adversarial.requires_grad_()
    for _ in range(steps):
        loss = torch.nn.functional.cross_entropy(model(adversarial), labels)
        loss.backward()
        adversarial = project(adversarial, images)
    return adversarial
