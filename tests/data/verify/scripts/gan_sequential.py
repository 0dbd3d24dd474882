"""A GAN written as a script: networks, optimizers and data made at the top level, one training loop.

The discriminator step feeds `D(fake)` without `.detach()` (TCL003). --verify must build
G and D from the statements that make them, stand in for MNIST, and run the step once:
the loop writes a marker (outside the project, where the test says) on its second
iteration and after it, and exits the script there.
"""

import os

import torch
from torch import nn
from torchvision import datasets, transforms

MARKERS = os.environ.get("TCL_TEST_MARKERS", os.path.dirname(os.path.abspath(__file__)))
device = "cuda" if torch.cuda.is_available() else "cpu"
z_dim = 32
image_dim = 28 * 28
batch_size = 16

G = nn.Sequential(nn.Linear(z_dim, 128), nn.LeakyReLU(0.1), nn.Linear(128, image_dim), nn.Tanh()).to(device)
D = nn.Sequential(nn.Linear(image_dim, 128), nn.LeakyReLU(0.1), nn.Linear(128, 1), nn.Sigmoid()).to(device)
opt_G = torch.optim.Adam(G.parameters(), lr=3e-4)
opt_D = torch.optim.Adam(D.parameters(), lr=3e-4)
criterion = nn.BCELoss()

mnist = datasets.MNIST(root="data/", train=True, download=True,
                       transform=transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))]))
loader = torch.utils.data.DataLoader(mnist, batch_size=batch_size, shuffle=True, num_workers=2)

for epoch in range(50):
    for step, (real, _) in enumerate(loader):
        if epoch + step > 0:
            with open(os.path.join(MARKERS, "second_iteration"), "w") as marker:
                marker.write(f"epoch {epoch} step {step}\n")
            raise SystemExit("the training loop ran a second iteration")
        real = real.view(-1, image_dim).to(device)
        noise = torch.randn(batch_size, z_dim, device=device)
        fake = G(noise)
        d_real = D(real).view(-1)
        d_fake = D(fake).view(-1)
        loss_D = (criterion(d_real, torch.ones_like(d_real)) + criterion(d_fake, torch.zeros_like(d_fake))) / 2
        D.zero_grad()
        loss_D.backward()
        opt_D.step()

        output = D(G(noise)).view(-1)
        loss_G = criterion(output, torch.ones_like(output))
        G.zero_grad()
        loss_G.backward()
        opt_G.step()

with open(os.path.join(MARKERS, "after_loop"), "w") as marker:
    marker.write("the loop finished\n")
raise SystemExit("the script ran to its end")
