"""A super-resolution GAN script whose dataset class returns (low-resolution, high-resolution) pairs:
the high-resolution image is twice as high and wide, which a first run on pairs of one size finds
(`mse(sr, hr)` compares sides of 2x). The discriminator's step feeds it `G(lr)` undetached (TCL003)."""

import torch
import torch.nn as nn
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision.transforms import Compose, RandomCrop, Resize, ToTensor


class SRPairs(Dataset):
    def __init__(self, files, crop_size=64, upscale_factor=2):
        self.files = files
        self.hr_transform = Compose([RandomCrop(crop_size), ToTensor()])
        self.lr_transform = Compose([Resize(crop_size // upscale_factor), ToTensor()])

    def __getitem__(self, index):
        hr_image = self.hr_transform(Image.open(self.files[index]))
        lr_image = self.lr_transform(hr_image)
        return lr_image, hr_image

    def __len__(self):
        return len(self.files)


loader = DataLoader(SRPairs(["data/train/0001.png"]), batch_size=16, shuffle=True)
G = nn.Sequential(nn.Conv2d(3, 12, 3, padding=1), nn.PixelShuffle(2))
D = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.LeakyReLU(0.2), nn.AdaptiveAvgPool2d(1),
                  nn.Flatten(), nn.Linear(8, 1))
opt_G, opt_D = torch.optim.Adam(G.parameters()), torch.optim.Adam(D.parameters())
mse, bce = nn.MSELoss(), nn.BCEWithLogitsLoss()

for epoch in range(100):
    for lr, hr in loader:
        sr = G(lr)
        content_loss = mse(sr, hr)
        d_loss = bce(D(hr), torch.ones(hr.size(0), 1)) + bce(D(sr), torch.zeros(hr.size(0), 1))
        opt_D.zero_grad()
        d_loss.backward()
        opt_D.step()
        g_loss = content_loss + 1e-3 * bce(D(sr), torch.ones(hr.size(0), 1))
        opt_G.zero_grad()
        g_loss.backward()
        opt_G.step()
