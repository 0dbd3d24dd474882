import torch
from torch import nn


def to_numpy(t):
    return t.cpu().numpy()  # expect: TCL009


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        return self.head(x).softmax(-1)


def class_scores(batch):
    model = Scorer()
    return to_numpy(model(batch))
