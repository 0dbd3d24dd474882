"""Pre-0.4 code: `Variable`, and the loss logged as `loss.data[0]` (an IndexError on a 0-dim tensor
today) before the accumulation the finding is about (TCL007)."""

import torch
from torch import nn
from torch.autograd import Variable
from torchvision import datasets, transforms

train_loader = torch.utils.data.DataLoader(datasets.MNIST("../data", train=True, download=True,
                                                          transform=transforms.ToTensor()), batch_size=32)
model = nn.Sequential(nn.Linear(784, 64), nn.ReLU(), nn.Linear(64, 10))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

total = 0
for epoch in range(10):
    for i, (images, labels) in enumerate(train_loader):
        images = Variable(images.view(-1, 28 * 28))
        labels = Variable(labels)
        optimizer.zero_grad()
        loss = criterion(model(images), labels)
        loss.backward()
        optimizer.step()
        print('Epoch [%d], Step [%d], Loss: %.4f' % (epoch + 1, i + 1, loss.data[0]))
        total += loss  # expect: TCL007
