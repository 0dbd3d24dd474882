"""Nothing in the file calls `copy_of`: whether its argument requires grad is an assumption."""

import torch


def copy_of(t):
    return t.clone().detach()  # expect: TCL005
