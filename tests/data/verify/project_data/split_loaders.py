"""A course's data module: binarised digits in three splits, read from the author's folder."""
import os

import torch
from torch.utils.data import DataLoader, Dataset


class BinaryDigits(Dataset):
    def __init__(self, root, split):
        self.images = torch.load(os.path.join(root, f"{split}.pt"))

    def __getitem__(self, index):
        return self.images[index]

    def __len__(self):
        return len(self.images)


def binary_digits(root="./data/", batch_size=128):
    train_set = BinaryDigits(root, "train")
    val_set = BinaryDigits(root, "val")
    test_set = BinaryDigits(root, "test")
    train_loader = DataLoader(train_set, batch_size=batch_size, shuffle=True)
    val_loader = DataLoader(val_set, batch_size=batch_size)
    test_loader = DataLoader(test_set, batch_size=batch_size)
    return train_loader, val_loader, test_loader
