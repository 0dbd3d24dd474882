"""A DCGAN whose `trainer()` builds convolutional networks and sizes its labels by the options' batch
size (`torch.ones(opts.batch_size)`), handed the loader `main()` builds over MNIST with that batch size.
A trainer given stand-in data of its own fails first (flat rows, where the networks convolve); the
call from `main()` fails only on the labels, beside batches cut small: the next try learns that from
the second error, not the first, and takes the batch size the code asks for."""
import argparse

import torch
from torch import nn
from torchvision import datasets, transforms


class Generator(nn.Module):
    def __init__(self, noise=16):
        super().__init__()
        self.body = nn.Sequential(nn.ConvTranspose2d(noise, 8, 7), nn.ReLU(), nn.ConvTranspose2d(8, 1, 4, 4),
                                  nn.Tanh())

    def forward(self, z):
        return self.body(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 8, 4, 4), nn.LeakyReLU(0.2), nn.Conv2d(8, 1, 7), nn.Sigmoid())

    def forward(self, images):
        return self.body(images).view(-1)


def trainer(opts, loader):
    generator, discriminator = Generator(), Discriminator()
    opt_g = torch.optim.Adam(generator.parameters(), 2e-4)
    opt_d = torch.optim.Adam(discriminator.parameters(), 2e-4)
    bce = nn.BCELoss()
    real_labels, fake_labels = torch.ones(opts.batch_size), torch.zeros(opts.batch_size)
    for epoch in range(opts.epochs):
        for images, _ in loader:
            fake = generator(torch.randn(opts.batch_size, 16, 1, 1))
            fake_scores = discriminator(fake)
            d_loss = bce(discriminator(images), real_labels) + bce(fake_scores, fake_labels)
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
            g_loss = bce(discriminator(generator(torch.randn(opts.batch_size, 16, 1, 1))), real_labels)
            opt_g.zero_grad()
            g_loss.backward()
            opt_g.step()


def main(opts):
    digits = datasets.MNIST("./data", train=True, download=True, transform=transforms.ToTensor())
    loader = torch.utils.data.DataLoader(digits, batch_size=opts.batch_size, shuffle=True, drop_last=True)
    trainer(opts, loader)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=20)
    main(parser.parse_args())
