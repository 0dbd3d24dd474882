"""A GAN step whose options come as docopt's dict (`args["--epochs"]`): the entry is a count, which
`int(...)` takes, not a tensor stand-in of several values. The discriminator's loss reads the
generator's undetached output (TCL003)."""

import torch


def train(args, generator, discriminator, loader, d_optimizer, g_optimizer):
    for epoch in range(int(args["--epochs"])):
        for real, _ in loader:
            fake = generator(torch.randn(real.size(0), int(args["--noise-size"])))
            d_loss = discriminator(fake).mean() - discriminator(real).mean()
            d_optimizer.zero_grad()
            d_loss.backward()
            d_optimizer.step()
            g_loss = -discriminator(generator(torch.randn(real.size(0), int(args["--noise-size"])))).mean()
            g_optimizer.zero_grad()
            g_loss.backward()
            g_optimizer.step()
