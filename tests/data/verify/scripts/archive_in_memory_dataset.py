"""A classifier trained on an `.npz` archive through a dataset class of the file that holds what it is given.

`Data = np.load(...)` is the user's data: the archive stands in, its samples under every key but
`y`, which the dataset pairs with them as targets (class indices). The running sum `total += loss`
keeps every batch's graph (TCL007).
"""

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

Data = np.load("/content/drive/My Drive/data.npz")


class PairedArrays(Dataset):
    def __init__(self, X, Y, transform=None):
        self.X = X
        self.Y = Y
        self.transform = transform

    def __len__(self):
        return self.X.shape[0]

    def __getitem__(self, index):
        sample, target = self.X[index], self.Y[index]
        if self.transform is not None:
            sample = self.transform(sample)
        return sample, target


train_loader = DataLoader(PairedArrays(Data["Xtr"], Data["y"]), batch_size=32, shuffle=True)
model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 64 * 64, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
total = 0
for epoch in range(3):
    for x, y in train_loader:
        loss = nn.functional.cross_entropy(model(x.float()), y.long())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss
    print(epoch, total.item() / len(train_loader))
