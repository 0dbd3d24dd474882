"""`clone().detach()` of arguments no caller in the file shows (TCL005): what the made-up value is
decides the verdict, so its kind follows the code's own use and the evidence says it. (A labels
parameter that is only copied, moved or compared is not reported at all: likely class indices.)"""

import torch


def keep_labels(labels):
    print(torch.unique(labels))  # handed to torch: the rule cannot tell they are only class indices
    return labels.clone().detach()  # expect: TCL005


def first(labels):
    print(torch.unique(labels))
    return labels[0].clone().detach()  # expect: TCL005


def shift(y):
    return (y.clone().detach() - y.mean()) * 0.5  # expect: TCL005


def copy_of(t):
    return t.clone().detach()  # expect: TCL005
