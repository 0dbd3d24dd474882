"""The listing and dataset module of `unpaired_folders.py`: it reads the user's image folders, which
--verify never does."""

import os

import torch
from torch.utils import data


def folder_pairs(split):
    root = os.path.join("datasets", "horse2zebra")
    first = sorted(os.path.join(root, f"{split}A", name) for name in os.listdir(os.path.join(root, f"{split}A")))
    second = sorted(os.path.join(root, f"{split}B", name) for name in os.listdir(os.path.join(root, f"{split}B")))
    return first, second


class UnpairedImages(data.Dataset):
    def __init__(self, first, second):
        self.first, self.second = first, second

    def __len__(self):
        return min(len(self.first), len(self.second))

    def __getitem__(self, index):
        return {"A": torch.load(self.first[index]), "B": torch.load(self.second[index])}
