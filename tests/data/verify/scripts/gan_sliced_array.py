"""A GAN notebook cut to a script: its images are one NumPy file made a tensor, and each epoch takes
batches of it by slicing with a setting the training cell binds later, stopping where a batch would
run short; the epoch's discriminator loss is summed as a tensor. --verify reads no file: random
samples stand in, three of the code's batches of them (fresh76's DLCV InfoGAN, whose 20 stand-in
samples never made one batch of 64)."""

import numpy as np
import torch
import torch.nn as nn

train_X = np.load("all_img.npy")
train_X = torch.from_numpy(train_X).type(torch.FloatTensor)

G = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 784), nn.Tanh())
D = nn.Sequential(nn.Linear(784, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optimizer_G = torch.optim.Adam(G.parameters(), lr=2e-4)
optimizer_D = torch.optim.Adam(D.parameters(), lr=2e-4)

BATCH_SIZE = 64
for epoch in range(100):
    epoch_D_loss = 0.0
    total_length = len(train_X)
    shuffled = train_X[torch.randperm(total_length)]
    for index in range(0, total_length, BATCH_SIZE):
        if index + BATCH_SIZE > total_length:
            break
        real = shuffled[index:index + BATCH_SIZE]
        optimizer_D.zero_grad()
        fake = G(torch.randn(BATCH_SIZE, 16))
        loss_D = criterion(D(real), torch.ones(BATCH_SIZE, 1)) + criterion(D(fake.detach()), torch.zeros(BATCH_SIZE, 1))
        loss_D.backward()
        optimizer_D.step()
        optimizer_G.zero_grad()
        loss_G = criterion(D(fake), torch.ones(BATCH_SIZE, 1))
        loss_G.backward()
        optimizer_G.step()
        epoch_D_loss += loss_D
    print(epoch, epoch_D_loss / (total_length // BATCH_SIZE))
