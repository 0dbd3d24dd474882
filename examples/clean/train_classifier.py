"""A small image classifier trained the way torchcopylint expects: nothing to report.

Residual blocks whose in-place ReLUs only touch fresh tensors, an EMA copy of
the weights updated under no-grad, gradient clipping, running metrics taken
with `.item()`, and predictions collected detached.

Run `python examples/clean/train_classifier.py`: one short epoch on random data.
"""

from __future__ import annotations

import copy

import torch
import torch.nn.functional as F
from torch import nn


class BasicBlock(nn.Module):
    def __init__(self, inplanes: int, planes: int, stride: int = 1):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Identity()
        if stride != 1 or inplanes != planes:
            self.shortcut = nn.Sequential(
                nn.Conv2d(inplanes, planes, 1, stride, bias=False),
                nn.BatchNorm2d(planes),
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = self.shortcut(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += identity
        return self.relu(out)


class TinyResNet(nn.Module):
    def __init__(self, num_classes: int = 10, width: int = 8):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, width, 3, 1, 1, bias=False),
            nn.BatchNorm2d(width),
            nn.ReLU(inplace=True),
        )
        self.layer1 = BasicBlock(width, width)
        self.layer2 = BasicBlock(width, width * 2, stride=2)
        self.head = nn.Linear(width * 2, num_classes)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        features = self.layer2(self.layer1(self.stem(images)))
        return self.head(features.mean(dim=(2, 3)))


class ModelEma:
    """An exponential moving average of a model's weights."""

    def __init__(self, model: nn.Module, decay: float = 0.99):
        self.decay = decay
        self.module = copy.deepcopy(model).eval()
        for parameter in self.module.parameters():
            parameter.requires_grad_(False)

    @torch.no_grad()
    def update(self, model: nn.Module) -> None:
        for ema_value, value in zip(self.module.state_dict().values(), model.state_dict().values()):
            if ema_value.dtype.is_floating_point:
                ema_value.mul_(self.decay).add_(value, alpha=1.0 - self.decay)
            else:
                ema_value.copy_(value)


def synthetic_batches(count: int, batch_size: int = 8, num_classes: int = 10):
    generator = torch.Generator().manual_seed(0)
    for _ in range(count):
        images = torch.randn(batch_size, 3, 16, 16, generator=generator)
        labels = torch.randint(0, num_classes, (batch_size,), generator=generator)
        yield images, labels


def train_one_epoch(model: nn.Module, ema: ModelEma, optimizer, batches) -> dict:
    model.train()
    running_loss = 0.0
    correct = 0
    seen = 0
    for images, labels in batches:
        optimizer.zero_grad(set_to_none=True)
        logits = model(images)
        loss = F.cross_entropy(logits, labels)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        ema.update(model)

        running_loss += loss.item() * images.shape[0]
        correct += (logits.argmax(dim=1) == labels).sum().item()
        seen += images.shape[0]
    return {"loss": running_loss / seen, "accuracy": correct / seen}


@torch.no_grad()
def predict(model: nn.Module, batches) -> torch.Tensor:
    model.eval()
    predictions = []
    for images, _ in batches:
        predictions.append(model(images).softmax(dim=1))
    return torch.cat(predictions)


def main() -> None:
    torch.manual_seed(0)
    model = TinyResNet()
    ema = ModelEma(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    metrics = train_one_epoch(model, ema, optimizer, synthetic_batches(3))
    probabilities = predict(ema.module, synthetic_batches(2))
    print(f"loss {metrics['loss']:.4f} accuracy {metrics['accuracy']:.3f} predictions {tuple(probabilities.shape)}")


if __name__ == "__main__":
    main()
