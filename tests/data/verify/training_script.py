"""A training script: importing it would start training. --verify must run none of its top level.

Every top-level statement below leaves a marker file next to this one before it
does anything else, so a test can tell whether it ran.
"""

import pathlib
import time

import torch
from torch import nn

MARKER_NAME = "training_started"


class CloningBlock(nn.Module):
    def __init__(self, planes: int = 4):
        super().__init__()
        self.conv = nn.Conv2d(planes, planes, kernel_size=3, padding=1, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x.clone()
        out = self.conv(x)
        out += identity
        return out


def mark(what: str) -> None:
    with open(pathlib.Path(__file__).with_name(MARKER_NAME), "a", encoding="utf-8") as handle:
        handle.write(what + "\n")


mark("top level")
model = CloningBlock(4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
total_loss = 0.0
for step in range(3):
    optimizer.zero_grad()
    loss = model(torch.randn(2, 4, 8, 8)).square().mean()
    loss.backward()
    optimizer.step()
    total_loss += loss
time.sleep(30)
raise SystemExit("training must not start under --verify")

if __name__ == "__main__":
    mark("__main__")
