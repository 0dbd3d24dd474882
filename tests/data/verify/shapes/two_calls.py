"""A discriminator step with two calls on the fake batch: the score is taken on `fake.detach()`,
but a feature-matching term calls the discriminator on `fake` itself. That second call carries the
discriminator's backward into the generator; the first carries nothing."""

import torch
import torch.nn.functional as F


def d_step(G, D, opt_d, real, z):
    fake = G(z)
    d_real = D(real)
    d_fake = D(fake.detach())
    d_match = D(fake)  # expect: TCL003
    d_loss = F.softplus(-d_real).mean() + F.softplus(d_fake).mean() + 0.1 * (d_match - d_real).pow(2).mean()
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    return d_loss.item()
