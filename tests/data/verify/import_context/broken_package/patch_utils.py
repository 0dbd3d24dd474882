import torch


def clamp_patch(patch: torch.Tensor) -> torch.Tensor:
    return patch.clamp(0, 1)
