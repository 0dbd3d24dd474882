from torch import nn


def conv3x3(planes: int) -> nn.Module:
    return nn.Conv2d(planes, planes, kernel_size=3, padding=1, bias=False)
