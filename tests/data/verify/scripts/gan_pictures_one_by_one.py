"""A GAN script that reads its pictures one file at a time into one array, then a TensorDataset.

The listing (`os.listdir`) and the reads (`Image.open` in a comprehension) are the user's data:
stand-in images take the array's place (channels last, as `permute(0, 3, 1, 2)` says; as wide as
the discriminator's linear layer, which reads its feature maps flattened, takes them). The
discriminator is fed `gen_outputs` without `.detach()` (TCL003).
"""

import os

import numpy as np
import torch
from PIL import Image
from torch import nn

files = np.array(["../data/faces/" + name for name in os.listdir("../data/faces")])
indexes = np.random.randint(0, len(files), 300)
images = np.array([np.array(Image.open(path).resize((16, 16))) for path in files[indexes]])
images = torch.tensor(images, dtype=torch.float32)
images = images.permute(0, 3, 1, 2) / 255.0
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(images), batch_size=32, shuffle=True)



class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.dense = nn.Linear(20, 8 * 8 * 8)
        self.up = nn.ConvTranspose2d(8, 3, 4, 2, 1)

    def forward(self, z):
        return torch.sigmoid(self.up(self.dense(z).view(-1, 8, 8, 8)))


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 4, 2, 1)
        self.dense = nn.Linear(8 * 8 * 8, 1)

    def forward(self, x):
        return torch.sigmoid(self.dense(torch.flatten(nn.functional.leaky_relu(self.conv(x), 0.2), 1)))


gen = Generator()
disc = Discriminator()
gen_optimizer = torch.optim.Adam(gen.parameters())
disc_optimizer = torch.optim.Adam(disc.parameters())
loss_fn = nn.BCELoss()

for epoch in range(10):
    for (batch,) in loader:
        gen_outputs = gen(torch.randn(len(batch), 20))
        disc_optimizer.zero_grad()
        disc_loss = loss_fn(disc(batch), torch.ones(len(batch), 1)) + \
            loss_fn(disc(gen_outputs), torch.zeros(len(batch), 1))
        disc_loss.backward()
        disc_optimizer.step()
        gen_optimizer.zero_grad()
        gen_loss = loss_fn(disc(gen_outputs), torch.ones(len(batch), 1))
        gen_loss.backward()
        gen_optimizer.step()
