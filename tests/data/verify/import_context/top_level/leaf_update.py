"""A script whose top level has a bug and a training loop: --verify runs the bug's slice only.

The training loop writes a marker file next to this one and needs a package that is
not installed; the flagged statement depends on neither, so neither may run.
"""

import pathlib

import experiment_tracker_not_installed
import torch
from torch import nn

MARKER = pathlib.Path(__file__).with_name("training_ran")
bias = torch.zeros(4, requires_grad=True)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

for epoch in range(3):
    MARKER.write_text(f"epoch {epoch}\n")
    loss = model(torch.randn(8, 4)).square().mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    experiment_tracker_not_installed.log(loss=loss.item())

bias.add_(1.0)  # expect: TCL004
MARKER.write_text("after the flagged line\n")
