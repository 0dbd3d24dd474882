"""A face GAN whose data comes from a class of the project that reads the image folder and makes the loader."""
import torch
import torch.nn as nn

from face_data_maker import ReadFaceData

faces = ReadFaceData("./faces")
loader = faces.getdataloader(batch_size=64)

latent = 32
G = nn.Sequential(nn.ConvTranspose2d(latent, 64, 4, 1, 0), nn.BatchNorm2d(64), nn.ReLU(True),
                  nn.ConvTranspose2d(64, 3, 8, 8, 0), nn.Tanh())
D = nn.Sequential(nn.Conv2d(3, 32, 4, 4, 0), nn.LeakyReLU(0.2, True), nn.Conv2d(32, 1, 8, 1, 0), nn.Flatten(),
                  nn.Sigmoid())
criterion = nn.BCELoss()
optimizer_G, optimizer_D = torch.optim.Adam(G.parameters(), lr=1e-4), torch.optim.Adam(D.parameters(), lr=4e-4)

for epoch in range(25):
    for images, _ in loader:
        ones = torch.ones(images.size(0), 1)
        zeros = torch.zeros(images.size(0), 1)
        fake = G(torch.randn(images.size(0), latent, 1, 1))
        optimizer_D.zero_grad()
        loss_D = criterion(D(images), ones) + criterion(D(fake), zeros)
        loss_D.backward()
        optimizer_D.step()
        optimizer_G.zero_grad()
        loss_G = criterion(D(G(torch.randn(images.size(0), latent, 1, 1))), ones)
        loss_G.backward()
        optimizer_G.step()
