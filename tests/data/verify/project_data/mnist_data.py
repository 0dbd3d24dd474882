"""The project's data module: MNIST resized to 64 pixels, made by functions the scripts import."""

from torch.utils.data import DataLoader
from torchvision.datasets import MNIST
from torchvision import transforms

resized = transforms.Compose([transforms.Resize((64, 64)), transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])


def Dataset():
    return MNIST("./mnist", transform=resized, download=True, train=True), MNIST("./mnist", transform=resized, train=False)


def mnist_loader(root, batch_size, transform):
    return DataLoader(MNIST(root, download=True, transform=transform), batch_size=batch_size, shuffle=True)
