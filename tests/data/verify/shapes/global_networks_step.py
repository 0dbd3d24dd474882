import torch
from torch import nn

# Networks of the script's top level, one plain and two held in a dict, read by a step function whose
# only argument is the loader: its batches must be shaped for the discriminator (4 features, not the
# usual stand-in width).
G = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
D = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
opt_g = torch.optim.Adam(G.parameters())
opt_d = torch.optim.Adam(D.parameters())
nets = {"G": nn.Linear(8, 3), "D": nn.Linear(3, 1)}
optims = {name: torch.optim.SGD(net.parameters(), lr=0.01) for name, net in nets.items()}


def train(loader):
    for real in loader:
        fake = G(torch.randn(real.size(0), 8))
        d_loss = D(fake).mean() - D(real).mean()  # expect: TCL003
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        g_loss = -D(fake).mean()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()


def train_held(loader):
    for i, (real, _) in enumerate(loader):
        fake = nets["G"](torch.randn(real.size(0), 8))
        d_loss = nets["D"](fake).mean() - nets["D"](real).mean()  # expect: TCL003
        optims["D"].zero_grad()
        d_loss.backward()
        optims["D"].step()
