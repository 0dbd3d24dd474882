"""A face GAN whose data comes from a class of the project that reads the image folder and makes the loader."""
import torch
import torch.nn as nn

from face_data_maker import ReadFaceData

faces = ReadFaceData("./faces")
loader = faces.getdataloader(batch_size=64)

G = nn.Sequential(nn.ConvTranspose2d(16, 32, 4, 1, 0), nn.ReLU(), nn.ConvTranspose2d(32, 16, 4, 2, 1), nn.ReLU(),
                  nn.ConvTranspose2d(16, 3, 4, 4, 0), nn.Tanh())
D = nn.Sequential(nn.Conv2d(3, 16, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(16, 1, 16, 1, 0), nn.Flatten(), nn.Sigmoid())
criterion = nn.BCELoss()
optimizer_G = torch.optim.Adam(G.parameters(), lr=2e-4)
optimizer_D = torch.optim.Adam(D.parameters(), lr=2e-4)

for epoch in range(25):
    for images, _ in loader:
        ones = torch.ones(images.size(0), 1)
        zeros = torch.zeros(images.size(0), 1)
        fake = G(torch.randn(images.size(0), 16, 1, 1))
        optimizer_D.zero_grad()
        loss_D = criterion(D(images), ones) + criterion(D(fake), zeros)
        loss_D.backward()
        optimizer_D.step()
        optimizer_G.zero_grad()
        loss_G = criterion(D(G(torch.randn(images.size(0), 16, 1, 1))), ones)
        loss_G.backward()
        optimizer_G.step()
