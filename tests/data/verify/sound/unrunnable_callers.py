"""A helper whose only caller in the file passes it what another module makes (`samples.generate`,
which this run cannot import) and fails before it gets there. That caller shows what the helper is
really given, so the conditional TCL005 must not be confirmed on a made-up tensor that requires
grad: unverified, saying the callers decide (fresh26's WGAN-GP image_generate, whose callers passed
images sampled under no-grad)."""

import torch

from samples_not_installed import generate


def to_image(img_tensor):
    picture = img_tensor.clone().detach()  # expect: TCL005
    return (picture + 1) / 2


def save_samples(generator, count):
    images = generate(generator, count)
    return [to_image(image) for image in images]
