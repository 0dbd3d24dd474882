"""An adversarial patch trained on a drone's camera frames, 96 pixels high and 160 wide (TCL007): the
script makes its patch and its mask for that frame and pastes them on each batch. --verify reads no
frame; stand-in images of one side disagree with the mask in width first, then take that width only,
so the frames it makes are 96x160 like the real ones."""

import torch
from torch import nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

frames = datasets.ImageFolder("data/frames", transform=transforms.ToTensor())
loader = DataLoader(frames, batch_size=8, shuffle=True)

model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                      nn.Linear(8, 4))
patch = torch.rand(1, 3, 96, 160, requires_grad=True)
mask = torch.zeros(1, 1, 96, 160)
mask[..., 30:60, 50:110] = 1
optimizer = torch.optim.Adam([patch], lr=0.01)
losses = []
for epoch in range(50):
    for images, _ in loader:
        attacked = images * (1 - mask) + patch * mask
        loss = -model(attacked).max(dim=1).values.mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss)  # expect: TCL007
