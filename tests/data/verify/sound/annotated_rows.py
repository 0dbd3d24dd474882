"""A dataset whose constructor's annotation says tensors, built by the script from the rows of a CSV
file (lists of floats) that verification never reads. A tensor made up from the annotation confirms
nothing: the call in the file decides, and it could not be made."""

import csv

import torch
from torch.utils.data import Dataset


def read_rows(path):
    with open(path) as handle:
        return [[float(value) for value in row] for row in csv.reader(handle)]


features = read_rows("titanic.csv")


class Rows(Dataset):
    def __init__(self, X: torch.Tensor):
        self.X = torch.tensor(X, dtype=torch.float32)  # expect: TCL008

    def __len__(self):
        return len(self.X)

    def __getitem__(self, index):
        return self.X[index]


rows = Rows(features)
