"""An icon GAN whose images were saved as tensors in two files, joined into one dataset before it trains."""
import torch
import torch.nn as nn

icons_small = torch.load("data/icons_2x.pt")
icons_large = torch.load("data/icons_4x.pt")
icons = torch.cat((icons_small, icons_large), dim=0)
loader = torch.utils.data.DataLoader(icons, shuffle=True, batch_size=64)

G = nn.Sequential(nn.ConvTranspose2d(16, 32, 4, 1, 0), nn.ReLU(), nn.ConvTranspose2d(32, 16, 4, 2, 1), nn.ReLU(),
                  nn.ConvTranspose2d(16, 3, 4, 4, 0), nn.Tanh())
D = nn.Sequential(nn.Conv2d(3, 16, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(16, 1, 16, 1, 0), nn.Flatten(), nn.Sigmoid())
criterion = nn.BCELoss()
optimizer_G = torch.optim.Adam(G.parameters(), lr=2e-4)
optimizer_D = torch.optim.Adam(D.parameters(), lr=2e-4)

for epoch in range(50):
    for real in loader:
        ones = torch.ones(real.size(0), 1)
        zeros = torch.zeros(real.size(0), 1)
        D.zero_grad()
        G.zero_grad()
        fake = G(torch.randn(real.size(0), 16, 1, 1))
        loss_D = criterion(D(real), ones) + criterion(D(fake), zeros)
        loss_D.backward()
        optimizer_D.step()
        fake = G(torch.randn(real.size(0), 16, 1, 1))
        loss_G = criterion(D(fake), ones)
        loss_G.backward()
        optimizer_G.step()
