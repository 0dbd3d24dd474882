"""Pairs of a low- and a high-resolution crop of each photograph of a folder (sr_pair_train.py imports
this module with `*`, then another module, which does not define the class)."""

import os

import torch.nn.functional as F
from torch.utils.data import Dataset


class PairedCrops(Dataset):
    def __init__(self, folder, read, factor=2):
        self.files = sorted(os.path.join(folder, name) for name in os.listdir(folder))
        self.read, self.factor = read, factor

    def __getitem__(self, index):
        high_image = self.read(self.files[index])
        low_image = F.interpolate(high_image[None], scale_factor=1 / self.factor, mode="bicubic")[0]
        return low_image, high_image

    def __len__(self):
        return len(self.files)
