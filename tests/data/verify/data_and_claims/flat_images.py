"""A folder of face images, flattened by the step (`imgs.view(-1, 784)`) for a discriminator of
784 inputs: the stand-in batches must be shaped for that reshape, not for an image folder's usual
3x64x64. The discriminator step, in a function the top level calls, does not detach (TCL003)."""

import torch
from torch import nn
from torchvision import datasets, transforms

dataset = datasets.ImageFolder("faces/", transform=transforms.ToTensor())
dataloader = torch.utils.data.DataLoader(dataset, batch_size=16, shuffle=True)
G = nn.Sequential(nn.Linear(100, 256), nn.ReLU(), nn.Linear(256, 784), nn.Tanh())
D = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 1), nn.Sigmoid())
criterion = nn.BCELoss()
d_optimizer = torch.optim.Adam(D.parameters(), lr=2e-4)


def train_discriminator(dataloader):
    for i, (imgs, _) in enumerate(dataloader):
        real = imgs.view(-1, 784)
        z = torch.randn(real.size(0), 100)
        fake = G(z)
        loss = criterion(D(real), torch.ones(real.size(0), 1)) + criterion(D(fake), torch.zeros(real.size(0), 1))  # expect: TCL003
        d_optimizer.zero_grad()
        loss.backward()
        d_optimizer.step()


train_discriminator(dataloader)
