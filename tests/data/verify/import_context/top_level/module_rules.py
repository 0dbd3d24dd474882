"""Bugs written at a script's top level, each verified through its own slice."""

import torch
from torch import nn

torch.manual_seed(0)
net = nn.Linear(4, 4)
features = net(torch.randn(2, 4))
snapshot = features.clone().detach()  # expect: TCL005
labels = torch.arange(4)
targets_copy = torch.tensor(labels)  # expect: TCL008

running_loss = 0
for step in range(5):
    loss = net(torch.randn(2, 4)).square().mean()
    loss.backward()
    running_loss += loss  # expect: TCL007

scorer = nn.Linear(4, 3)
while True:  # the experiment stops the script's endless loop once the write has been seen
    probs = scorer(torch.randn(2, 4)).softmax(dim=1)
    targets = probs.detach()  # expect: TCL006
    targets[targets < 0.3] = 0.0
    kl = (targets * probs.log()).sum()

if __name__ == "__main__":
    scores = torch.randn(3, requires_grad=True)
    for epoch in range(100):
        raise SystemExit("the loop after the flagged line must not run")
    scores.zero_()  # expect: TCL004
