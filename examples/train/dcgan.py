"""A small DCGAN on 3x32x32 images whose discriminator step forgets `.detach()`.

`netD(fake)` in the discriminator step backpropagates through the generator:
`errD_fake.backward()` computes gradients for every generator parameter, which
the generator step then zeroes and recomputes. Nothing is learnt wrongly here
(the generator's gradients are reset before its own backward), but each
discriminator step pays for a full generator backward pass and keeps the
generator's activations alive until it ends (TCL003). The generator step
regenerates its fake batch, because the discriminator's backward freed the
graph of the first one.

examples/train/dcgan_correct.py is the same script with the detach.

Run `python examples/train/dcgan.py`: two iterations on random data.
"""

from __future__ import annotations

import torch
from torch import nn, optim

NZ = 16  # size of the latent vector
NGF = 16  # generator feature maps
NDF = 16  # discriminator feature maps


class Generator(nn.Module):
    def __init__(self, nz: int = NZ, ngf: int = NGF):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 4, 4, 1, 0, bias=False),  # 4x4
            nn.BatchNorm2d(ngf * 4),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False),  # 8x8
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False),  # 16x16
            nn.BatchNorm2d(ngf),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf, 3, 4, 2, 1, bias=False),  # 32x32
            nn.Tanh(),
        )

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self, ndf: int = NDF):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(3, ndf, 4, 2, 1, bias=False),  # 16x16
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),  # 8x8
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, ndf * 4, 4, 2, 1, bias=False),  # 4x4
            nn.BatchNorm2d(ndf * 4),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 4, 1, 4, 1, 0, bias=False),  # 1x1
            nn.Sigmoid(),
        )

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        return self.main(images).view(-1)


def weights_init(module: nn.Module) -> None:
    if isinstance(module, (nn.Conv2d, nn.ConvTranspose2d)):
        nn.init.normal_(module.weight, 0.0, 0.02)
    elif isinstance(module, nn.BatchNorm2d):
        nn.init.normal_(module.weight, 1.0, 0.02)
        nn.init.zeros_(module.bias)


def main(iterations: int = 2, batch_size: int = 8) -> None:
    torch.manual_seed(0)
    netG = Generator()
    netD = Discriminator()
    netG.apply(weights_init)
    netD.apply(weights_init)

    criterion = nn.BCELoss()
    optD = optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optG = optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
    real_label = torch.ones(batch_size)
    fake_label = torch.zeros(batch_size)

    for iteration in range(iterations):
        # A stand-in for a data loader: random images in [-1, 1].
        real = torch.rand(batch_size, 3, 32, 32) * 2 - 1

        # (1) Update D: maximise log(D(x)) + log(1 - D(G(z))).
        optD.zero_grad()
        errD_real = criterion(netD(real), real_label)
        errD_real.backward()
        noise = torch.randn(batch_size, NZ, 1, 1)
        fake = netG(noise)
        errD_fake = criterion(netD(fake), fake_label)  # expect: TCL003
        errD_fake.backward()
        optD.step()

        # (2) Update G: maximise log(D(G(z))), on a fresh fake batch.
        optG.zero_grad()
        fake = netG(noise)
        errG = criterion(netD(fake), real_label)
        errG.backward()
        optG.step()

        loss_d = errD_real.item() + errD_fake.item()
        print(f"[{iteration + 1}/{iterations}] loss_D {loss_d:.4f} loss_G {errG.item():.4f}")


if __name__ == "__main__":
    main()
