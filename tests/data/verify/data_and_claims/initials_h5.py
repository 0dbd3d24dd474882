"""The dataset module of `initials_gan.py`: faces and their initials, country and city, in an HDF5
file that --verify never opens (h5py is not installed: a no-op stands in for it)."""

import h5py
from torch.utils import data


def get_dataset():
    return InitialsFromFile("initials.h5")


class InitialsFromFile(data.Dataset):
    def __init__(self, path):
        h5 = h5py.File(path, "r")
        self.images = h5["images"]
        self.initials = h5["initials"]
        self.countries = h5["countries"]
        self.cities = h5["cities"]

    def __getitem__(self, index):
        return self.images[index], self.initials[index], self.countries[index], self.cities[index]

    def __len__(self):
        return len(self.images)
