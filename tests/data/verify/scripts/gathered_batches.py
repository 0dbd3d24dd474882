"""A course script that first gathers every batch of its loader into lists, then trains over them by
an index of its own count (`batch_num = 60000 // batch_size`), accumulating the loss tensor itself."""
import torch
import torch.nn as nn
import torchvision.datasets as datasets
import torchvision.transforms as transforms

batch_size = 10000
batch_num = 60000 // batch_size
train_dataset = datasets.MNIST(root="./data", train=True, transform=transforms.ToTensor(), download=True)
train_loader = torch.utils.data.DataLoader(dataset=train_dataset, shuffle=True, batch_size=batch_size)

net = nn.Sequential(nn.Linear(784, 64), nn.ReLU(), nn.Linear(64, 10))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)

inputs, labels = [], []
for images, targets in train_loader:
    inputs.append(images.view(-1, 784))
    labels.append(targets)

for epoch in range(50):
    total = 0
    for i in range(batch_num):
        optimizer.zero_grad()
        loss = criterion(net(inputs[i]), labels[i])
        loss.backward()
        optimizer.step()
        total += loss
    print(epoch, total / batch_num)
