"""A GAN script whose faces come from a NumPy file, wrapped in a dataset class of its own."""
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

BATCH_SIZE = 64
NOISE = 32
EPOCHS = 20

faces = np.load("faces.npy")


class FaceArray(Dataset):
    def __init__(self, images):
        self.images = images
        self.count = len(images)

    def __getitem__(self, index):
        return torch.as_tensor(self.images[index], dtype=torch.float32).permute(2, 0, 1) / 127.5 - 1

    def __len__(self):
        return self.count


loader = DataLoader(FaceArray(faces), batch_size=BATCH_SIZE, shuffle=True)
G = nn.Sequential(nn.Linear(NOISE, 3 * 16 * 16), nn.Tanh(), nn.Unflatten(1, (3, 16, 16)))
D = nn.Sequential(nn.Flatten(), nn.Linear(3 * 16 * 16, 1))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4)
criterion = nn.BCEWithLogitsLoss()
d_losses = []
for epoch in range(EPOCHS):
    for real in loader:
        fake = G(torch.randn(real.size(0), NOISE))
        d_loss = criterion(D(real), torch.ones(real.size(0), 1)) + \
            criterion(D(fake.detach()), torch.zeros(real.size(0), 1))
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        d_losses.append(d_loss)
        g_loss = criterion(D(fake), torch.ones(real.size(0), 1))
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
