"""A 1-D GAN over windows of a sensor's readings, written as a script: the dataset reads text files
that are not here, and its `__getitem__` rebinds `data` several times before it returns a dict of
two sequences. The networks are 1-D convolutions that add the channel themselves (`x.unsqueeze(1)`),
so stand-in images do not fit and the length must pass four halvings."""
import glob

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

window_length = 64
known_part = 32


class SensorWindows(Dataset):
    def __init__(self, folder="readings"):
        self.windows = []
        for path in glob.glob(folder + "/*.txt"):
            values = [float(v) for v in open(path).read().split(",")]
            self.windows += [values[i:i + window_length] for i in range(len(values) - window_length)]

    def __getitem__(self, index):
        data = self.windows[index]
        data = np.asarray(data) + np.random.randn(window_length) * 0.01
        masked = data.copy()
        masked[known_part:] = 0.0
        data = {"index": index, "data": torch.tensor(data, dtype=torch.float32),
                "masked_data": torch.tensor(masked, dtype=torch.float32)}
        return data

    def __len__(self):
        return len(self.windows)


class Completer(nn.Module):
    def __init__(self):
        super().__init__()
        self.encode = nn.Sequential(nn.Conv1d(1, 8, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv1d(8, 16, 4, 2, 1))
        self.decode = nn.Sequential(nn.ConvTranspose1d(16, 8, 4, 2, 1), nn.ReLU(), nn.ConvTranspose1d(8, 1, 4, 2, 1))

    def forward(self, x):
        return self.decode(self.encode(x.unsqueeze(1))).squeeze(1)


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv1d(1, 8, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv1d(8, 16, 4, 2, 1),
                                  nn.LeakyReLU(0.2), nn.Conv1d(16, 16, 4, 2, 1), nn.LeakyReLU(0.2),
                                  nn.Conv1d(16, 1, 8))

    def forward(self, x):
        return self.body(x)


completer, critic = Completer(), Critic()
optimizer_c = torch.optim.Adam(completer.parameters(), lr=1e-4)
optimizer_d = torch.optim.Adam(critic.parameters(), lr=1e-4)
loader = DataLoader(SensorWindows(), batch_size=128, shuffle=True)

for epoch in range(100):
    for batch in loader:
        real = batch["data"]
        completed = completer(batch["masked_data"])
        optimizer_d.zero_grad()
        d_loss = critic(completed.unsqueeze(1)).mean() - critic(real.unsqueeze(1)).mean()
        d_loss.backward()
        optimizer_d.step()
        optimizer_c.zero_grad()
        c_loss = -critic(completed.unsqueeze(1)).mean()
        c_loss.backward()
        optimizer_c.step()
