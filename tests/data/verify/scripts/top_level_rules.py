"""Bugs written at a script's top level, each in a training loop over a dataset of files.

- TCL007: `total += loss` keeps every iteration's graph;
- TCL003 and TCL011: the critic step feeds `critic(fake)` undetached and keeps the graph
  (`retain_graph=True`) for the generator's backward through the same fake;
- TCL001: a residual copy nothing writes (and, below it, a copy the next line needs:
  the test's hand-made TCL001 there must be refuted), and at the end a copy read after a
  `print` (a statement the slice leaves out, which cannot write it);
- TCL002: a reshaped view read after a slice assignment wrote its storage (and a copy
  nothing writes: the test's hand-made TCL002 there must be refuted).

The folder of images does not exist: --verify stands in for it. After the loops the
script writes a marker (outside the project, where the test says) and exits.
"""

import os

import torch
from torch import nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

MARKERS = os.environ.get("TCL_TEST_MARKERS", os.path.dirname(os.path.abspath(__file__)))
torch.manual_seed(0)
batch_size = 8
z_dim = 16
image_size = 32
transform = transforms.Compose([transforms.Grayscale(), transforms.Resize(image_size), transforms.ToTensor()])
images = datasets.ImageFolder("faces/train", transform=transform)
loader = DataLoader(images, batch_size=batch_size, shuffle=True, num_workers=4)

classifier = nn.Sequential(nn.Flatten(), nn.Linear(image_size * image_size, 64), nn.ReLU(), nn.Linear(64, 10))
optimizer = torch.optim.SGD(classifier.parameters(), lr=0.01)
criterion = nn.CrossEntropyLoss()
total = 0
for inputs, labels in loader:
    optimizer.zero_grad()
    loss = criterion(classifier(inputs), labels)
    loss.backward()
    optimizer.step()
    total += loss
print(f"mean loss {total / len(loader):.3f}")

generator = nn.Sequential(nn.Linear(z_dim, 64), nn.ReLU(), nn.Linear(64, image_size * image_size), nn.Tanh())
critic = nn.Sequential(nn.Flatten(), nn.Linear(image_size * image_size, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))
opt_g = torch.optim.Adam(generator.parameters(), lr=1e-4)
opt_c = torch.optim.Adam(critic.parameters(), lr=1e-4)
for epoch in range(100):
    for real, _ in loader:
        z = torch.randn(real.size(0), z_dim)
        fake = generator(z).view(-1, 1, image_size, image_size)
        loss_c = critic(fake).mean() - critic(real).mean()
        opt_c.zero_grad()
        loss_c.backward(retain_graph=True)
        opt_c.step()
        loss_g = -critic(fake).mean()
        opt_g.zero_grad()
        loss_g.backward()
        opt_g.step()

encoder = nn.Linear(image_size * image_size, 64)
block = nn.Sequential(nn.Linear(64, 64), nn.Tanh())
for step, (batch, _) in enumerate(loader):
    hidden = encoder(batch.flatten(1))
    residual = hidden.clone()
    out = block(hidden) + residual
    out.square().mean().backward()

for batch, _ in loader:
    hidden = encoder(batch.flatten(1))
    saved = hidden.clone()
    hidden.mul_(2)
    drift = (hidden - saved).square().mean()

values = torch.arange(1.0, 10.0)
row = values.reshape(1, 9)
values[:3] = 0.0
print(row.sum())
kept = values.clone()
values[3:] = 1.0
print(kept.sum())

features = torch.randn(4, 3)
weights = torch.randn(3, requires_grad=True)
snapshot = weights.clone()
print("snapshot taken", features.shape)
projection = (features @ snapshot).sum()
projection.backward()

with open(os.path.join(MARKERS, "after_loop"), "w") as marker:
    marker.write("the loops finished\n")
raise SystemExit("the script ran to its end")
