"""An NLP course's exercise: features and labels saved as NumPy files, trained on whole (no DataLoader),
each epoch's losses kept for a plot."""

import numpy as np
import torch
from torch import nn, optim

X_train = np.load("X_train.npy")
y_train = np.load("y_train.npy")
X_train = torch.from_numpy(X_train.astype(np.float32))
y_train = torch.from_numpy(y_train.astype(np.int64))

net = nn.Sequential(nn.Linear(300, 4), nn.ReLU())
loss_fn = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.01)
train_losses = []
for epoch in range(1000):
    optimizer.zero_grad()
    loss = loss_fn(net(X_train), y_train)
    loss.backward()
    optimizer.step()
    train_losses.append(loss)
