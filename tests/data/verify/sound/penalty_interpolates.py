"""A WGAN-div critic step: the fake is detached for its own score, but the interpolates of the penalty
are made from the undetached fake, then switched to `requires_grad_(True)` (which leaves a tensor that
carries a graph as it is). Two findings of one cause: each one's experiment, with the other's fix
applied, could not show it; the code as written shows both."""

import torch


def critic_step(G, D, loader, k=2.0, p=6.0):
    opt_d = torch.optim.Adam(D.parameters())
    for real in loader:
        fake = G(torch.randn(real.size(0), 8))
        mu = torch.rand(real.size(0), 1)
        x_interpolated = (1 - mu) * real + mu * fake  # expect: TCL003
        x_interpolated.requires_grad_(True)
        d_loss = D(fake.detach()).mean() - D(real).mean()
        d_interpolated = D(x_interpolated)  # expect: TCL003
        gradients = torch.autograd.grad(d_interpolated, x_interpolated, torch.ones_like(d_interpolated),
                                        create_graph=True)[0]
        d_loss = d_loss + k * (gradients.pow(2).sum(1) ** (p / 2)).mean()
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
