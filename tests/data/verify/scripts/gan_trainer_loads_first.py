"""A trainer object the program function builds, loads data into, then trains: `gan = GanTrainer()`,
`gan.prepare_data()` (which sets `self.loader`, an MNIST loader), `gan.fit()`.

`fit` feeds the discriminator the generator's output without `.detach()` (TCL003); it reads
`self.loader`, which only `prepare_data` makes: --verify must run it first, as `main()` does.
"""

import torch
import torch.nn as nn
import torchvision.datasets as datasets
import torchvision.transforms as transforms

LATENT = 32


class GanTrainer:
    def __init__(self, lr=2e-4):
        self.generator = nn.Sequential(nn.Linear(LATENT, 128), nn.ReLU(), nn.Linear(128, 784), nn.Tanh())
        self.discriminator = nn.Sequential(nn.Linear(784, 128), nn.LeakyReLU(0.2), nn.Linear(128, 1))
        self.g_opt = torch.optim.Adam(self.generator.parameters(), lr=lr)
        self.d_opt = torch.optim.Adam(self.discriminator.parameters(), lr=lr)
        self.criterion = nn.BCEWithLogitsLoss()

    def prepare_data(self, root="./mnist", batch_size=64):
        digits = datasets.MNIST(root=root, train=True, download=True, transform=transforms.ToTensor())
        self.loader = torch.utils.data.DataLoader(digits, batch_size=batch_size, shuffle=True)

    def fit(self, epochs=20):
        for epoch in range(epochs):
            for images, _ in self.loader:
                real = images.view(images.size(0), -1)
                fake = self.generator(torch.randn(real.size(0), LATENT))
                self.d_opt.zero_grad()
                d_loss = self.criterion(self.discriminator(real), torch.ones(real.size(0), 1)) + \
                    self.criterion(self.discriminator(fake), torch.zeros(real.size(0), 1))
                d_loss.backward()
                self.d_opt.step()
                self.g_opt.zero_grad()
                g_loss = self.criterion(self.discriminator(fake), torch.ones(real.size(0), 1))
                g_loss.backward()
                self.g_opt.step()


def main():
    gan = GanTrainer()
    gan.prepare_data()
    gan.fit()


if __name__ == "__main__":
    main()
