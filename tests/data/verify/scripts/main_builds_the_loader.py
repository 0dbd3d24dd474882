"""A GAN whose `main()` builds the dataset, the loader (with a transform that is a lambda) and the
networks, then calls `train(...)` each epoch: the call's arguments are made as `main()` makes them,
the dataset and the loader on stand-in batches, and the epoch loop never runs."""
import torch
from torch import nn
from torchvision import datasets, transforms


class Generator(nn.Module):
    def __init__(self, noise=16):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(noise, 64), nn.ReLU(), nn.Linear(64, 28 * 28), nn.Tanh())

    def forward(self, z):
        return self.body(z).view(-1, 1, 28, 28)


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(28 * 28, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1), nn.Sigmoid())

    def forward(self, images):
        _, channels, height, width = images.shape
        return self.body(images.reshape(-1, channels * height * width))


def train(loader, generator, critic, opt_g, opt_c, loss_fn):
    for images, _ in loader:
        count, _, _, _ = images.shape
        fake = generator(torch.randn(count, 16))
        scores = critic(fake)
        opt_c.zero_grad()
        c_loss = loss_fn(scores, torch.zeros_like(scores)) + loss_fn(critic(images), torch.ones(count, 1))
        c_loss.backward()
        opt_c.step()
        opt_g.zero_grad()
        g_loss = loss_fn(critic(generator(torch.randn(count, 16))), torch.ones(count, 1))
        g_loss.backward()
        opt_g.step()


def main():
    scale = transforms.Compose([transforms.ToTensor(), lambda image: image * 2 - 1])
    digits = datasets.MNIST("./data", train=True, download=True, transform=scale)
    loader = torch.utils.data.DataLoader(digits, batch_size=32, shuffle=True)
    generator, critic = Generator(), Critic()
    opt_g = torch.optim.Adam(generator.parameters(), 2e-4)
    opt_c = torch.optim.Adam(critic.parameters(), 2e-4)
    for epoch in range(100):
        train(loader, generator, critic, opt_g, opt_c, nn.BCELoss())


if __name__ == "__main__":
    main()
