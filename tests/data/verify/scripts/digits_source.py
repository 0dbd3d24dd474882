"""The data module of gan_wrapped_dataset.py: a class given a folder whose method returns torchvision's MNIST.

The script's static rewrite cannot see that `Digits(root).train_data()` is data (a project class,
a method of it); torchvision may be missing, and then the dataset is a no-op. --verify must never
call the real dataset (it would read, or download, MNIST).
"""

from torchvision import datasets, transforms


class Digits:
    def __init__(self, root):
        self.root = root
        self.transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])

    def train_data(self):
        return datasets.MNIST(self.root, train=True, transform=self.transform)
