"""A dataset read by count: `len(dataset) // batch_size` batches, indexed sample by sample; and its
first 512 images as one tensor. A stand-in of 16 samples would give no batch at all."""

import torch
from torch import nn
from torchvision import datasets, transforms

dataset = datasets.MNIST("data/", download=True, transform=transforms.ToTensor())
batch_size = 64
model = nn.Sequential(nn.Flatten(), nn.Linear(784, 10))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
n_batches = len(dataset) // batch_size
probe = dataset.data[:512].float().view(-1, 784)

history = []
for b in range(n_batches):
    images = torch.stack([dataset[b * batch_size + i][0] for i in range(batch_size)])
    labels = torch.tensor([dataset[b * batch_size + i][1] for i in range(batch_size)])
    loss = nn.functional.cross_entropy(model(images), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    history += [loss]  # expect: TCL007
