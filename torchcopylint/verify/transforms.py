"""torchvision's image transforms that change a picture's shape, where torchvision is missing.

Runs in the verification child process. Most transforms of a missing torchvision stand in as
the identity (verify/noops.py): the stand-in batches are already shaped for the network. A
picture the code makes itself is not: an Atari frame of 210x160x3 goes through
`Compose([ToPILImage(), Grayscale(1), Resize((84, 84)), ToTensor()])` into a network whose first
convolution takes one channel of 84x84. These transforms give the shape torchvision would
(values are interpolated simply; a claim about copies and graphs does not depend on them).
"""

from __future__ import annotations

import sys
from typing import Any, Optional

from torchcopylint.verify import sandbox

# Transform classes (as the stand-in names a made one) and functions, by what they do.
GRAYSCALE = frozenset({"Grayscale()", "rgb_to_grayscale"})
RESIZE = frozenset({"Resize()", "resize"})
CENTER_CROP = frozenset({"CenterCrop()", "center_crop"})


def reshaped(name: str, made_with: Optional[tuple], image: Any, call_args: tuple, call_kwargs: dict) -> Any:
    """`image` as the transform `name` would shape it, or None when it is not one of these (or the
    image is not a tensor, an array or a PIL image). `made_with`: the (args, kwargs) a transform
    object was made with; a function's own arguments follow the image in the call."""
    if name not in GRAYSCALE | RESIZE | CENTER_CROP:
        return None
    args, kwargs = made_with if made_with is not None and name.endswith("()") else (call_args[1:], call_kwargs)
    as_array = _array_of(image)
    if as_array is None and not _is_tensor(image):
        return None
    tensor = _to_tensor(as_array) if as_array is not None else image
    if name in GRAYSCALE:
        channels = _argument(args, kwargs, 0, "num_output_channels", 1)
        tensor = _grayscale(tensor, int(channels))
    elif name in RESIZE:
        size = _argument(args, kwargs, 0, "size", None)
        if size is None:
            return None
        tensor = _resize(tensor, size)
    else:
        size = _argument(args, kwargs, 0, "output_size" if "output_size" in kwargs else "size", None)
        if size is None:
            return None
        tensor = _center_crop(tensor, size)
    sandbox.record(f"torchvision's `{name.removesuffix('()')}` (torchvision is not installed) gave the shape "
                   f"torchvision would")
    return _back(tensor, image) if as_array is not None else tensor


def _argument(args: tuple, kwargs: dict, index: int, keyword: str, default: Any) -> Any:
    return args[index] if len(args) > index else kwargs.get(keyword, default)


def _is_tensor(value) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def _array_of(image) -> Any:
    """A PIL image or an H x W (x C) NumPy array as an array; None for anything else."""
    numpy = sys.modules.get("numpy")
    pil = sys.modules.get("PIL.Image")
    if numpy is not None and isinstance(image, numpy.ndarray) and image.ndim in (2, 3):
        return image
    if numpy is not None and pil is not None and isinstance(image, pil.Image):
        return numpy.array(image)
    return None


def _to_tensor(array):
    """C x H x W, as torchvision works on tensors."""
    import torch

    tensor = torch.from_numpy(array.copy())
    return tensor.unsqueeze(0) if tensor.dim() == 2 else tensor.permute(2, 0, 1)


def _back(tensor, original):
    """The tensor as the kind of picture `original` was: an array H x W (x C), or a PIL image."""
    import numpy

    array = tensor.permute(1, 2, 0).numpy()
    if array.shape[2] == 1 and (getattr(original, "ndim", 3) == 2 or not isinstance(original, numpy.ndarray)):
        array = array[:, :, 0]
    array = array.astype(numpy.asarray(_array_of(original)).dtype, copy=False)
    if isinstance(original, numpy.ndarray):
        return array
    return sys.modules["PIL.Image"].fromarray(array)


def _grayscale(tensor, channels: int):
    gray = tensor.float().mean(dim=-3, keepdim=True).to(tensor.dtype)
    return gray.expand(*gray.shape[:-3], channels, *gray.shape[-2:]).contiguous()


def _resize(tensor, size):
    """`size` (h, w), or one number for the smaller edge, the other kept in proportion."""
    import torch.nn.functional as F

    height, width = tensor.shape[-2:]
    if isinstance(size, (list, tuple)) and len(size) == 1:
        size = size[0]
    if isinstance(size, (list, tuple)):
        target = (int(size[0]), int(size[1]))
    elif height <= width:
        target = (int(size), max(1, int(round(int(size) * width / height))))
    else:
        target = (max(1, int(round(int(size) * height / width))), int(size))
    batch = tensor.reshape(-1, *tensor.shape[-3:]).float()
    resized = F.interpolate(batch, size=target, mode="bilinear", align_corners=False)
    return resized.reshape(*tensor.shape[:-2], *target).to(tensor.dtype)


def _center_crop(tensor, size):
    height, width = tensor.shape[-2:]
    if isinstance(size, (list, tuple)):
        crop_height, crop_width = (int(size[0]), int(size[-1]))
    else:
        crop_height = crop_width = int(size)
    if crop_height > height or crop_width > width:
        return _resize(tensor, (max(crop_height, height), max(crop_width, width)))[..., :crop_height, :crop_width]
    top, left = (height - crop_height) // 2, (width - crop_width) // 2
    return tensor[..., top:top + crop_height, left:left + crop_width]
