"""A GAN written with raw parameter tensors: G and D are functions of top-level tensors, and
the optimizers take lists of them. The discriminator's loss reads `D(G_sample)` undetached."""

import os

import torch
import torch.nn.functional as F
from torch import optim
from torchvision import datasets, transforms

MARKERS = os.environ.get("TCL_TEST_MARKERS", os.path.dirname(os.path.abspath(__file__)))
mb_size = 16
Z_dim = 10
X_dim = 784
h_dim = 64


def xavier(size):
    return (torch.randn(*size) / (size[0] / 2.0) ** 0.5).requires_grad_()


Wzh = xavier([Z_dim, h_dim])
bzh = torch.zeros(h_dim, requires_grad=True)
Whx = xavier([h_dim, X_dim])
bhx = torch.zeros(X_dim, requires_grad=True)


def G(z):
    h = F.relu(z @ Wzh + bzh)
    return torch.sigmoid(h @ Whx + bhx)


Wxh = xavier([X_dim, h_dim])
bxh = torch.zeros(h_dim, requires_grad=True)
Why = xavier([h_dim, 1])
bhy = torch.zeros(1, requires_grad=True)


def D(X):
    h = F.relu(X @ Wxh + bxh)
    return torch.sigmoid(h @ Why + bhy)


G_params = [Wzh, bzh, Whx, bhx]
D_params = [Wxh, bxh, Why, bhy]
G_solver = optim.Adam(G_params, lr=1e-3)
D_solver = optim.Adam(D_params, lr=1e-3)


def reset_grad():
    for p in G_params + D_params:
        if p.grad is not None:
            p.grad.zero_()


data = datasets.MNIST("../MNIST_data", download=True, transform=transforms.ToTensor())
batches = torch.utils.data.DataLoader(data, batch_size=mb_size, shuffle=True)

for it, (X, _) in enumerate(batches):
    if it > 0:
        open(os.path.join(MARKERS, "second_iteration"), "w").write(f"iteration {it}\n")
        raise SystemExit("the training loop ran a second iteration")
    X = X.view(-1, X_dim)
    z = torch.randn(mb_size, Z_dim)

    G_sample = G(z)
    D_real = D(X)
    D_fake = D(G_sample)
    D_loss = -torch.mean(torch.log(D_real) + torch.log(1 - D_fake))
    D_loss.backward()
    D_solver.step()
    reset_grad()

    G_loss = -torch.mean(torch.log(D(G(z))))
    G_loss.backward()
    G_solver.step()
    reset_grad()
