"""A script that reads its photographs one by one from a folder of the author's machine with OpenCV."""

import os

import cv2
import numpy as np
import torch
import torch.nn as nn

folder = "Dataset/img_align_celeba"
photos = []
for name in os.listdir(folder):
    image = cv2.cvtColor(cv2.imread(os.path.join(folder, name)), cv2.COLOR_BGR2RGB)
    photos.append(cv2.resize(image, (32, 32)))
real = torch.tensor(np.array(photos), dtype=torch.float).permute(0, 3, 1, 2) / 255

G = nn.Sequential(nn.Linear(8, 3 * 32 * 32), nn.Tanh())
D = nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, 1))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)
for epoch in range(100):
    fake = G(torch.randn(len(real), 8)).view(-1, 3, 32, 32)
    d_loss = D(fake).mean() - D(real).mean()  # expect: TCL003
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
