"""The data module gan_tagged_pictures.py imports: a dataset class not named for data.

`TaggedPictures(tags_file, picture_folder)` reads a list of tags, then one picture a sample;
--verify must never run it (the files are the user's): the script's loader over it is stood in.
"""

from PIL import Image
from torch.utils import data


class TaggedPictures(data.Dataset):
    def __init__(self, tags_file, picture_folder, transform=None):
        with open(tags_file) as lines:
            self.names = [line.split(":")[0] for line in lines]
        self.picture_folder = picture_folder
        self.transform = transform

    def __getitem__(self, index):
        picture = Image.open(f"{self.picture_folder}/{self.names[index]}.jpg")
        return self.transform(picture) if self.transform is not None else picture

    def __len__(self):
        return len(self.names)
