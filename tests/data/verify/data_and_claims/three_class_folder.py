"""A course-style classifier of three image folders: the network is built at the top level of a class
whose `training_step` the fitting function calls, and the fit is called with it (TCL007 inside).

--verify builds the script's own network for the call (not a stand-in one), and its stand-in labels
fit the three scores the network gives once a run with ten classes of labels has failed."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader
from torchvision import transforms
from torchvision.datasets import ImageFolder

train_set = ImageFolder("data/animals/train", transforms.Compose([transforms.Resize(32), transforms.ToTensor()]))
train_loader = DataLoader(train_set, batch_size=16, shuffle=True)


class ClassifierBase(nn.Module):
    def training_step(self, batch):
        images, labels = batch
        return F.cross_entropy(self(images), labels)


class SmallNet(ClassifierBase):
    def __init__(self, channels, classes):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(channels, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(8, classes)

    def forward(self, images):
        return self.head(self.features(images).flatten(1))


def to_device(value, device):
    return value.to(device)


def fit(epochs, learning_rate, model, loader):
    optimizer = torch.optim.SGD(model.parameters(), learning_rate)
    losses = []
    for epoch in range(epochs):
        for batch in loader:
            loss = model.training_step(batch)
            losses.append(loss)  # expect: TCL007
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
    return losses


device = torch.device("cpu")
model = to_device(SmallNet(3, 3), device)
history = fit(10, 0.01, model, train_loader)
