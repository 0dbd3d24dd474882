"""A patch attack: its method reads images (`c, h, w`) and calls the base class's `get_logits`, which
reads attributes that only `Attack.__init__`, in another module, sets. Its own constructor reads a
configuration nothing shows (so the object cannot be built as the project builds it)."""

import torch

from .base import Attack


class PatchAttack(Attack):
    def __init__(self, model, config):
        super().__init__("PatchAttack", model)
        self.size = config["patch"]["size"]
        self.eps = config["patch"]["eps"]

    def perturb(self, images, labels):
        _, channels, height, width = images.shape
        fooled = self.get_logits(images).argmax(1) != labels
        chosen = images[fooled.nonzero().squeeze(1)].clone()  # expect: TCL001
        chosen[:, :, : self.size, : self.size] += self.eps * torch.sign(torch.randn(channels, self.size, self.size))
        return chosen.clamp(0, 1)
