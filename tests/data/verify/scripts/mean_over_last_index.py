"""A course script that averages each epoch's loss over the last batch index (`running_loss / i`), then
copies its test labels with `torch.tensor`: the training loops the verifier keeps but cuts short must
run twice, or the division by zero stops the run before the flagged line."""

import torch
from torch import nn, optim
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

train_set = datasets.MNIST("data", train=True, download=True, transform=transforms.ToTensor())
loader = DataLoader(train_set, batch_size=32, shuffle=True)
X_test = torch.rand(100, 784)
Y_test = torch.randint(0, 10, (100,))

net = nn.Sequential(nn.Linear(784, 64), nn.ReLU(), nn.Linear(64, 10))
loss_fn = nn.CrossEntropyLoss()
optimizer = optim.Adam(net.parameters())

train_losses = []
for epoch in range(20):
    running_loss = 0.0
    for i, (xx, yy) in enumerate(loader):
        loss = loss_fn(net(xx.view(-1, 784)), yy)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
    train_losses.append(running_loss / i)

_, predicted = torch.max(net(X_test), 1)
predicted = torch.tensor(predicted, dtype=torch.int64)  # expect: TCL008
print((predicted == Y_test).sum().item() / len(Y_test))
