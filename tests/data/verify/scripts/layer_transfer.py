"""A classifier head copied row by row from a wider one, inside a builder that takes only defaults: the
builder's call `transfer(model.head)` makes its value from the network the builder builds, which the
experiment cannot make alone; the builder itself runs, and so does the copy into a leaf's rows."""

from torch import nn

ROWS = {0: 37, 1: 12, 2: 25, 3: 3}


class Classifier(nn.Module):
    def __init__(self, classes=40):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 16), nn.ReLU())
        self.head = nn.Linear(16, classes)

    def forward(self, x):
        return self.head(self.body(x))


def transfer(source):
    head = nn.Linear(source.weight.size(1), len(ROWS))
    for row, picked in ROWS.items():
        head.weight[row].copy_(source.weight[picked])  # expect: TCL004
    return head


def small_classifier(pretrained=False, **kwargs):
    model = Classifier(**kwargs)
    model.head = transfer(model.head)
    return model
