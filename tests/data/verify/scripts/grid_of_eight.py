"""An autoencoder script whose preview helper takes the first eight samples of a batch apart.

`preview(images)` indexes `images[idx]` for `idx in range(8)`: batches cut to four stand-in samples
fail there, so --verify takes batches of eight (not the 64 the code asks for, which would cost a
step of the full size). The running sum `running += loss` keeps every batch's graph (TCL007).
"""

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset
from PIL import Image

BATCH_SIZE = 64


class Faces(Dataset):
    def __init__(self, folder):
        self.paths = [f"{folder}/{index}.png" for index in range(1000)]

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, index):
        image = Image.open(self.paths[index]).convert("RGB").resize((32, 32))
        image = torch.from_numpy(np.asarray(image)).permute(2, 0, 1).float() / 255
        return image


def preview(images):
    return torch.cat([images[idx] for idx in range(8)], dim=2)


loader = DataLoader(Faces("faces"), batch_size=BATCH_SIZE, shuffle=True)
model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 3, 3, padding=1))
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(5):
    running = 0
    for batch_idx, images in enumerate(loader):
        if batch_idx % 100 == 0:
            preview(images)
        loss = nn.functional.mse_loss(model(images), images)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running += loss
    print(epoch, running.item() / len(loader))
