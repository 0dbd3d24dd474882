"""Training helpers that write into tensors autograd is tracking, and their fixes.

- `fit_line_inplace` updates its leaf weights in place in grad mode: PyTorch
  raises "a leaf Variable that requires grad is being used in an in-place
  operation" (TCL004). `TemperatureScaler.forward` clamps its parameter in
  place and fails the same way; so does `decay_weights`.
- `train_step_with_accuracy` rectifies a detached alias of the logits in place,
  which rewrites the logits the loss is computed from (TCL006).
- `train_epoch_leaky` accumulates the loss tensor itself, keeping every step's
  graph alive until the epoch ends (TCL007).

Each has a correct twin next to it. Run `python examples/train/leaf_tensors.py`.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


# --- TCL004: in-place writes to leaves that require grad ---------------------


def fit_line_inplace(xs: torch.Tensor, ys: torch.Tensor, lr: float = 0.1, steps: int = 20):
    w = torch.zeros(1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    for _ in range(steps):
        loss = ((w * xs + b - ys) ** 2).mean()
        loss.backward()
        w.sub_(lr * w.grad)  # expect: TCL004
        b -= lr * b.grad  # expect: TCL004
        w.grad = None
        b.grad = None
    return w, b


def fit_line(xs: torch.Tensor, ys: torch.Tensor, lr: float = 0.1, steps: int = 20):
    w = torch.zeros(1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    for _ in range(steps):
        loss = ((w * xs + b - ys) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w.sub_(lr * w.grad)
            b -= lr * b.grad
        w.grad = None
        b.grad = None
    return w.detach(), b.detach()


class TemperatureScaler(nn.Module):
    """Calibrates logits by a learnt temperature, kept away from zero."""

    def __init__(self):
        super().__init__()
        self.temperature = nn.Parameter(torch.ones(1))

    def forward(self, logits: torch.Tensor) -> torch.Tensor:
        self.temperature.clamp_(min=0.05)  # expect: TCL004
        return logits / self.temperature


class SafeTemperatureScaler(nn.Module):
    """The same, with the constraint applied outside autograd after each step."""

    def __init__(self):
        super().__init__()
        self.temperature = nn.Parameter(torch.ones(1))

    def forward(self, logits: torch.Tensor) -> torch.Tensor:
        return logits / self.temperature

    @torch.no_grad()
    def constrain(self) -> None:
        self.temperature.clamp_(min=0.05)


def decay_weights(model: nn.Module, weight_decay: float) -> None:
    for parameter in model.parameters():
        parameter.mul_(1.0 - weight_decay)  # expect: TCL004


@torch.no_grad()
def decay_weights_no_grad(model: nn.Module, weight_decay: float) -> None:
    for parameter in model.parameters():
        parameter.mul_(1.0 - weight_decay)


# --- TCL006: a detached alias written in place --------------------------------


def train_step_with_accuracy(model: nn.Module, optimizer, inputs: torch.Tensor, targets: torch.Tensor):
    optimizer.zero_grad()
    logits = model(inputs)
    probabilities = logits.detach()  # expect: TCL006
    probabilities.sigmoid_()
    accuracy = ((probabilities > 0.5).float() == targets).float().mean()
    loss = F.binary_cross_entropy_with_logits(logits, targets)
    loss.backward()
    optimizer.step()
    return loss.item(), accuracy.item()


def train_step_with_accuracy_fixed(model: nn.Module, optimizer, inputs: torch.Tensor, targets: torch.Tensor):
    optimizer.zero_grad()
    logits = model(inputs)
    probabilities = logits.detach().sigmoid()
    accuracy = ((probabilities > 0.5).float() == targets).float().mean()
    loss = F.binary_cross_entropy_with_logits(logits, targets)
    loss.backward()
    optimizer.step()
    return loss.item(), accuracy.item()


# --- TCL007: the graph kept alive by an accumulator ----------------------------


def train_epoch_leaky(model: nn.Module, optimizer, batches) -> float:
    total_loss = 0.0
    for inputs, targets in batches:
        optimizer.zero_grad()
        loss = F.mse_loss(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total_loss += loss  # expect: TCL007
    return total_loss.item() / len(batches)


def train_epoch(model: nn.Module, optimizer, batches) -> float:
    total_loss = 0.0
    for inputs, targets in batches:
        optimizer.zero_grad()
        loss = F.mse_loss(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
    return total_loss / len(batches)


def evaluate_losses(model: nn.Module, batches) -> list:
    losses = []
    for inputs, targets in batches:
        prediction = model(inputs)
        losses.append(F.mse_loss(prediction, targets).detach())
    return losses


# --- a demonstration ----------------------------------------------------------


def _expect_leaf_error(label: str, function) -> None:
    try:
        function()
    except RuntimeError as error:
        print(f"{label}: RuntimeError: {str(error).splitlines()[0]}")
    else:
        raise AssertionError(f"{label} did not raise")


def main() -> None:
    torch.manual_seed(0)
    xs = torch.linspace(-1, 1, 32)
    ys = 3 * xs + 0.5

    _expect_leaf_error("fit_line_inplace", lambda: fit_line_inplace(xs, ys))
    w, b = fit_line(xs, ys)
    print(f"fit_line: w={w.item():.3f} b={b.item():.3f}")

    logits = torch.randn(4, 3)
    _expect_leaf_error("TemperatureScaler", lambda: TemperatureScaler()(logits))
    scaler = SafeTemperatureScaler()
    scaler.constrain()
    print(f"SafeTemperatureScaler: {tuple(scaler(logits).shape)}")

    model = nn.Linear(4, 1)
    _expect_leaf_error("decay_weights", lambda: decay_weights(model, 1e-4))
    decay_weights_no_grad(model, 1e-4)

    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    inputs = torch.randn(8, 4)
    targets = (inputs.sum(dim=1, keepdim=True) > 0).float()
    print("with detached alias written in place:", train_step_with_accuracy(model, optimizer, inputs, targets))
    print("with an out-of-place sigmoid:", train_step_with_accuracy_fixed(model, optimizer, inputs, targets))

    batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
    print(f"train_epoch_leaky: {train_epoch_leaky(model, optimizer, batches):.4f}")
    print(f"train_epoch: {train_epoch(model, optimizer, batches):.4f}")
    print(f"evaluate_losses: {len(evaluate_losses(model, batches))} batches")


if __name__ == "__main__":
    main()
