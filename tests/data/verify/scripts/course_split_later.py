"""A course notebook, exported: the dataset is read at a fixed index (to show a sample) before the
cell that defines the sizes of its split. The stand-in dataset is sized once those are defined."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import random_split
from torch.utils.data.dataloader import DataLoader
from torchvision.datasets import ImageFolder
from torchvision.transforms import ToTensor

dataset = ImageFolder("./data/cifar10/train", transform=ToTensor())
img, label = dataset[11001]
print(img.shape, label)

train_size = 45000
val_size = 5000
train_ds, val_ds = random_split(dataset, [train_size, val_size])
train_dl = DataLoader(train_ds, 128, shuffle=True)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3 * 32 * 32, 10)

    def forward(self, x):
        return self.fc(x.flatten(1))

    def training_step(self, batch):
        images, labels = batch
        return F.cross_entropy(self(images), labels)


def fit(epochs, lr, model, train_loader):
    optimizer = torch.optim.SGD(model.parameters(), lr)
    history = []
    for epoch in range(epochs):
        train_losses = []
        for batch in train_loader:
            loss = model.training_step(batch)
            train_losses.append(loss)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        history.append(torch.stack(train_losses).mean().item())
    return history


history = fit(10, 0.01, Classifier(), train_dl)
