"""Autograd pitfalls of small training scripts, each next to its correct twin.

- `ValueHead.values` and `fit_temperature_logged` convert tensors that require
  grad to NumPy in grad mode: "Can't call numpy() on Tensor that requires grad"
  (TCL009).
- `fit_logistic_regression` scales its weight after making it a leaf, and
  `refine_offsets` converts its leaf to float64: both names hold copies, so the
  optimizer refuses them ("can't optimize a non-leaf Tensor") or their `.grad`
  stays None (TCL012).
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

Run `python examples/train/autograd_pitfalls.py`.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


# --- TCL009: NumPy conversions of tensors that require grad -------------------


class ValueHead(nn.Module):
    """A critic's value head, with a helper that hands values to NumPy code."""

    def __init__(self, state_dim: int = 8):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(state_dim, 32), nn.Tanh(), nn.Linear(32, 1))

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        return self.net(states).squeeze(-1)

    def values(self, states: torch.Tensor):
        return self.net(states).squeeze(-1).numpy()  # expect: TCL009

    @torch.no_grad()
    def values_for_numpy(self, states: torch.Tensor):
        return self.net(states).squeeze(-1).numpy()


def fit_temperature_logged(logits: torch.Tensor, steps: int = 20):
    temperature = torch.ones(1, requires_grad=True)
    optimizer = torch.optim.SGD([temperature], lr=0.01)
    history = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = (logits / temperature).logsumexp(dim=1).mean()
        loss.backward()
        optimizer.step()
        history.append(loss.numpy())  # expect: TCL009
    return history


def fit_temperature(logits: torch.Tensor, steps: int = 20):
    temperature = torch.ones(1, requires_grad=True)
    optimizer = torch.optim.SGD([temperature], lr=0.01)
    history = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = (logits / temperature).logsumexp(dim=1).mean()
        loss.backward()
        optimizer.step()
        history.append(loss.item())
    return history, temperature.detach().cpu().numpy()


# --- TCL012: names meant as leaves that hold copies ----------------------------


def fit_logistic_regression(features: torch.Tensor, labels: torch.Tensor, steps: int = 50):
    weight = torch.randn(features.shape[1], 1, requires_grad=True) * 0.01  # expect: TCL012
    bias = torch.zeros(1, requires_grad=True)
    optimizer = torch.optim.SGD([weight, bias], lr=0.5)
    for _ in range(steps):
        optimizer.zero_grad()
        logits = features @ weight + bias
        loss = nn.functional.binary_cross_entropy_with_logits(logits, labels)
        loss.backward()
        optimizer.step()
    return weight.detach(), bias.detach()


def fit_logistic_regression_fixed(features: torch.Tensor, labels: torch.Tensor, steps: int = 50):
    weight = (torch.randn(features.shape[1], 1) * 0.01).requires_grad_()
    bias = torch.zeros(1, requires_grad=True)
    optimizer = torch.optim.SGD([weight, bias], lr=0.5)
    for _ in range(steps):
        optimizer.zero_grad()
        logits = features @ weight + bias
        loss = nn.functional.binary_cross_entropy_with_logits(logits, labels)
        loss.backward()
        optimizer.step()
    return weight.detach(), bias.detach()


def refine_offsets(points: torch.Tensor, steps: int = 10, lr: float = 0.1):
    """Gradient descent on per-dimension offsets, in float64 for stability."""
    offsets = torch.zeros(points.shape[1], requires_grad=True).double()  # expect: TCL012
    for _ in range(steps):
        loss = ((points.double() + offsets) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            offsets -= lr * offsets.grad
            offsets.grad.zero_()
    return offsets.detach()


def refine_offsets_fixed(points: torch.Tensor, steps: int = 10, lr: float = 0.1):
    offsets = torch.zeros(points.shape[1], dtype=torch.float64, requires_grad=True)
    for _ in range(steps):
        loss = ((points.double() + offsets) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            offsets -= lr * offsets.grad
            offsets.grad.zero_()
    return offsets.detach()


def _expect_error(label: str, function, error_type=Exception) -> None:
    try:
        function()
    except error_type as error:
        print(f"{label}: {type(error).__name__}: {str(error).splitlines()[0]}")
    else:
        raise AssertionError(f"{label} did not raise")


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


def main() -> None:
    torch.manual_seed(0)
    head = ValueHead()
    states = torch.randn(4, 8)
    _expect_error("ValueHead.values", lambda: head.values(states), RuntimeError)
    print("ValueHead.values_for_numpy:", head.values_for_numpy(states).shape)

    logits = torch.randn(16, 5)
    _expect_error("fit_temperature_logged", lambda: fit_temperature_logged(logits), RuntimeError)
    history, temperature = fit_temperature(logits)
    print(f"fit_temperature: loss {history[0]:.3f} -> {history[-1]:.3f}, T={temperature[0]:.3f}")

    features = torch.randn(64, 3)
    labels = (features[:, :1] > 0).float()
    _expect_error("fit_logistic_regression", lambda: fit_logistic_regression(features, labels), ValueError)
    weight, _ = fit_logistic_regression_fixed(features, labels)
    print("fit_logistic_regression_fixed: weight", weight.flatten().tolist())

    points = torch.randn(32, 2) + 3.0
    _expect_error("refine_offsets", lambda: refine_offsets(points), TypeError)
    print("refine_offsets_fixed:", refine_offsets_fixed(points).tolist())

    print("critic, clipped early:", train_critic_clipped_early())
    print("critic:               ", train_critic())
    print("two layers, early:", fit_two_layer_early_update()[1].flatten()[:3])
    print("two layers:       ", fit_two_layer()[1].flatten()[:3])
    print("GAN, retained:", train_gan_retained())
    print("GAN:          ", train_gan())
    print("classifier, retained:", train_classifier_retained())
    print("multitask:", train_multitask())


if __name__ == "__main__":
    main()
