# A homework's training loop, which a script per question calls with its own losses: the interpolates
# reach the discriminator's loss only where the question's loss takes a gradient penalty.
from glob import glob

import torch
from PIL import Image


class Birds(torch.utils.data.Dataset):
    def __init__(self, root):
        self.files = glob(root + "/*.jpg")

    def __getitem__(self, index):
        return torch.from_numpy(__import__("numpy").asarray(Image.open(self.files[index]))).permute(2, 0, 1)

    def __len__(self):
        return len(self.files)


def train_model(gen, disc, num_iterations, batch_size, disc_loss_fn, gen_loss_fn, lamb=10):
    loader = torch.utils.data.DataLoader(Birds("../datasets/birds_8"), batch_size=batch_size, shuffle=True)
    optim_discriminator = torch.optim.Adam(disc.parameters(), lr=2e-4, betas=(0.0, 0.9))
    optim_generator = torch.optim.Adam(gen.parameters(), lr=2e-4, betas=(0.0, 0.9))
    iters = 0
    while iters < num_iterations:
        for batch in loader:
            batch = batch.cuda().float() / 255
            fake = gen(batch.size(0))
            alpha = torch.rand(batch.size(0), 1, 1, 1).cuda()
            interp = (alpha * batch + (1 - alpha) * fake).requires_grad_(True)
            discriminator_loss = disc_loss_fn(disc(batch), disc(fake.detach()), disc(interp), interp, lamb)
            optim_discriminator.zero_grad()
            discriminator_loss.backward()
            optim_discriminator.step()

            generator_loss = gen_loss_fn(disc(gen(batch.size(0))))
            optim_generator.zero_grad()
            generator_loss.backward()
            optim_generator.step()
            iters += 1
