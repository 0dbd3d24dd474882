"""A trainer whose discriminator returns one flat score per sample (its networks are built
elsewhere): the losses compare them with `torch.ones(batch)`, so the stand-in discriminator must
return scores of that shape too."""

import torch
from torch.nn import functional as F


class Trainer:
    def __init__(self, gen, disc):
        self.gen = gen
        self.disc = disc
        self.opt_d = torch.optim.Adam(disc.parameters())

    def discriminator_step(self, real):
        fake = self.gen(torch.randn(real.size(0), 16))
        real_loss = F.binary_cross_entropy_with_logits(self.disc(real), torch.ones(real.size(0)))
        fake_loss = F.binary_cross_entropy_with_logits(self.disc(fake), torch.zeros(real.size(0)))  # expect: TCL003
        self.opt_d.zero_grad()
        (real_loss + fake_loss).backward()
        self.opt_d.step()
