"""Imported by the process spawner.py starts. `used` runs; `never_called` does not."""

import torch


def used(x: torch.Tensor) -> torch.Tensor:
    return x.clone().detach()


def never_called(t: torch.Tensor) -> torch.Tensor:
    return torch.tensor(t)


def main() -> None:
    x = torch.ones(3, requires_grad=True) * 2.0
    print("worker:", used(x).tolist())
