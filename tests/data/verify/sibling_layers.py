"""A helper module next to `uses_sibling.py`: verifying that file imports this one."""

from torch import nn


def conv3x3(planes: int) -> nn.Conv2d:
    return nn.Conv2d(planes, planes, kernel_size=3, padding=1, bias=False)
