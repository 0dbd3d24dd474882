"""Its sibling helper module imports packages that are not installed: code that never uses them is
verified; code that does is not, and the verdict names what it used."""

import heavy_utils
import torch
from torch import nn


class EncoderBlock(nn.Module):
    def __init__(self, planes: int = 4):
        super().__init__()
        self.conv = heavy_utils.conv3x3(planes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x.clone()  # expect: TCL001
        out = self.conv(x)
        out += identity
        return out


class LoggingBlock(EncoderBlock):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x.clone()  # expect: TCL001
        out = self.conv(x)
        heavy_utils.save_grid(out)
        out += identity
        return out
