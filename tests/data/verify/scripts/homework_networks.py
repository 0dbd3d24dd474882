# A course's networks, scripted the older way: `@torch.jit.script_method` methods compile when an object
# of the class is built, and the generator draws its own latents on the GPU.
import torch
from torch import nn


class Generator(torch.jit.ScriptModule):
    def __init__(self):
        super().__init__()
        self.dense = nn.Linear(16, 3 * 8 * 8)
        self.layers = nn.Sequential(nn.Conv2d(3, 3, 3, padding=1), nn.Tanh())

    @torch.jit.script_method
    def forward(self, n_samples: int = 64):
        z = torch.randn(n_samples, 16).cuda()
        return self.layers(self.dense(z).view(-1, 3, 8, 8))


class Discriminator(torch.jit.ScriptModule):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.Tanh())
        self.dense = nn.Linear(8, 1)

    @torch.jit.script_method
    def forward(self, x):
        return self.dense(torch.sum(self.layers(x), dim=(2, 3)))
