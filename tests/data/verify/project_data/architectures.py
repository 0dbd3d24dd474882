"""The trainer's networks, built from a configuration the verifier does not have."""

import torch.nn as nn


def make_generator(args):
    return nn.Sequential(*[nn.Linear(args.width, args.width) for _ in range(args.depth)])


def make_discriminator(args):
    return nn.Sequential(nn.Linear(args.width, 1))
