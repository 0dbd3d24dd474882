"""Reads a folder of face images into one tensor (the reader of gan_read_by_function.py)."""

import os

import numpy as np
import torch
from PIL import Image


def read_faces(folder):
    faces = [np.asarray(Image.open(os.path.join(folder, name)), dtype="float32") / 255.0
             for name in sorted(os.listdir(folder))]
    return torch.from_numpy(np.stack(faces)).permute(0, 3, 1, 2)
