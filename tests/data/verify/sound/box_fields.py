"""fresh79's object-localisation homework: the evaluation reads boxes of each batch of `val_loader`,
which `main` builds over a dataset that yields the boxes as lists (the default collate keeps a list
a list). A made-up loader's batch holds tensors there, and views of them: that shows nothing of this
code."""

import torch


def evaluate(model, val_loader):
    scores = []
    for data in val_loader:
        boxes = torch.tensor(data["gt_boxes"].squeeze(0))  # expect: TCL008
        scores.append(model(data["image"]).sum() + boxes.sum())
    return scores


def main(dataset):
    val_loader = torch.utils.data.DataLoader(dataset, batch_size=1)
    return evaluate(torch.nn.Linear(8, 1), val_loader)
