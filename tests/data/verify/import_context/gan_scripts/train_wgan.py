"""A script taking its helpers by `from utils import *`, with an optional logger import that
falls back to None when the package is missing: --verify runs it as Python would."""

import torch
from torch import nn
from utils import *

try:
    import experiment_logger_not_installed as logger
except ImportError:
    logger = None


class CriticBlock(nn.Module):
    def __init__(self, planes: int = 4):
        super().__init__()
        self.conv = conv3x3(planes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x.clone()  # expect: TCL001
        out = self.conv(x)
        out += identity
        return out


def log_scores(scores: torch.Tensor) -> None:
    if logger is not None:
        logger.log(scores)
