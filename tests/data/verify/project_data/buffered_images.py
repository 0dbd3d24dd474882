"""Images copied into a buffer the script sized for its real 256-pixel photographs."""

import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

loader = DataLoader(datasets.ImageFolder("photos", transform=transforms.ToTensor()), batch_size=1)
buffer = torch.ones([1, 3, 256, 256])
for images, _ in loader:
    batch = torch.tensor(buffer.copy_(images), dtype=torch.float)  # expect: TCL008
    print(batch.mean())
