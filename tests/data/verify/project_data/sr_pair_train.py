"""A super-resolution GAN script whose dataset class comes from the first of two modules imported with
`*`: its samples are pairs of images, as its `__getitem__` returns them, not an image and a label
(fresh87's SRGAN practice, whose critic was given class labels)."""

from sr_pair_data import *
from sr_pair_layers import *

loader = DataLoader(PairedCrops("photos/train", read=torch.load), batch_size=8, shuffle=True)
upscaler, critic = Upscaler(), Critic()
opt_g = torch.optim.Adam(upscaler.parameters(), lr=1e-4)
opt_d = torch.optim.Adam(critic.parameters(), lr=1e-4)

for epoch in range(10):
    for low, high in loader:
        fake_high = upscaler(low)
        d_loss = 1 - critic(high).mean() + critic(fake_high).mean()  # expect: TCL003
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        g_loss = F.mse_loss(upscaler(low), high) + 1e-3 * (1 - critic(upscaler(low)).mean())
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
