"""A Kaggle kernel's fine-tuning, on networks of model-zoo packages that are not installed where the
tests run: an EfficientNet of efficientnet_pytorch with a new `_fc`, a U-Net of
segmentation_models_pytorch trained with its Dice loss, and an SE-ResNeXt that pretrainedmodels makes
by name, with a new `last_linear`. Each training function keeps its loss tensors (TCL007)."""
import pretrainedmodels
import segmentation_models_pytorch as smp
import torch
import torch.nn as nn
from efficientnet_pytorch import EfficientNet


def fine_tune(model, steps=3):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    criterion = nn.BCEWithLogitsLoss()
    total = 0
    for step in range(steps):
        images, labels = torch.rand(4, 3, 64, 64), torch.randint(0, 2, (4, 1)).float()
        optimizer.zero_grad()
        loss = criterion(model(images), labels)
        loss.backward()
        optimizer.step()
        total += loss
    return total


def train_segmentation(model, loss_fn, steps=3):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    epoch_loss = 0
    for step in range(steps):
        images, masks = torch.rand(2, 3, 64, 64), torch.randint(0, 2, (2, 1, 64, 64)).float()
        optimizer.zero_grad()
        loss = loss_fn(model(images), masks)
        loss.backward()
        optimizer.step()
        epoch_loss = epoch_loss + loss
    return epoch_loss


def train_classifier(model, steps=3):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    history = []
    for step in range(steps):
        images, labels = torch.rand(4, 3, 64, 64), torch.randint(0, 5, (4,))
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        history.append(loss)
    return history


network = EfficientNet.from_pretrained("efficientnet-b2")
network._fc = nn.Linear(network._fc.in_features, 1)
fine_tune(network)

unet = smp.Unet("resnet34", encoder_weights="imagenet", classes=1, activation=None)
train_segmentation(unet, smp.losses.DiceLoss("binary"))

classifier = pretrainedmodels.__dict__["se_resnext50_32x4d"](num_classes=1000, pretrained="imagenet")
classifier.last_linear = nn.Linear(classifier.last_linear.in_features, 5)
train_classifier(classifier)
