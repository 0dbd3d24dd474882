"""A lesson that writes one element of a NumPy view of a tensor, then reads the tensor: its first
element keeps its value, and the evidence names one that changed."""
import torch


def shared_memory_demo():
    t = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    view = t.numpy()  # expect: TCL006
    view[0, 1] = 99
    print("t:", t)
    return t * 2
