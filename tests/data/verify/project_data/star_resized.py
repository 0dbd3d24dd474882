"""A WGAN whose critic reads 64x64 images: MNIST, resized by its transform, with torchvision's datasets
and transforms and the DataLoader all from a module of the project imported with `*` (the loader is
found to be one over absent data only at run time)."""

from star_imports import *

IMAGE_SIZE = 64
transforms = transforms.Compose([transforms.Resize(IMAGE_SIZE), transforms.ToTensor(),
                                 transforms.Normalize([0.5], [0.5])])
dataset = datasets.MNIST(root="data/", train=True, download=True, transform=transforms)
loader = DataLoader(dataset, batch_size=64, shuffle=True)

# 64 -> 32 -> 16 -> 8 -> 4 -> 1, normalized instance by instance: a 28-pixel image is 1 pixel wide at
# the last normalization, which refuses it.
critic = nn.Sequential(nn.Conv2d(1, 8, 4, 2, 1), nn.LeakyReLU(0.2),
                       nn.Conv2d(8, 16, 4, 2, 1), nn.InstanceNorm2d(16, affine=True), nn.LeakyReLU(0.2),
                       nn.Conv2d(16, 32, 4, 2, 1), nn.InstanceNorm2d(32, affine=True), nn.LeakyReLU(0.2),
                       nn.Conv2d(32, 64, 4, 2, 1), nn.InstanceNorm2d(64, affine=True), nn.LeakyReLU(0.2),
                       nn.Conv2d(64, 1, 4, 2, 0))
gen = nn.Sequential(nn.ConvTranspose2d(16, 64, 4, 1, 0), nn.ReLU(), nn.ConvTranspose2d(64, 32, 4, 2, 1), nn.ReLU(),
                    nn.ConvTranspose2d(32, 16, 4, 2, 1), nn.ReLU(), nn.ConvTranspose2d(16, 8, 4, 2, 1), nn.ReLU(),
                    nn.ConvTranspose2d(8, 1, 4, 2, 1), nn.Tanh())
opt_critic = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.0, 0.9))
opt_gen = torch.optim.Adam(gen.parameters(), lr=1e-4, betas=(0.0, 0.9))

for epoch in range(5):
    for real, _ in loader:
        noise = torch.randn(real.shape[0], 16, 1, 1)
        fake = gen(noise)
        loss_critic = -(critic(real).mean() - critic(fake).mean())  # expect: TCL003
        opt_critic.zero_grad()
        loss_critic.backward()
        opt_critic.step()
        loss_gen = -critic(fake).mean()
        opt_gen.zero_grad()
        loss_gen.backward()
        opt_gen.step()
