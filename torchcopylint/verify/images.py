"""Image files of random pixels, for code that opens an image file (a dataset's file list, a
style-transfer notebook's `Image.open("picasso.jpg")`): it reads one of these, never the user's data.

Runs in the verification child process; uses nothing but the standard library (the sandbox, which
opens these in place of the user's images, imports it).
"""

from __future__ import annotations

import gzip
import os
import random
import re
import struct
import tempfile
import zlib

# Read as an image, when a project opens an image file: these suffixes, whatever the file holds.
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".gif", ".webp", ".tif", ".tiff", ".ppm")
# A photograph's stand-in: large enough for a network's input after the code's resize or crop.
PHOTO_SIZE = (3, 256, 256)


# MNIST's files in LeCun's IDX format (`train-images-idx3-ubyte`, `t10k-labels.idx1-ubyte`, gzipped or not),
# which course code reads by hand with `struct.unpack`: made-up ones of this many 28x28 digits stand in.
MNIST_IDX = re.compile(r"(?i)idx([13])[-.]ubyte(\.gz)?$")
MNIST_IDX_COUNT = 256


def mnist_idx(name: str, seed: int = 0) -> bytes:
    """A made-up MNIST file in the IDX format its name says (images for `idx3`, labels for `idx1`), gzipped
    where the name ends in `.gz`: random pixels, labels 0..9 in turn."""
    found = MNIST_IDX.search(os.path.basename(name))
    count = MNIST_IDX_COUNT
    if found is not None and found.group(1) == "3":
        body = struct.pack(">IIII", 2051, count, 28, 28) + random.Random(seed).randbytes(count * 28 * 28)
    else:
        body = struct.pack(">II", 2049, count) + bytes(index % 10 for index in range(count))
    return gzip.compress(body) if found is not None and found.group(2) else body


def mnist_idx_said(name: str) -> str:
    """What a made-up MNIST file holds, in words."""
    found = MNIST_IDX.search(os.path.basename(name))
    if found is not None and found.group(1) == "3":
        return f"{MNIST_IDX_COUNT} made-up 28x28 images of random pixels"
    return f"{MNIST_IDX_COUNT} made-up labels, 0..9 in turn"


def random_image(channels: int, height: int, width: int, seed: int = 0) -> str:
    """The path of a PNG of random pixels (RGB for 3 channels, grey otherwise), written once per size
    and seed into the temporary folder, which the sandbox lets the run write."""
    channels = 3 if channels == 3 else 1
    folder = os.path.join(tempfile.gettempdir(), "torchcopylint-images")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{channels}x{height}x{width}-{seed}.png")
    if os.path.exists(path):
        return path
    pixels = random.Random(seed).randbytes(height * width * channels)
    stride = width * channels
    rows = b"".join(b"\x00" + pixels[row * stride:(row + 1) * stride] for row in range(height))
    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 2 if channels == 3 else 0, 0, 0, 0])
    written = f"{path}.{os.getpid()}.part"
    with open(written, "wb") as handle:
        handle.write(b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(rows))
                     + _chunk(b"IEND", b""))
    os.replace(written, path)
    return path


def _chunk(kind: bytes, data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")
