"""A model zoo's ResNet, built only as its factories build it: `ResNet(BasicBlock, [1, 1])`, a class
of the file and a list. The stem's features are kept before an in-place ReLU writes them (TCL002)."""
import torch
from torch import nn


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes):
        super().__init__()
        self.conv = nn.Conv2d(inplanes, planes, 3, padding=1)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        return self.relu(self.conv(x)) + x


class ResNet(nn.Module):
    def __init__(self, block, layers, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.relu = nn.ReLU(inplace=True)
        self.layers = nn.Sequential(*[block(16, 16) for _ in range(sum(layers))])
        self.fc = nn.Linear(16 * block.expansion, num_classes)

    def forward(self, x):
        x = self.bn1(self.conv1(x))
        stem = x
        x = self.relu(x)
        features = self.layers(x)
        pooled = features.mean(dim=(2, 3))
        return self.fc(pooled), [stem, features]


def resnet_tiny(**kwargs):
    return ResNet(BasicBlock, [1, 1], **kwargs)
