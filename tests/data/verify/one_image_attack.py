"""A saliency attack that takes one image at a time (`assert image.size(0) == 1`, as DeepFool and
JSMA implementations do): its stand-in batch holds one image, or the assertion stops the run."""

import torch
import torch.nn.functional as F


class SaliencyAttack:
    def __init__(self, model, theta=1.0):
        self.model = model
        self.theta = theta

    def attack(self, image, target):
        assert image.size(0) == 1, "only one image at a time"
        adversarial = image.detach().clone().requires_grad_(True)
        loss = F.cross_entropy(self.model(adversarial), target)
        grad, = torch.autograd.grad(loss, adversarial)
        saliency = adversarial.clone().detach() * grad.abs()  # expect: TCL005
        return (adversarial + self.theta * saliency.sign()).detach()
