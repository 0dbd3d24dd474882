"""A conditional WGAN over 1-D signals kept in an `.npz` archive, each with a score read from a `.npy`
file; the critic reads a signal with its score joined to it."""
import numpy as np
import torch
import torch.nn as nn

SIGNAL_LENGTH = 120
LATENT = 16

archive = np.load("data/signals.npz")
signals = archive[archive.files[0]]
scores = np.load("data/scores.npy")
train_set = torch.utils.data.TensorDataset(torch.from_numpy(signals).float(), torch.from_numpy(scores))
loader = torch.utils.data.DataLoader(train_set, batch_size=32, shuffle=True)

generator = nn.Sequential(nn.Linear(LATENT + 1, 64), nn.LeakyReLU(0.2), nn.Linear(64, SIGNAL_LENGTH))
critic = nn.Sequential(nn.Linear(SIGNAL_LENGTH + 1, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))
generator_opt = torch.optim.RMSprop(generator.parameters(), lr=5e-5)
critic_opt = torch.optim.RMSprop(critic.parameters(), lr=5e-5)

for epoch in range(500):
    for signal, score in loader:
        condition = score.float().unsqueeze(1)
        z = torch.randn(signal.size(0), LATENT)
        fake = generator(torch.cat([z, condition], 1))

        critic_opt.zero_grad()
        critic_loss = critic(torch.cat([fake, condition], 1)).mean() - critic(torch.cat([signal, condition], 1)).mean()
        critic_loss.backward()
        critic_opt.step()

        generator_opt.zero_grad()
        generator_loss = -critic(torch.cat([fake, condition], 1)).mean()
        generator_loss.backward()
        generator_opt.step()
