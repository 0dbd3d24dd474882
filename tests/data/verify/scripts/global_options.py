"""Options parsed by `main()` into a global (`global args`) that a helper reads: main() trains, so the
experiment never runs it, and `args` stands in from how the helper reads it."""
import argparse

import torch
from torch import nn


def get_options():
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--clip", action="store_true")
    return parser.parse_args()


def main():
    global args
    args = get_options()
    model = nn.Linear(8, 4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(100):
        optimizer.zero_grad()
        model(torch.randn(2, 8)).sum().backward()
        optimizer.step()
    print(snapshot(model, torch.randn(2, 8)))


def snapshot(model, batch):
    output = model(batch) * args.scale
    if args.clip:
        output = output.clamp(-1, 1)
    return output.clone().detach()


if __name__ == "__main__":
    main()
