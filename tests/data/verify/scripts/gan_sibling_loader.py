"""A GAN script whose loaders come from a sibling module's functions, told the dataset by name.

`train_loader(epoch)` feeds `discriminator(fake)` without `.detach()` (TCL003), on batches
stood in for `mnist_data.train_loader("mnist", ...)` (1x28x28, what the name says). The
script asks for GPU 0 first, which --verify on the CPU must let pass.

`evaluate()` sums `samples` reconstructions per batch without `torch.no_grad()` (TCL007), and
starts the sum over for every batch: with one sample a batch (the default), no run can show one
accumulation keeping the last one's graph, so the finding must not be refuted.
"""

import argparse

import torch
from torch import nn

import mnist_data

parser = argparse.ArgumentParser()
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--samples", type=int, default=1)
parser.add_argument("--gpu", type=int, default=0)
args = parser.parse_args()
torch.cuda.set_device(args.gpu)

train_loader = mnist_data.train_loader("mnist", "/data/mnist", args.batch_size)
test_loader = mnist_data.test_loader("mnist", "/data/mnist", args.batch_size)

generator = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 784), nn.Tanh())
discriminator = nn.Sequential(nn.Flatten(), nn.Linear(784, 64), nn.ReLU(), nn.Linear(64, 1), nn.Sigmoid())
encoder = nn.Sequential(nn.Flatten(), nn.Linear(784, 16))
generator_optimizer = torch.optim.Adam(generator.parameters(), lr=2e-4)
discriminator_optimizer = torch.optim.Adam(discriminator.parameters(), lr=2e-4)
autoencoder_optimizer = torch.optim.Adam(list(encoder.parameters()) + list(generator.parameters()), lr=1e-3)


def train(epoch):
    for batch_index, (images, _) in enumerate(train_loader):
        images = images.view(len(images), -1)
        fake = generator(torch.randn(len(images), 16))
        discriminator_optimizer.zero_grad()
        real_score = discriminator(images)
        fake_score = discriminator(fake)
        discriminator_loss = -(torch.log(real_score) + torch.log(1 - fake_score)).mean()
        discriminator_loss.backward()
        discriminator_optimizer.step()

        generator_optimizer.zero_grad()
        generator_loss = -torch.log(discriminator(fake)).mean()
        generator_loss.backward()
        generator_optimizer.step()


def evaluate():
    encoder.eval()
    generator.eval()
    total = 0.0
    for images, _ in test_loader:
        reconstruction_loss = 0
        for _ in range(args.samples):
            code = encoder(images) + 0.1 * torch.randn(len(images), 16)
            reconstruction = generator(code)
            reconstruction_loss += nn.functional.mse_loss(reconstruction, images.view(len(images), -1), reduction="sum")
        total += reconstruction_loss.item() / args.samples
    return total


for epoch in range(10):
    train(epoch)
    print(evaluate())
