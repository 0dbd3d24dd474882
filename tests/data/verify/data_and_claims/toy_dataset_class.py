"""A course's toy dataset: a Dataset class of the file that computes its samples (no file, no path),
a logistic regression trained on it in mini-batches (TCL007). It holds its data in memory: --verify
runs it as written, with no stand-in for it."""

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Data(Dataset):
    def __init__(self):
        self.x = torch.arange(-1, 1, 0.1).view(-1, 1)
        self.y = (self.x > 0.2).float()
        self.len = self.x.shape[0]

    def __getitem__(self, index):
        return self.x[index], self.y[index]

    def __len__(self):
        return self.len


data_set = Data()
loader = DataLoader(dataset=data_set, batch_size=5)
model = nn.Sequential(nn.Linear(1, 1), nn.Sigmoid())
optimizer = torch.optim.SGD(model.parameters(), lr=2)
criterion = nn.BCELoss()
loss_values = []
for epoch in range(100):
    for x, y in loader:
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        loss_values.append(loss)  # expect: TCL007
