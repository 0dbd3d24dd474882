# A course's GAN template: its loop skips every batch of another size than the one it asks for, and
# sizes its noise and labels by that size.
import argparse

import torch
from torch import nn
from torchvision import datasets, transforms


class Generator(nn.Module):
    def __init__(self, latent_dim=16):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(latent_dim, 128), nn.LeakyReLU(0.2), nn.Linear(128, 784), nn.Tanh())

    def forward(self, z):
        return self.layers(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(784, 128), nn.LeakyReLU(0.2), nn.Linear(128, 1), nn.Sigmoid())

    def forward(self, images):
        return self.layers(images)


def train(dataloader, discriminator, generator, optimizer_G, optimizer_D):
    loss = nn.BCELoss()
    for epoch in range(args.n_epochs):
        for i, (imgs, _) in enumerate(dataloader):
            if imgs.shape[0] != args.batch_size:
                continue  # the last, smaller batch
            z = torch.randn(args.batch_size, args.latent_dim)
            fake = generator(z)
            optimizer_D.zero_grad()
            real_loss = loss(discriminator(imgs.view(args.batch_size, -1)), torch.ones(args.batch_size, 1))
            fake_loss = loss(discriminator(fake), torch.zeros(args.batch_size, 1))
            (real_loss + fake_loss).backward()
            optimizer_D.step()

            optimizer_G.zero_grad()
            g_loss = loss(discriminator(generator(z)), torch.ones(args.batch_size, 1))
            g_loss.backward()
            optimizer_G.step()


def main():
    dataloader = torch.utils.data.DataLoader(
        datasets.MNIST("./data/mnist", train=True, download=True, transform=transforms.ToTensor()),
        batch_size=args.batch_size, shuffle=True)
    generator, discriminator = Generator(args.latent_dim), Discriminator()
    optimizer_G = torch.optim.Adam(generator.parameters(), lr=2e-4)
    optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=2e-4)
    train(dataloader, discriminator, generator, optimizer_G, optimizer_D)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--n_epochs", type=int, default=200)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--latent_dim", type=int, default=16)
    args = parser.parse_args()
    main()
