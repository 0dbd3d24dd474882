"""A training step given the script's parsed options from another file (`train_step(model, x, y,
args)`): `args` itself says nothing, its attributes do (a learning rate, an iteration count, a mode
compared with strings). The losses are kept with their graphs (TCL007)."""

import torch
import torch.nn.functional as F


def train_step(model, images, labels, args):
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    history = []
    for _ in range(args.inner_steps):
        if args.loss == "ce":
            loss = F.cross_entropy(model(images), labels)
        else:
            loss = model(images).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history.append(loss)  # expect: TCL007
    return history
