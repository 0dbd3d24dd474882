"""Adversarial training in apex's mixed precision (apex is not installed here), on data a helper of
the script loads from a folder of images of a size nothing says; the network reads CIFAR-sized images (its linear layer takes 32x8x8 features), and
a confidence metric one-hot encodes the labels without saying how many classes there are."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from apex import amp
from torchvision import datasets, transforms


def get_loaders(folder, batch_size):
    train = datasets.ImageFolder(folder, transform=transforms.ToTensor())
    return torch.utils.data.DataLoader(train, batch_size=batch_size, shuffle=True)


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 8 * 8, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


def main():
    loader = get_loaders("./data", 128)
    model = SmallNet()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model, opt = amp.initialize(model, opt, opt_level="O1")
    metric = {"confidence": 0.0}
    for x, y in loader:
        delta = torch.zeros_like(x).uniform_(-0.03, 0.03).requires_grad_(True)
        loss = F.cross_entropy(model(x + delta), y)
        with amp.scale_loss(loss, opt) as scaled_loss:
            scaled_loss.backward()
        x_adv = (x + 0.03 * delta.grad.sign()).clamp(0, 1)
        output = model(x_adv)
        loss = F.cross_entropy(output, y)
        opt.zero_grad()
        with amp.scale_loss(loss, opt) as scaled_loss:
            scaled_loss.backward()
        opt.step()
        confidence = (F.one_hot(y) * F.softmax(output, dim=-1)).sum(-1).mean()
        metric["confidence"] += confidence * y.size(0)  # expect: TCL007
    return metric


if __name__ == "__main__":
    main()
