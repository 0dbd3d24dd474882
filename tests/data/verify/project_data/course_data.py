"""A course's data module: FashionMNIST and its loaders, made at import, and the class names."""

from torch.utils.data import DataLoader
from torchvision import datasets, transforms

train_data = datasets.FashionMNIST(root="data", train=True, download=True, transform=transforms.ToTensor())
train_dataloader = DataLoader(train_data, batch_size=32, shuffle=True)
class_names = train_data.classes
