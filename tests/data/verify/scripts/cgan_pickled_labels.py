"""A conditional GAN of Python 2 days on two classes: its labels are a pickled list opened with
`with open(...)`, made class indices with `torch.LongTensor` and sliced batch by batch; they index a
one-hot table of two rows, and its layers are sized with `/` (an int in Python 2). The discriminator's
loss reads the generator's output undetached (TCL003). --verify opens no file: class indices stand in
for the pickle, as many as three of the code's batches, as few classes as the table has rows, and the
layers read their whole-number sizes as ints (fresh76's CelebA cDCGAN, a copy of znxlwm's)."""

import pickle

import torch
import torch.nn as nn

batch_size = 16
width = 64

with open("data/resized_celebA/gender_label.pkl", "rb") as fp:
    gender = pickle.load(fp)
gender = torch.LongTensor(gender).squeeze()
onehot = torch.zeros(2, 2).scatter_(1, torch.LongTensor([0, 1]).view(2, 1), 1)


class Generator(nn.Module):
    def __init__(self, d=width):
        super(Generator, self).__init__()
        self.hidden = nn.Linear(8 + 2, d / 2)
        self.out = nn.Linear(d / 2, 32)

    def forward(self, z, label):
        return torch.tanh(self.out(torch.relu(self.hidden(torch.cat([z, label], 1)))))


class Discriminator(nn.Module):
    def __init__(self, d=width):
        super(Discriminator, self).__init__()
        self.hidden = nn.Linear(32 + 2, d / 4)
        self.out = nn.Linear(d / 4, 1)

    def forward(self, x, label):
        return torch.sigmoid(self.out(torch.relu(self.hidden(torch.cat([x, label], 1)))))


G, D = Generator(), Discriminator()
bce = nn.BCELoss()
G_optimizer = torch.optim.Adam(G.parameters(), lr=2e-4)
D_optimizer = torch.optim.Adam(D.parameters(), lr=2e-4)

for epoch in range(20):
    for step in range(len(gender) // batch_size):
        y = onehot[gender[batch_size * step:batch_size * (step + 1)]]
        real = torch.rand(batch_size, 32)
        fake = G(torch.randn(batch_size, 8), y)
        D_optimizer.zero_grad()
        D_loss = bce(D(real, y), torch.ones(batch_size, 1)) + bce(D(fake, y), torch.zeros(batch_size, 1))
        D_loss.backward()
        D_optimizer.step()
        G_optimizer.zero_grad()
        G_loss = bce(D(G(torch.randn(batch_size, 8), y), y), torch.ones(batch_size, 1))
        G_loss.backward()
        G_optimizer.step()
