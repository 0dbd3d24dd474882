"""The same evaluation with no call in sight: the experiment's loader makes the batch, and the
verdict says that its tensors were made up."""

import torch


def evaluate(model, val_loader):
    scores = []
    for data in val_loader:
        boxes = torch.tensor(data["gt_boxes"])  # expect: TCL008
        scores.append(model(data["image"]).sum() + boxes.sum())
    return scores
