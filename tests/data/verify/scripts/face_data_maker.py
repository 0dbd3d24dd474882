"""The data of a face GAN project: a class that reads an image folder and hands out its loader."""
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


class ReadFaceData:
    def __init__(self, root, image_size=32):
        self.dataset = datasets.ImageFolder(root, transform=transforms.Compose([
            transforms.Resize(image_size), transforms.CenterCrop(image_size), transforms.ToTensor()]))

    def getdataloader(self, batch_size=128):
        return DataLoader(self.dataset, batch_size=batch_size, shuffle=True)
