"""Evaluates robustness with `noise_attack.NoiseAttack`, under no-grad."""

import torch

from noise_attack import NoiseAttack


def robust_accuracy(model, loader):
    attack = NoiseAttack()
    correct = 0
    with torch.no_grad():
        for images, labels in loader:
            adversarial = attack.perturb(images)
            correct += (model(adversarial).argmax(1) == labels).sum().item()
    return correct
