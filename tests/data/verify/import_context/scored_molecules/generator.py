"""A block of a project whose every module imports the scores module with `*`: importing it reads
the user's data at its top level. The experiment stands in for those reads and runs the block
(fresh74's four MolGAN copies: before, 'the code opened data/NP_score.pkl.gz')."""

from torch import nn

from scores import *


class EdgeHead(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        self.linear = nn.Linear(width, width)

    def forward(self, x):
        kept = x.clone()  # expect: TCL001
        return reward(self.linear(kept))
