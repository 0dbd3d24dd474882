"""A defence's distances of images it is handed flat (TCL001): `ims.view(-1, 784)` reads each sample as
784 values, which a made-up (4, 8) tensor does not hold; samples of 784 values do."""
import torch


def distances_to_origin(ims, copies=2):
    flat = ims.view(-1, 784) * 2 - 1
    return flat.clone().repeat(copies, 1).norm(dim=1)  # expect: TCL001
