"""A text-to-image GAN's discriminator step whose loss object takes three scores (real image and
right text, real image and wrong text, fake image and right text), handed in by a caller not in
sight. Its stand-in must read all three: one of the two first only would hide the generator's
graph behind the third and refute a true finding (fresh88's text-to-image GAN)."""

import torch


def discriminator_step(generator, discriminator, d_criterion, d_optimizer, real, right_text, wrong_text):
    noise = torch.randn(real.size(0), 16)
    fake = generator(noise, right_text)
    real_right = discriminator(real, right_text)
    real_wrong = discriminator(real, wrong_text)
    fake_right = discriminator(fake, right_text)  # expect: TCL003
    d_loss = d_criterion(real_right, real_wrong, fake_right)
    d_optimizer.zero_grad()
    d_loss.backward()
    d_optimizer.step()
    return d_loss.item()
