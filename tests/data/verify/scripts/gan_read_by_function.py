"""A face GAN whose images a function of the project reads from a folder into one tensor, moved to the
device and iterated by a DataLoader (fresh63's CelebA DCGAN, with its `read_img.get_file(data_dir)`).
--verify runs no reader of the user's files: random samples stand in for what the function returns."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

import face_files

data_dir = "/nonexistent-author-machine/datasets/celeba/faces_64"
data = face_files.read_faces(data_dir)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
data = data.to(device)
train_loader = DataLoader(data, batch_size=16, shuffle=True)

G = nn.Sequential(nn.ConvTranspose2d(16, 32, 4, 1, 0), nn.ReLU(), nn.ConvTranspose2d(32, 3, 4, 2, 1), nn.Tanh())
D = nn.Sequential(nn.Conv2d(3, 16, 4, 2, 1), nn.LeakyReLU(0.2), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                  nn.Linear(16, 1), nn.Sigmoid())
bce = nn.BCELoss()
G_optimizer = torch.optim.Adam(G.parameters(), lr=2e-4)
D_optimizer = torch.optim.Adam(D.parameters(), lr=2e-4)

for epoch in range(20):
    for x_ in train_loader:
        y_real_, y_fake_ = torch.ones(x_.size(0), 1), torch.zeros(x_.size(0), 1)
        D.zero_grad()
        G_result = G(torch.randn(x_.size(0), 16, 1, 1))
        D_train_loss = bce(D(x_), y_real_) + bce(D(G_result), y_fake_)
        D_train_loss.backward()
        D_optimizer.step()
        G.zero_grad()
        G_train_loss = bce(D(G(torch.randn(x_.size(0), 16, 1, 1))), y_real_)
        G_train_loss.backward()
        G_optimizer.step()
