"""Small tensor helpers of the kind every project grows, some copying the wrong way.

The `clone().detach()` helpers record a CloneBackward node per call and throw
it away (TCL005); the `torch.tensor(t)` helpers copy-construct from a tensor,
which PyTorch warns about (TCL008). Their correct versions sit next to them.
"""

from __future__ import annotations

from typing import Iterable

import torch
from torch import Tensor, nn

# --- copies outside the graph -------------------------------------------------


def snapshot(t: Tensor) -> Tensor:
    """A copy of `t` that autograd does not track."""
    return t.clone().detach()  # expect: TCL005


def snapshot_fixed(t: Tensor) -> Tensor:
    return t.detach().clone()


def snapshot_parameters(module: nn.Module) -> dict:
    """A copy of a module's parameters, for early stopping or an EMA start."""
    return {name: value.clone().detach() for name, value in module.named_parameters()}  # expect: TCL005


def snapshot_parameters_fixed(module: nn.Module) -> dict:
    return {name: value.detach().clone() for name, value in module.named_parameters()}


def channels_last_copy(images: Tensor) -> Tensor:
    return torch.clone(images, memory_format=torch.channels_last).detach()  # expect: TCL005


def channels_last_copy_fixed(images: Tensor) -> Tensor:
    return images.detach().clone(memory_format=torch.channels_last)


def trainable_copy(t: Tensor) -> Tensor:
    """A new leaf with `t`'s values, e.g. an input to optimise."""
    return t.clone().detach().requires_grad_(True)  # expect: TCL005


def trainable_copy_fixed(t: Tensor) -> Tensor:
    return t.detach().clone().requires_grad_(True)


def clone_all(tensors: Iterable[Tensor]) -> list:
    """Copies that stay in the graph: gradients flow back to the originals."""
    return [t.clone() for t in tensors]


# --- copy construction from tensors ---------------------------------------------


def as_float(values: Tensor) -> Tensor:
    return torch.tensor(values, dtype=torch.float32)  # expect: TCL008


def as_float_fixed(values: Tensor) -> Tensor:
    return values.detach().clone().to(dtype=torch.float32)


def mean_squared_error(predictions: Tensor, targets: Tensor) -> Tensor:
    errors = predictions - targets
    return torch.tensor((errors * errors).mean())  # expect: TCL008


def mean_squared_error_fixed(predictions: Tensor, targets: Tensor) -> Tensor:
    errors = predictions - targets
    return (errors * errors).mean().detach()


def detached_copy(t: Tensor) -> Tensor:
    """Written after seeing PyTorch's warning, and still wrong twice."""
    return torch.tensor(t.clone().detach())  # expect: TCL005, TCL008


def to_tensor(data, dtype=torch.float32) -> Tensor:
    """Lists, numbers and arrays: what torch.tensor is for."""
    return torch.tensor(data, dtype=dtype)


def ensure_tensor(data) -> Tensor:
    """No copy when `data` is already a tensor."""
    return torch.as_tensor(data)


def shape_tensor(t: Tensor) -> Tensor:
    return torch.tensor(t.shape)


def metrics_tensor(loss: Tensor, accuracy: Tensor) -> Tensor:
    return torch.tensor([loss.item(), accuracy.item()])


def main() -> None:
    torch.manual_seed(0)
    x = torch.randn(2, 3, 4, 4, requires_grad=True) * 1.0
    model = nn.Linear(3, 2)
    pairs = [
        (snapshot(x), snapshot_fixed(x)),
        (channels_last_copy(x), channels_last_copy_fixed(x)),
        (trainable_copy(x), trainable_copy_fixed(x)),
        (as_float(torch.arange(3)), as_float_fixed(torch.arange(3))),
        (mean_squared_error(x, x * 0.5), mean_squared_error_fixed(x, x * 0.5)),
        (detached_copy(x), snapshot_fixed(x)),
    ]
    for flagged, fixed in pairs:
        assert torch.equal(flagged, fixed) and flagged.requires_grad == fixed.requires_grad
    state, state_fixed = snapshot_parameters(model), snapshot_parameters_fixed(model)
    assert all(torch.equal(state[name], state_fixed[name]) for name in state)
    print(len(clone_all([x, x])), to_tensor([1, 2]), ensure_tensor(x) is x, shape_tensor(x))
    print(metrics_tensor(torch.tensor(0.5), torch.tensor(0.9)))


if __name__ == "__main__":
    main()
