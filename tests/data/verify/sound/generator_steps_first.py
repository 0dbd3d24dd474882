"""A GAN step that updates the generator first: its backward keeps the graph (`retain_graph=True`),
its optimizer steps, and then the discriminator's loss backpropagates through the same fake batch,
not detached. That backward goes into the generator's graph again: it fills the generator's `.grad`
(wasted work, and gradients the next generator step adds to), or, where the generator's step has
changed weights its graph saved, it fails with "modified by an inplace operation"."""

import torch
import torch.nn.functional as F


def hinge_step(G, D, opt_g, opt_d, real, z):
    fake = G(z)
    g_loss = -D(fake).mean()
    opt_g.zero_grad()
    g_loss.backward(retain_graph=True)
    opt_g.step()

    d_loss = F.relu(1.0 - D(real)).mean() + F.relu(1.0 + D(fake)).mean()  # expect: TCL003
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    return g_loss.item(), d_loss.item()


def hinge_step_fresh_noise(G, D, opt_g, opt_d, real):
    z = torch.randn(real.size(0), 16)
    fake = G(z)
    g_loss = -D(fake).mean()
    opt_g.zero_grad()
    g_loss.backward(retain_graph=True)
    opt_g.step()

    d_loss = F.relu(1.0 - D(real)).mean() + F.relu(1.0 + D(fake)).mean()  # expect: TCL003
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    return g_loss.item(), d_loss.item()


def hinge_step_detached(G, D, opt_g, opt_d, real):
    """Correct: the discriminator sees `fake.detach()`. A TCL003 here is made by hand (false)."""
    z = torch.randn(real.size(0), 16)
    fake = G(z)
    g_loss = -D(fake).mean()
    opt_g.zero_grad()
    g_loss.backward(retain_graph=True)
    opt_g.step()

    d_loss = F.relu(1.0 - D(real)).mean() + F.relu(1.0 + D(fake.detach())).mean()
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    return g_loss.item(), d_loss.item()
