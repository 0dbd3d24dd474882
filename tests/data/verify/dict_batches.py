"""An epoch over a loader of dict batches (`sample["image"]`, `sample["label"]`, as datasets that
return dicts give): the stand-in batches are dicts of those keys."""

import torch.nn.functional as F


def train_epoch(model, loader, optimizer):
    total = 0.0
    for sample in loader:
        images = sample["image"]
        labels = sample["label"]
        optimizer.zero_grad()
        loss = F.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        total += loss  # expect: TCL007
    return total


def keep_features(batch):
    """One dict batch given as an argument: a dict of the keys the function reads."""
    features = batch["features"]
    kept = features.clone().detach()  # expect: TCL005
    return kept + batch["offset"]
