"""A GAN trained on MNIST as Keras' loader gives it (uint8 arrays, 0..255), in a PyTorch script:
Keras is not needed, its arrays are made up. The discriminator's step feeds it the generator's
output without `.detach()` (TCL003)."""

import numpy as np
import torch
import torch.nn as nn
from keras.datasets.mnist import load_data

(train_x, train_y), (test_x, test_y) = load_data()
train_x = (np.float32(train_x) - 127.5) / 127.5


def minibatch(size):
    indices = torch.randperm(train_x.shape[0])[:size]
    return torch.tensor(train_x[indices]).reshape(size, -1)


G = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 784), nn.Tanh())
D = nn.Sequential(nn.Linear(784, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))
opt_G, opt_D = torch.optim.Adam(G.parameters()), torch.optim.Adam(D.parameters())
bce = nn.BCEWithLogitsLoss()

for step in range(10000):
    real = minibatch(32)
    fake = G(torch.randn(32, 16))
    d_loss = bce(D(real), torch.ones(32, 1)) + bce(D(fake), torch.zeros(32, 1))
    opt_D.zero_grad()
    d_loss.backward()
    opt_D.step()
    g_loss = bce(D(G(torch.randn(32, 16))), torch.ones(32, 1))
    opt_G.zero_grad()
    g_loss.backward()
    opt_G.step()
