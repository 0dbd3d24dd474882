"""A GAN script whose main guard sits in a `try:`, with a private (DP) path by default that needs a
package missing here: the plain path the flagged step is on is taken with `--noise 0`."""
import argparse

import torch
from torch import nn

import privacy_engine_absent as privacy

try:
    if __name__ == "__main__":
        parser = argparse.ArgumentParser()
        parser.add_argument("--noise", type=float, default=0.11)
        parser.add_argument("--steps", type=int, default=3)
        args = parser.parse_args()
        G = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
        D = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
        if args.noise > 0:
            opt_d = privacy.DPAdam(D.parameters(), noise=args.noise)
        else:
            opt_g = torch.optim.Adam(G.parameters())
            opt_d = torch.optim.Adam(D.parameters())
            for step in range(args.steps):
                real = torch.randn(4, 4)
                fake = G(torch.randn(4, 8))
                d_loss = D(fake).mean() - D(real).mean()  # expect: TCL003
                opt_d.zero_grad()
                d_loss.backward()
                opt_d.step()
                g_loss = -D(fake).mean()
                opt_g.zero_grad()
                g_loss.backward()
                opt_g.step()
except KeyboardInterrupt:
    pass
