"""An image-to-image dataset of the project (used by pix2pix_pairs.py): each sample is a dict of two
images and a path, read from a folder of files that verification never opens."""

import os

from PIL import Image
from torch.utils.data import Dataset
from torchvision import transforms


class PairedImages(Dataset):
    def __init__(self, root, size=32):
        self.A_paths = sorted(os.path.join(root, "A", name) for name in os.listdir(os.path.join(root, "A")))
        self.B_paths = sorted(os.path.join(root, "B", name) for name in os.listdir(os.path.join(root, "B")))
        self.transform = transforms.Compose([transforms.Resize(size), transforms.ToTensor()])

    def __getitem__(self, index):
        A_path = self.A_paths[index]
        A = self.transform(Image.open(A_path).convert("RGB"))
        B = self.transform(Image.open(self.B_paths[index]).convert("RGB"))
        return {"A": A, "B": B, "A_paths": A_path}

    def __len__(self):
        return len(self.A_paths)
