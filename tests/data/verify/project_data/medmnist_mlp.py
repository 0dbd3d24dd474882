"""An MLP on MedMNIST's PathMNIST (28-pixel RGB images), with the package not installed."""

import torch
from torch import nn
from torch.utils.data import DataLoader
from torchvision import transforms
from medmnist import PathMNIST

transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))])
loader = DataLoader(PathMNIST(root="./data", split="train", download=True, transform=transform), batch_size=64)
model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 28 * 28, 9))
optimizer = torch.optim.Adam(model.parameters())
total = 0
for images, labels in loader:
    loss = nn.functional.cross_entropy(model(images), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    total += loss  # expect: TCL007
