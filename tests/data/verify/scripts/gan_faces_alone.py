# A DCGAN on a folder of faces, as a course notebook writes it: the archive is fetched and unpacked by
# packages that are not installed here, the dataset's samples are images without labels, and the
# discriminator's scores are reshaped to the batch size the settings ask for.
import os

import gdown
import natsort
import torch
import zipfile38 as zipfile
from PIL import Image
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Settings:
    def __init__(self):
        self.root = "./data/faces"
        self.batch_size = 32
        self.latent = 16
        if not os.path.exists(self.root):
            gdown.download("https://example.org/faces.zip", "faces.zip", quiet=False)
            with zipfile.ZipFile("faces.zip", "r") as archive:
                archive.extractall(self.root)


settings = Settings()


class Faces(Dataset):
    def __init__(self, root, transform=None):
        self.root = root
        self.names = natsort.natsorted(os.listdir(root))
        self.transform = transform

    def __len__(self):
        return len(self.names)

    def __getitem__(self, index):
        image = Image.open(os.path.join(self.root, self.names[index])).convert("RGB")
        return self.transform(image) if self.transform else image


loader = DataLoader(Faces(settings.root), batch_size=settings.batch_size, shuffle=True, drop_last=True)
G = nn.Sequential(nn.ConvTranspose2d(settings.latent, 8, 4, 1, 0), nn.ReLU(),    # 4x4
                  nn.ConvTranspose2d(8, 8, 4, 2, 1), nn.ReLU(),                   # 8x8
                  nn.ConvTranspose2d(8, 8, 4, 2, 1), nn.ReLU(),                   # 16x16
                  nn.ConvTranspose2d(8, 3, 4, 2, 1), nn.Tanh())                   # 32x32
D = nn.Sequential(nn.Conv2d(3, 8, 4, 2, 1), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(8 * 16 * 16, 1), nn.Sigmoid())
D_optim = torch.optim.Adam(D.parameters(), lr=2e-4)
bce = nn.BCELoss()


def train_discriminator(images):
    real_labels = torch.ones(settings.batch_size, 1)
    fake_labels = torch.zeros(settings.batch_size, 1)
    loss_real = bce(D(images).view(settings.batch_size, -1), real_labels)
    fake_images = G(torch.randn(settings.batch_size, settings.latent, 1, 1))
    loss_fake = bce(D(fake_images).view(settings.batch_size, -1), fake_labels)
    loss = loss_real + loss_fake
    D_optim.zero_grad()
    loss.backward()
    D_optim.step()
    return loss


for epoch in range(10):
    for item in enumerate(loader):
        i, images = item
        train_discriminator(images)
