"""A course notebook's split: samplers over the positions of the real data's 19998 samples.

`SubsetRandomSampler(train_index)` draws positions up to 19997; the data (`np.load` of the user's
archive) stands in with a few samples, so --verify takes the positions modulo their count. The
running sum `epoch_loss += loss` keeps every batch's graph (TCL007).
"""

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.sampler import SubsetRandomSampler

images = np.load("/content/drive/My Drive/images.npy")
labels = np.load("/content/drive/My Drive/labels.npy")
dataset = TensorDataset(torch.from_numpy(images).float(), torch.from_numpy(labels).long())

positions = np.arange(19998)
np.random.shuffle(positions)
train_sampler = SubsetRandomSampler(positions[:16000])
train_loader = DataLoader(dataset, batch_size=16, sampler=train_sampler)

model = nn.Sequential(nn.Flatten(), nn.Linear(784, 10))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(5):
    epoch_loss = 0
    for x, y in train_loader:
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        epoch_loss += loss
    print(epoch, epoch_loss.item())
