"""An anime-face WGAN whose dataset class extends nothing (a plain class with `__getitem__` and `__len__`,
which a DataLoader takes all the same), its samples dicts of an image (fresh64's WGAN, TCL003)."""

import glob

import torch
import torch.nn as nn
from PIL import Image
from torchvision import transforms


class FaceFolder():
    def __init__(self, pattern, transform=None):
        self.files = glob.glob(pattern)[:2000]
        self.transform = transform

    def __len__(self):
        return len(self.files)

    def __getitem__(self, index):
        image = Image.open(self.files[index]).convert("RGB")
        return {"image": self.transform(image) if self.transform else image}


faces = FaceFolder("data/faces/*.jpg", transform=transforms.Compose([transforms.Resize(32), transforms.ToTensor()]))
loader = torch.utils.data.DataLoader(dataset=faces, batch_size=64, shuffle=True)

generator = nn.Sequential(nn.Linear(16, 3 * 32 * 32), nn.Tanh(), nn.Unflatten(1, (3, 32, 32)))
critic = nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, 1))
optimizer_G = torch.optim.RMSprop(generator.parameters(), lr=5e-5)
optimizer_D = torch.optim.RMSprop(critic.parameters(), lr=5e-5)

for epoch in range(100):
    for i, data in enumerate(loader):
        real = data["image"]
        optimizer_D.zero_grad()
        fake = generator(torch.randn(real.size(0), 16))
        loss_D = -torch.mean(critic(real)) + torch.mean(critic(fake))
        loss_D.backward()
        optimizer_D.step()
        if i % 5 == 0:
            optimizer_G.zero_grad()
            loss_G = -torch.mean(critic(generator(torch.randn(real.size(0), 16))))
            loss_G.backward()
            optimizer_G.step()
