"""The one-hot label maps are 28x28 (MNIST's side), the loader made by the project's data module
from a transform this script passes, which says its channels and nothing of its size."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torchvision import transforms

import mnist_data

transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])
loader = mnist_data.mnist_loader("./data", 128, transform)

G = nn.Sequential(nn.Linear(26, 28 * 28), nn.Tanh())
D = nn.Sequential(nn.Flatten(), nn.Linear(11 * 28 * 28, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4)
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)

for epoch in range(20):
    for real, labels in loader:
        one_hot = F.one_hot(labels, 10).float()
        label_maps = one_hot[:, :, None, None].repeat(1, 1, 28, 28)
        fake = G(torch.cat((torch.randn(len(real), 16), one_hot), 1)).view(-1, 1, 28, 28)
        d_loss = D(torch.cat((fake, label_maps), 1)).mean() - D(torch.cat((real, label_maps), 1)).mean()  # expect: TCL003
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        g_loss = -D(torch.cat((fake, label_maps), 1)).mean()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
