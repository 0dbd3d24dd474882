"""The data module a GAN script imports (gan_sibling_loader.py): loaders over a dataset package.

torchvision may be missing where the tests run; --verify must never call these functions (they
would download MNIST): the script's call of one is stood in by its name.
"""

import torch
from torchvision import datasets, transforms


def train_loader(name, root="/data", batch_size=128):
    if name == "mnist":
        dataset = datasets.MNIST(root, train=True, download=True, transform=transforms.ToTensor())
    else:
        dataset = datasets.CIFAR10(root, train=True, download=True, transform=transforms.ToTensor())
    return torch.utils.data.DataLoader(dataset, batch_size=batch_size, shuffle=True)


def test_loader(name, root="/data", batch_size=128):
    dataset = datasets.MNIST(root, train=False, transform=transforms.ToTensor())
    return torch.utils.data.DataLoader(dataset, batch_size=batch_size)
