"""The data module of gan_folder_loader.py: a loader made as the module is imported, over a dataset
class that lists a folder of images. The folder is not there when --verify runs (it never reads the
user's files): the dataset has no samples, and a DataLoader over it could not even be made.
"""

import os

import torch
from torch.utils.data import DataLoader, Dataset

BATCH_SIZE = 32


class ImageFiles(Dataset):
    def __init__(self, folder):
        self.files = sorted(os.listdir(folder)) if os.path.isdir(folder) else []

    def __len__(self):
        return len(self.files)

    def __getitem__(self, index):
        return torch.load(self.files[index]), 0


image_loader = DataLoader(ImageFiles("images/train"), batch_size=BATCH_SIZE, shuffle=True)
