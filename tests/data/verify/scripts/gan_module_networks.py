"""A notebook's GAN: the networks are built at the top level (and moved by a helper), and the step takes
only the real batch and the optimizer; the discriminator reads 3x32x32 images."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 16
latent_size = 8


def to_device(data, device):
    if isinstance(data, (list, tuple)):
        return [to_device(x, device) for x in data]
    return data.to(device, non_blocking=True)


device = torch.device("cpu")
discriminator = nn.Sequential(
    nn.Conv2d(3, 8, kernel_size=4, stride=2, padding=1), nn.LeakyReLU(0.2),
    nn.Conv2d(8, 1, kernel_size=16, stride=1, padding=0), nn.Flatten(), nn.Sigmoid())
discriminator = to_device(discriminator, device)
generator = nn.Sequential(
    nn.ConvTranspose2d(latent_size, 8, kernel_size=4, stride=1, padding=0), nn.ReLU(True),
    nn.Upsample(size=32), nn.Conv2d(8, 3, kernel_size=3, padding=1), nn.Tanh())
generator = to_device(generator, device)


def train_discriminator(real_images, opt_d):
    opt_d.zero_grad()
    real_preds = discriminator(real_images)
    real_loss = F.binary_cross_entropy(real_preds, torch.ones(real_images.size(0), 1, device=device))
    latent = torch.randn(batch_size, latent_size, 1, 1, device=device)
    fake_images = generator(latent)
    fake_preds = discriminator(fake_images)
    fake_loss = F.binary_cross_entropy(fake_preds, torch.zeros(fake_images.size(0), 1, device=device))
    loss = real_loss + fake_loss
    loss.backward()
    opt_d.step()
    return loss.item()


def fit(epochs, lr, train_dl):
    opt_d = torch.optim.Adam(discriminator.parameters(), lr=lr, betas=(0.5, 0.999))
    opt_g = torch.optim.Adam(generator.parameters(), lr=lr, betas=(0.5, 0.999))
    for epoch in range(epochs):
        for real_images, _ in train_dl:
            loss_d = train_discriminator(real_images, opt_d)
            opt_g.zero_grad()
            loss_g = F.binary_cross_entropy(discriminator(generator(torch.randn(batch_size, latent_size, 1, 1))),
                                            torch.ones(batch_size, 1))
            loss_g.backward()
            opt_g.step()
