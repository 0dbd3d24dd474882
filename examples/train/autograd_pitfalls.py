"""Autograd pitfalls of small training scripts, each next to its correct twin.

- `ValueHead.values` and `fit_temperature_logged` convert tensors that require
  grad to NumPy in grad mode: "Can't call numpy() on Tensor that requires grad"
  (TCL009).
- `fit_logistic_regression` scales its weight after making it a leaf, and
  `refine_offsets` converts its leaf to float64: both names hold copies, so the
  optimizer refuses them ("can't optimize a non-leaf Tensor") or their `.grad`
  stays None (TCL012).

Run `python examples/train/autograd_pitfalls.py`.
"""

from __future__ import annotations

import torch
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


if __name__ == "__main__":
    main()
