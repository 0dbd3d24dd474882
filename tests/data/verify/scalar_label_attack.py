"""A DeepFool-style step that reads its label as a Python number (`label.cpu().numpy().item()`) and
the image's top classes from a flat output: written for one image at a time, and saying so only by
failing on more (`can only convert an array of size 1 to a Python scalar`). Its stand-ins hold one
sample; and then `image.clone().detach()` records a clone that is thrown away (TCL005)."""

import numpy as np
import torch


def deepfool_step(model, image, label, overshoot=0.02):
    label_value = label.cpu().numpy().item()
    scores = model(image).detach().cpu().numpy().flatten()
    order = np.argsort(scores)[::-1]
    start = image.clone().detach() * (1 + overshoot)  # expect: TCL005
    return start, int(order[0]) == label_value
