"""A top-level GAN script whose dataset class reads its images from a folder that is not here and
hands out its own DataLoader: the stand-in dataset runs that method on stand-in samples."""
import os

import torch
from PIL import Image
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Faces(Dataset):
    def __init__(self, root="./data/faces"):
        self.files = sorted(os.listdir(root))
        self.root = root

    def __len__(self):
        return len(self.files)

    def __getitem__(self, index):
        image = Image.open(os.path.join(self.root, self.files[index])).convert("L").resize((8, 8))
        image = torch.tensor(list(image.getdata()), dtype=torch.float32).view(1, 8, 8) / 255
        return image

    def get_dataloader(self, batch_size=16, shuffle=True):
        return DataLoader(self, batch_size=batch_size, shuffle=shuffle)


G = nn.Sequential(nn.Linear(16, 64), nn.Tanh())
D = nn.Sequential(nn.Flatten(), nn.Linear(64, 1), nn.Sigmoid())
opt_d = torch.optim.Adam(D.parameters())
opt_g = torch.optim.Adam(G.parameters())
criterion = nn.BCELoss()

train_loader = Faces().get_dataloader(batch_size=32)
for epoch in range(100):
    for real in train_loader:
        fake = G(torch.randn(real.shape[0], 16)).view(-1, 1, 8, 8)
        d_out_fake = D(fake)  # expect: TCL003
        d_loss = criterion(D(real), torch.ones_like(d_out_fake)) + criterion(d_out_fake, torch.zeros_like(d_out_fake))
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        g_loss = criterion(D(fake), torch.ones_like(d_out_fake))
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
