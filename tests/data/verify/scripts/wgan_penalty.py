"""The gradient penalty of a WGAN-GP, in its own module (imported by wgan_label_maps.py)."""
import torch


def gradient_penalty(critic, labels, real, fake):
    alpha = torch.rand(real.shape[0], 1, 1, 1).expand_as(real)
    mixed = real * alpha + fake * (1 - alpha)
    scores = critic(mixed, labels)
    gradient = torch.autograd.grad(inputs=mixed, outputs=scores, grad_outputs=torch.ones_like(scores),
                                   create_graph=True, retain_graph=True)[0]
    return ((gradient.view(gradient.shape[0], -1).norm(2, dim=1) - 1) ** 2).mean()
