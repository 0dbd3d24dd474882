"""A GAN on MNIST read from Colab's CSV file (`sample_data/mnist_train_small.csv`, a label then 784
pixels a row), as a course's notebooks read it (TCL003). --verify never reads the file: the rows are
made up as such a file holds them."""

import numpy as np
import torch
from torch import nn

data = np.loadtxt(open("sample_data/mnist_train_small.csv", "rb"), delimiter=",")
images = torch.tensor(data[:, 1:] / 255.0, dtype=torch.float32)

G = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 784), nn.Tanh())
D = nn.Sequential(nn.Linear(784, 256), nn.LeakyReLU(0.2), nn.Linear(256, 1))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4)
loss_fn = nn.BCEWithLogitsLoss()
for step in range(500):
    real = images[torch.randint(len(images), (32,))]
    fake = G(torch.randn(32, 64))
    d_loss = loss_fn(D(real), torch.ones(32, 1)) + loss_fn(D(fake), torch.zeros(32, 1))  # expect: TCL003
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_loss = loss_fn(D(G(torch.randn(32, 64))), torch.ones(32, 1))
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
