"""A top-level GAN script over a sibling module's loader of a folder of images.

`D(fake)` is not detached before the discriminator's backward (TCL003). The loader is made as
`folder_loader` is imported, over a dataset that finds no files here; the step reshapes each batch
to exactly `BATCH_SIZE` rows, which a first run of stand-in batches (cut small) fails on: the next
run imports the module anew, and its loader's batches have that size.
"""

import torch
from torch import nn

from folder_loader import BATCH_SIZE, image_loader

G = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 3 * 8 * 8), nn.Tanh())
D = nn.Sequential(nn.Linear(3 * 8 * 8, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))
d_optimizer = torch.optim.SGD(D.parameters(), lr=0.01)

for epoch in range(100):
    for images, _ in image_loader:
        real = images.view(BATCH_SIZE, -1)
        fake = G(torch.randn(BATCH_SIZE, 16))
        d_loss = D(fake).mean() - D(real).mean()
        d_optimizer.zero_grad()
        d_loss.backward()
        d_optimizer.step()
