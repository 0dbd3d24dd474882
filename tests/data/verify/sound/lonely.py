"""Nothing in the file calls `copy_of`: whether its argument requires grad is an assumption."""

import torch


def copy_of(t):
    return t.clone().detach()  # expect: TCL005


class Relabel:
    """An attack's entry hands its `labels` on; nothing in the file says what they are. Made up as a
    tensor that requires grad they would confirm the claim, which class labels never do."""

    def __init__(self, model):
        self.model = model

    def forward(self, images, labels):
        return self.prepare(images, labels)

    def prepare(self, images, labels):
        labels = labels.clone().detach()  # expect: TCL005
        return self.model(images), torch.flatten(labels)
