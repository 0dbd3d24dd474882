"""A style-transfer notebook's helper, shown what a missing torchvision's transforms make: a no-op
stands in for the image, which says nothing of what the real `transforms` would give."""

import torch
from torchvision import transforms

prepare = transforms.Compose([transforms.Resize(64), transforms.ToTensor()])


def im_convert(tensor):
    return tensor.to("cpu").clone().detach()  # expect: TCL005


target = prepare("photo").requires_grad_(True)
shown = im_convert(target)
