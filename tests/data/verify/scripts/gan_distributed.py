"""A GAN trainer written to be launched on several processes (`torchrun`): it starts a process group,
wraps its networks in DistributedDataParallel and averages its losses with `dist.all_reduce`.

`D(fake)` is not detached before the discriminator's backward (TCL003), and the averaged loss is summed
as a tensor over the epochs (TCL007). --verify runs it in one process, as a group of one.
"""

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


def train(epochs=10, local_rank=0):
    dist.init_process_group(backend="nccl")
    G = DDP(nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 16)), device_ids=[local_rank])
    D = DDP(nn.Sequential(nn.Linear(16, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1), nn.Sigmoid()),
            device_ids=[local_rank])
    bce = nn.BCELoss()
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-4)
    d_total = 0
    for epoch in range(epochs):
        real = torch.randn(4, 16)
        fake = G(torch.randn(4, 8))
        d_loss = bce(D(real), torch.ones(4, 1)) + bce(D(fake), torch.zeros(4, 1))
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        dist.all_reduce(d_loss)
        d_total += d_loss / dist.get_world_size()
        g_loss = bce(D(G(torch.randn(4, 8))), torch.ones(4, 1))
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
    if dist.get_rank() == 0:
        print(d_total / epochs)


if __name__ == "__main__":
    train()
