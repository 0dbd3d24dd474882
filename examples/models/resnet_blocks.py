"""Residual blocks in the torchvision style, some with copy mistakes.

`CloningBasicBlock` copies its input for nothing (TCL001); `PreActAliasBlock`
and `PreActSequentialBlock` keep an alias of their input that an in-place ReLU
then rewrites (TCL002). The other blocks are correct, including the ones that
look alike: a clone that a later in-place op makes necessary, and an alias
whose name is rebound before the in-place ReLU runs.

Run `python examples/models/resnet_blocks.py` for a forward pass through each.
"""

from __future__ import annotations

from typing import Optional

import torch
from torch import nn


def conv3x3(in_planes: int, out_planes: int, stride: int = 1) -> nn.Conv2d:
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=1, bias=False)


def conv1x1(in_planes: int, out_planes: int, stride: int = 1) -> nn.Conv2d:
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class CloningBasicBlock(nn.Module):
    """Correct output, wasted memory: a full copy of the activation per block per step."""

    expansion = 1

    def __init__(self, planes: int):
        super().__init__()
        self.conv1 = conv3x3(planes, planes)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU()
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = nn.BatchNorm2d(planes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x.clone()  # expect: TCL001
        out = self.conv1(x)
        out = self.bn1(out)
        out = self.relu(out)
        out = self.conv2(out)
        out = self.bn2(out)
        out += identity
        return self.relu(out)


class PreActAliasBlock(nn.Module):
    """A pre-activation block whose shortcut is rectified by mistake.

    `self.relu` works in place and returns its input, so after the first call
    `x` and `identity` both name the rectified tensor: the shortcut adds
    relu(x) instead of x.
    """

    def __init__(self, planes: int):
        super().__init__()
        self.relu = nn.ReLU(inplace=True)
        self.conv1 = conv3x3(planes, planes)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = conv3x3(planes, planes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x  # expect: TCL002
        out = self.relu(x)
        out = self.conv1(out)
        out = self.relu(self.bn1(out))
        out = self.conv2(out)
        out += identity
        return out


class PreActSequentialBlock(nn.Module):
    """The same mistake, with the in-place ReLU as the first layer of a Sequential."""

    def __init__(self, planes: int):
        super().__init__()
        self.body = nn.Sequential(
            nn.ReLU(inplace=True),
            conv3x3(planes, planes),
            nn.BatchNorm2d(planes),
            nn.ReLU(inplace=True),
            conv3x3(planes, planes),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shortcut = x  # expect: TCL002
        out = self.body(x)
        return out + shortcut


class PreActClonedBlock(nn.Module):
    """Correct: the in-place ReLU writes into `x`, so the shortcut must be a copy."""

    def __init__(self, planes: int):
        super().__init__()
        self.relu = nn.ReLU(inplace=True)
        self.conv1 = conv3x3(planes, planes)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = conv3x3(planes, planes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x.clone()
        out = self.relu(x)
        out = self.conv1(out)
        out = self.relu(self.bn1(out))
        out = self.conv2(out)
        out += identity
        return out


class RebindingBasicBlock(nn.Module):
    """Correct: `x` is rebound to the conv output before the in-place ReLU runs,
    so the ReLU writes into a new tensor and `identity` keeps the input."""

    def __init__(self, planes: int):
        super().__init__()
        self.conv1 = conv3x3(planes, planes)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = nn.BatchNorm2d(planes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x
        x = self.conv1(x)
        x = self.bn1(x)
        x = self.relu(x)
        x = self.conv2(x)
        x = self.bn2(x)
        x += identity
        return self.relu(x)


class Bottleneck(nn.Module):
    """Correct, torchvision's layout: in-place ReLUs only ever touch new tensors."""

    expansion = 4

    def __init__(self, inplanes: int, planes: int, stride: int = 1, downsample: Optional[nn.Module] = None):
        super().__init__()
        self.conv1 = conv1x1(inplanes, planes)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = conv3x3(planes, planes, stride)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = conv1x1(planes, planes * self.expansion)
        self.bn3 = nn.BatchNorm2d(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x

        out = self.conv1(x)
        out = self.bn1(out)
        out = self.relu(out)

        out = self.conv2(out)
        out = self.bn2(out)
        out = self.relu(out)

        out = self.conv3(out)
        out = self.bn3(out)

        if self.downsample is not None:
            identity = self.downsample(x)

        out += identity
        out = self.relu(out)
        return out


def make_bottleneck(inplanes: int, planes: int, stride: int = 2) -> Bottleneck:
    downsample = nn.Sequential(
        conv1x1(inplanes, planes * Bottleneck.expansion, stride),
        nn.BatchNorm2d(planes * Bottleneck.expansion),
    )
    return Bottleneck(inplanes, planes, stride, downsample)


def main() -> None:
    torch.manual_seed(0)
    blocks = {
        "CloningBasicBlock": CloningBasicBlock(8),
        "PreActAliasBlock": PreActAliasBlock(8),
        "PreActSequentialBlock": PreActSequentialBlock(8),
        "PreActClonedBlock": PreActClonedBlock(8),
        "RebindingBasicBlock": RebindingBasicBlock(8),
        "Bottleneck": make_bottleneck(8, 4),
    }
    for name, block in blocks.items():
        block.eval()
        # A non-leaf input, as inside a network.
        inputs = torch.randn(2, 8, 16, 16, requires_grad=True) * 1.0
        out = block(inputs)
        out.sum().backward()
        print(f"{name}: {tuple(out.shape)}")


if __name__ == "__main__":
    main()
