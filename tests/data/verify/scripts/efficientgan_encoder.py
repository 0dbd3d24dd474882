"""EfficientGAN's discriminator step: D judges (image, code) pairs, the code of a real image made
by the encoder E and left attached, so the discriminator's backward trains E too."""
import torch
import torch.nn as nn


def train_model(G, D, E, dataloader, num_epochs, z_dim=20, device="cpu"):
    g_optimizer = torch.optim.Adam(G.parameters(), 1e-4)
    e_optimizer = torch.optim.Adam(E.parameters(), 1e-4)
    d_optimizer = torch.optim.Adam(D.parameters(), 1e-4 / 4)
    criterion = nn.BCEWithLogitsLoss(reduction="mean")
    for epoch in range(num_epochs):
        for images in dataloader:
            batch = images.size()[0]
            label_real = torch.full((batch,), 1.0)
            label_fake = torch.full((batch,), 0.0)
            z_out_real = E(images)
            d_out_real, _ = D(images, z_out_real)
            input_z = torch.randn(batch, z_dim)
            fake_images = G(input_z)
            d_out_fake, _ = D(fake_images.detach(), input_z)
            d_loss = criterion(d_out_real.view(-1), label_real) + criterion(d_out_fake.view(-1), label_fake)
            d_optimizer.zero_grad()
            d_loss.backward()
            d_optimizer.step()

            d_out_fake, _ = D(G(input_z), input_z)
            g_loss = criterion(d_out_fake.view(-1), label_real)
            g_optimizer.zero_grad()
            g_loss.backward()
            g_optimizer.step()

            d_out_real, _ = D(images, E(images))
            e_loss = criterion(d_out_real.view(-1), label_fake)
            e_optimizer.zero_grad()
            e_loss.backward()
            e_optimizer.step()
