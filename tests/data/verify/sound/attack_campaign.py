"""The user of `tracked_attack.py`: it builds the attack and passes it test images (no grad)."""

import torch

from tracked_attack import TrackedAttack


def campaign(model, loader):
    attack = TrackedAttack(model)
    return [attack(images) for images, _ in loader]
