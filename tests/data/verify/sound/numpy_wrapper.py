import torch


def to_numpy(t):
    return t.cpu().numpy()  # expect: TCL009


def class_scores(model, batch):
    return to_numpy(model(batch).softmax(-1))
