"""A DCGAN script that opens the first file of its ImageFolder to check the image size before it trains."""
import sys

import matplotlib.pyplot as plt
import torch
import torch.nn as nn
import torch.optim as optim
from torchvision import datasets, transforms

img_size = 64
batch_size = 8
transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))])
dset = datasets.ImageFolder("data/resized_celebA", transform)
train_loader = torch.utils.data.DataLoader(dset, batch_size=batch_size, shuffle=True)
temp = plt.imread(train_loader.dataset.imgs[0][0])
if temp.shape[0] != img_size or temp.shape[1] != img_size:
    sys.stderr.write("Error! image size is not 64 x 64!")
    sys.exit(1)

G = nn.Sequential(nn.ConvTranspose2d(10, 16, 4, 1, 0), nn.ReLU(), nn.Upsample(size=img_size),
                  nn.Conv2d(16, 3, 3, 1, 1), nn.Tanh())
D = nn.Sequential(nn.Conv2d(3, 8, 4, 2, 1), nn.LeakyReLU(0.2), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                  nn.Linear(8, 1), nn.Sigmoid())
bce = nn.BCELoss()
G_optimizer = optim.Adam(G.parameters(), lr=2e-4)
D_optimizer = optim.Adam(D.parameters(), lr=2e-4)

for epoch in range(20):
    for x_, _ in train_loader:
        mini_batch = x_.size()[0]
        y_real = torch.ones(mini_batch, 1)
        y_fake = torch.zeros(mini_batch, 1)
        D.zero_grad()
        z_ = torch.randn(mini_batch, 10, 1, 1)
        G_result = G(z_)
        D_train_loss = bce(D(x_), y_real) + bce(D(G_result), y_fake)
        D_train_loss.backward()
        D_optimizer.step()
        G.zero_grad()
        G_train_loss = bce(D(G(torch.randn(mini_batch, 10, 1, 1))), y_real)
        G_train_loss.backward()
        G_optimizer.step()
