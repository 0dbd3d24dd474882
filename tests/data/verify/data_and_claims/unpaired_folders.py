"""A translation GAN written as a notebook is (TCL007): the image paths are listed by a sibling
module's function, read by nothing but the dataset; its patch discriminator scores 8x8 patches of the
128-pixel images, and the script sizes its targets for that. --verify lists no folder (the listing
does not run: only the stand-in data would have read it) and finds the side from the first run's
mismatch of 4 against 8."""

import torch
from torch import nn
from torch.utils.data import DataLoader

from image_folders import UnpairedImages, folder_pairs

batch_size = 16
train_a, train_b = folder_pairs("train")
loader = DataLoader(UnpairedImages(train_a, train_b), batch_size=batch_size, shuffle=True)

G = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 3, 3, padding=1), nn.Tanh())
D = nn.Sequential(nn.Conv2d(3, 8, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(8, 8, 4, 2, 1), nn.LeakyReLU(0.2),
                  nn.Conv2d(8, 8, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(8, 1, 4, 2, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4)
criterion = nn.MSELoss()
target = torch.ones(batch_size, 1, 8, 8)
history = []
for epoch in range(100):
    for batch in loader:
        real_a = batch["A"]
        fake_b = G(real_a)
        loss_g = criterion(D(fake_b), target[:real_a.size(0)]) + (fake_b - batch["B"]).abs().mean()
        opt_g.zero_grad()
        loss_g.backward()
        opt_g.step()
        history.append(loss_g)  # expect: TCL007
