"""A GAN script whose dataset class comes from `from star_data import *`, reading a folder of images
the default option names (not here): the loader over it serves stand-in batches."""
import argparse

import torch
from torch import nn
from torch.utils import data

from star_data import *

parser = argparse.ArgumentParser()
parser.add_argument("--image_path", type=str, default="/nonexistent/faces")
parser.add_argument("--epochs", type=int, default=20)
args = parser.parse_args()


def main():
    dataset = FolderImages(args.image_path)
    loader = data.DataLoader(dataset=dataset, batch_size=16, shuffle=True)
    generator = nn.Sequential(nn.Linear(8, 64), nn.Tanh())
    discriminator = nn.Sequential(nn.Linear(64, 1), nn.Sigmoid())
    g_optimizer = torch.optim.Adam(generator.parameters())
    d_optimizer = torch.optim.Adam(discriminator.parameters())
    for epoch in range(args.epochs):
        for images in loader:
            fake_images = generator(torch.randn(images.size(0), 8))
            d_loss = -torch.log(discriminator(images)).mean() - torch.log(1 - discriminator(fake_images)).mean()  # expect: TCL003
            d_optimizer.zero_grad()
            d_loss.backward()
            d_optimizer.step()
            g_loss = -torch.log(discriminator(fake_images)).mean()
            g_optimizer.zero_grad()
            g_loss.backward()
            g_optimizer.step()


if __name__ == "__main__":
    main()
