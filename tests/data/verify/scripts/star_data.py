"""The data module `gan_star_import.py` imports with `*`: a dataset of a folder's images."""
import os

import torch
from PIL import Image
from torch.utils import data


class FolderImages(data.Dataset):
    def __init__(self, root):
        self.paths = [os.path.join(root, name) for name in os.listdir(root)]

    def __getitem__(self, index):
        image = Image.open(self.paths[index]).convert("L").resize((8, 8))
        image = torch.tensor(list(image.getdata()), dtype=torch.float32).view(64) / 255
        return image

    def __len__(self):
        return len(self.paths)
