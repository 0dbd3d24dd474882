"""A DCGAN notebook's way: a plain class that holds both networks, built at the top level with its
defaults (`dcgan = DCGAN()`), whose `train(loader)` is the training loop; faces cropped to 108 pixels,
then resized to 64.

The discriminator step feeds `self.D(fake)` without `.detach()` (TCL003). --verify must build the
object as the script does, give `train` the script's loader (stand-in batches of 64-pixel images:
the last step of the pipeline that sizes them says 64), and never run the top-level `dcgan.train(...)`
itself: its loop writes a marker (outside the project) on its second iteration.
"""

import os

import torch
import torch.nn as nn
import torchvision.datasets as dset
import torchvision.transforms as transforms

MARKERS = os.environ.get("TCL_TEST_MARKERS", os.path.dirname(os.path.abspath(__file__)))

trans = transforms.Compose([transforms.CenterCrop(108), transforms.Resize(64), transforms.ToTensor()])
trainset = dset.ImageFolder(root="data/celeba/", transform=trans)
trainloader = torch.utils.data.DataLoader(trainset, batch_size=128, shuffle=True, drop_last=True)


class Generator(nn.Module):
    def __init__(self, dim_z=100):
        super().__init__()
        self.fc = nn.Linear(dim_z, 32 * 8 * 8)
        self.up = nn.Sequential(nn.ConvTranspose2d(32, 16, 4, 2, 1), nn.ReLU(), nn.ConvTranspose2d(16, 8, 4, 2, 1),
                                nn.ReLU(), nn.ConvTranspose2d(8, 3, 4, 2, 1), nn.Tanh())

    def forward(self, z):
        return self.up(self.fc(z).view(-1, 32, 8, 8))


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 8, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(8, 16, 4, 2, 1),
                                  nn.LeakyReLU(0.2), nn.Conv2d(16, 32, 4, 2, 1), nn.LeakyReLU(0.2))
        # Sized for 64-pixel images: a 108-pixel one is 13 pixels wide here, and the view makes more rows.
        self.fc = nn.Linear(32 * 8 * 8, 1)

    def forward(self, x):
        return torch.sigmoid(self.fc(self.conv(x).view(-1, 32 * 8 * 8))).squeeze()


class DCGAN(object):
    def __init__(self, dim_z=100):
        self.dim_z = dim_z
        self.G = Generator(dim_z)
        self.D = Discriminator()

    def train(self, data, epochs=10, lr=0.0002):
        g_optim = torch.optim.Adam(self.G.parameters(), lr=lr, betas=(0.5, 0.999))
        d_optim = torch.optim.Adam(self.D.parameters(), lr=lr, betas=(0.5, 0.999))
        loss_func = nn.BCELoss()
        for epoch in range(epochs):
            for step, (batch_x, _) in enumerate(data):
                if epoch + step > 0:
                    with open(os.path.join(MARKERS, "object_defaults_second_iteration"), "w") as marker:
                        marker.write(f"epoch {epoch} step {step}\n")
                    raise SystemExit("the training loop ran a second iteration")
                z = torch.rand(batch_x.size(0), self.dim_z) * 2 - 1
                d_optim.zero_grad()
                fake = self.G(z)
                d_loss = loss_func(self.D(fake), torch.zeros(batch_x.size(0))) + \
                    loss_func(self.D(batch_x), torch.ones(batch_x.size(0)))
                d_loss.backward()
                d_optim.step()
                g_optim.zero_grad()
                g_loss = loss_func(self.D(self.G(z)), torch.ones(batch_x.size(0)))
                g_loss.backward()
                g_optim.step()


dcgan = DCGAN()
dcgan.train(trainloader, epochs=50)
