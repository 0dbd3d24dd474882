"""A script of a folder of scripts: `import utils` finds the sibling because the script's
folder is on sys.path, as `python train_gan.py` puts it there."""

import torch
import utils
from torch import nn


class SkipBlock(nn.Module):
    def __init__(self, planes: int = 4):
        super().__init__()
        self.conv = utils.conv3x3(planes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x.clone()  # expect: TCL001
        out = self.conv(x)
        out += identity
        return out


raise SystemExit("the script's top level must not run under --verify")
