import torch


def f(image: torch.Tensor) -> torch.Tensor:
    image = image.reshape(-1, 3, 4, 4)
    output = image.to(dtype=torch.float32, copy=True)
    output.add_(1)
    return output + image
