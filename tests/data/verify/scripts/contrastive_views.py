"""A contrastive (SimCLR-style) script whose transform, a class of the file, makes two views of each
image: a batch's images are a list of two batches. The loss of every step is kept with its graph
(TCL007). Stand-in batches hold two views of each image, as the transform makes them."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


class TwoCropsTransform:
    """Two random crops of one image, as the query and the key."""

    def __init__(self, base_transform):
        self.base_transform = base_transform

    def __call__(self, x):
        return [self.base_transform(x), self.base_transform(x)]


augment = transforms.Compose([transforms.RandomResizedCrop(32), transforms.ToTensor()])
train_set = datasets.CIFAR10("data/", train=True, download=True, transform=TwoCropsTransform(augment))
loader = DataLoader(train_set, batch_size=256, shuffle=True, drop_last=True)
encoder = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                        nn.Flatten(), nn.Linear(8, 16))
optimizer = torch.optim.SGD(encoder.parameters(), lr=0.05, momentum=0.9)
history = []

for epoch in range(100):
    for views, _ in loader:
        z1 = F.normalize(encoder(views[0]), dim=1)
        z2 = F.normalize(encoder(views[1]), dim=1)
        loss = F.cross_entropy(z1 @ z2.t() / 0.1, torch.arange(z1.size(0)))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history.append(loss)
