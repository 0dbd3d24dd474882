"""An auxiliary-classifier GAN whose networks return tuples: the generator its image and an
attention map, the discriminator its logit and its features. The training step lives in a plain
class (not an nn.Module) whose `labels` are the classes of the real batch: a loss target and an
index into the class embedding."""

import torch
import torch.nn as nn
import torch.nn.functional as F

N_CLASSES = 10
Z_DIM = 32


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(N_CLASSES, Z_DIM)
        self.net = nn.Sequential(nn.Linear(Z_DIM, 64), nn.ReLU(), nn.Linear(64, 784), nn.Tanh())

    def forward(self, z, labels):
        h = z * self.embed(labels)
        img = self.net(h)
        return img, h.abs().mean(1)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(784, 128), nn.LeakyReLU(0.2))
        self.head = nn.Linear(128, 1)
        self.aux = nn.Linear(128, N_CLASSES)

    def forward(self, x):
        feat = self.body(x.view(x.size(0), -1))
        shortcut = feat.clone()  # expect: TCL001
        return self.head(shortcut), self.aux(feat)


class GANTrainer:
    def __init__(self, netG, netD, lr=2e-4):
        self.netG = netG
        self.netD = netD
        self.opt_g = torch.optim.Adam(netG.parameters(), lr=lr)
        self.opt_d = torch.optim.Adam(netD.parameters(), lr=lr)

    def d_step(self, real, labels):
        z = torch.randn(real.size(0), Z_DIM)
        fake, _ = self.netG(z, labels)
        logit_real, class_real = self.netD(real)
        logit_fake, class_fake = self.netD(fake)  # expect: TCL003
        d_loss = F.softplus(-logit_real).mean() + F.softplus(logit_fake).mean() \
            + F.cross_entropy(class_real, labels) + F.cross_entropy(class_fake, labels)
        self.opt_d.zero_grad()
        d_loss.backward()
        self.opt_d.step()
        return d_loss.item()


netG = Generator()
netD = Discriminator()
trainer = GANTrainer(netG, netD)
