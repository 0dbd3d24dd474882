"""Training steps that confuse autograd about what it saved and what it keeps, and their fixes.

- `train_critic_clipped_early` clips a WGAN critic's weights through `.data`
  between the forward and the backward: the backward reads the clipped weights
  against the activations of the unclipped ones, a wrong gradient with no
  error (TCL010). `fit_two_layer_early_update` updates its second weight matrix
  through `.data` with the previous step's gradient before the backward
  (TCL010).
- `train_gan_retained` feeds the discriminator the fake batch without
  `.detach()` and keeps the graph with `retain_graph=True` so that the
  generator's backward can go through it again (TCL003 and TCL011, linked).
- `train_classifier_retained` keeps every step's graph for nothing (TCL011).

Each has a correct twin next to it. Run `python examples/train/autograd_pitfalls.py`.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

FEATURES = 8  # size of a sample
LATENT = 4  # size of the generator's input


class Critic(nn.Module):
    def __init__(self, features: int = FEATURES, hidden: int = 16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(features, hidden), nn.Tanh(), nn.Linear(hidden, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


class Generator(nn.Module):
    def __init__(self, latent: int = LATENT, features: int = FEATURES, hidden: int = 16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent, hidden), nn.ReLU(), nn.Linear(hidden, features))

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        return self.net(z)


def real_batch(size: int = 16) -> torch.Tensor:
    """A stand-in for a data loader: samples of a shifted Gaussian."""
    return torch.randn(size, FEATURES) + 2.0


# --- TCL010: writes through .data while a backward is pending ---------------------------


def train_critic_clipped_early(steps: int = 3, clip: float = 0.01) -> list:
    torch.manual_seed(0)
    critic = Critic()
    generator = Generator()
    optimizer = torch.optim.RMSprop(critic.parameters(), lr=5e-5)
    losses = []
    for _ in range(steps):
        real = real_batch()
        with torch.no_grad():
            fake = generator(torch.randn(real.size(0), LATENT))
        loss = critic(fake).mean() - critic(real).mean()
        for p in critic.parameters():
            p.data.clamp_(-clip, clip)  # expect: TCL010
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def train_critic(steps: int = 3, clip: float = 0.01) -> list:
    torch.manual_seed(0)
    critic = Critic()
    generator = Generator()
    optimizer = torch.optim.RMSprop(critic.parameters(), lr=5e-5)
    losses = []
    for _ in range(steps):
        real = real_batch()
        with torch.no_grad():
            fake = generator(torch.randn(real.size(0), LATENT))
        loss = critic(fake).mean() - critic(real).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            for p in critic.parameters():
                p.clamp_(-clip, clip)
        losses.append(loss.item())
    return losses


def fit_two_layer_early_update(steps: int = 5, lr: float = 0.05):
    torch.manual_seed(0)
    x = torch.randn(32, FEATURES)
    y = x.sum(dim=1, keepdim=True).sin()
    w1 = torch.randn(FEATURES, 16, requires_grad=True)
    w2 = torch.randn(16, 1, requires_grad=True)
    for step in range(steps):
        hidden = torch.tanh(x @ w1)
        loss = ((hidden @ w2 - y) ** 2).mean()
        if step > 0:
            w1.data -= lr * w1.grad
            w2.data -= lr * w2.grad  # expect: TCL010
            w1.grad.zero_()
            w2.grad.zero_()
        loss.backward()
    return w1.detach(), w2.detach()


def fit_two_layer(steps: int = 5, lr: float = 0.05):
    torch.manual_seed(0)
    x = torch.randn(32, FEATURES)
    y = x.sum(dim=1, keepdim=True).sin()
    w1 = torch.randn(FEATURES, 16, requires_grad=True)
    w2 = torch.randn(16, 1, requires_grad=True)
    for _ in range(steps):
        hidden = torch.tanh(x @ w1)
        loss = ((hidden @ w2 - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w1 -= lr * w1.grad
            w2 -= lr * w2.grad
        w1.grad.zero_()
        w2.grad.zero_()
    return w1.detach(), w2.detach()


# --- TCL011: retain_graph=True that hides a missing detach, or that nothing needs -------


def train_gan_retained(steps: int = 2) -> list:
    torch.manual_seed(0)
    netG = Generator()
    netD = Critic()
    optD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
    history = []
    for _ in range(steps):
        real = real_batch()
        fake = netG(torch.randn(real.size(0), LATENT))
        optD.zero_grad()
        d_loss = F.softplus(-netD(real)).mean() + F.softplus(netD(fake)).mean()  # expect: TCL003
        d_loss.backward(retain_graph=True)  # expect: TCL011
        optD.step()
        optG.zero_grad()
        g_loss = F.softplus(-netD(fake)).mean()
        g_loss.backward()
        optG.step()
        history.append((d_loss.item(), g_loss.item()))
    return history


def train_gan(steps: int = 2) -> list:
    torch.manual_seed(0)
    netG = Generator()
    netD = Critic()
    optD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
    history = []
    for _ in range(steps):
        real = real_batch()
        fake = netG(torch.randn(real.size(0), LATENT))
        optD.zero_grad()
        d_loss = F.softplus(-netD(real)).mean() + F.softplus(netD(fake.detach())).mean()
        d_loss.backward()
        optD.step()
        optG.zero_grad()
        g_loss = F.softplus(-netD(fake)).mean()
        g_loss.backward()
        optG.step()
        history.append((d_loss.item(), g_loss.item()))
    return history


def train_classifier_retained(steps: int = 3) -> list:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(FEATURES, 32), nn.ReLU(), nn.Linear(32, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(steps):
        inputs = torch.randn(16, FEATURES)
        labels = torch.randint(0, 3, (16,))
        loss = F.cross_entropy(model(inputs), labels)
        optimizer.zero_grad()
        loss.backward(retain_graph=True)  # expect: TCL011
        optimizer.step()
        losses.append(loss.item())
    return losses


def train_multitask(steps: int = 3) -> list:
    """Two heads on shared features: the second backward needs the graph the first one kept."""
    torch.manual_seed(0)
    backbone = nn.Sequential(nn.Linear(FEATURES, 32), nn.ReLU())
    head_cls, head_reg = nn.Linear(32, 3), nn.Linear(32, 1)
    params = [*backbone.parameters(), *head_cls.parameters(), *head_reg.parameters()]
    optimizer = torch.optim.SGD(params, lr=0.1)
    history = []
    for _ in range(steps):
        inputs = torch.randn(16, FEATURES)
        labels = torch.randint(0, 3, (16,))
        targets = inputs.mean(dim=1, keepdim=True)
        features = backbone(inputs)
        cls_loss = F.cross_entropy(head_cls(features), labels)
        reg_loss = F.mse_loss(head_reg(features), targets)
        optimizer.zero_grad()
        cls_loss.backward(retain_graph=True)
        reg_loss.backward()
        optimizer.step()
        history.append((cls_loss.item(), reg_loss.item()))
    return history


if __name__ == "__main__":
    print("critic, clipped early:", train_critic_clipped_early())
    print("critic:               ", train_critic())
    print("two layers, early:", fit_two_layer_early_update()[1].flatten()[:3])
    print("two layers:       ", fit_two_layer()[1].flatten()[:3])
    print("GAN, retained:", train_gan_retained())
    print("GAN:          ", train_gan())
    print("classifier, retained:", train_classifier_retained())
    print("multitask:", train_multitask())
