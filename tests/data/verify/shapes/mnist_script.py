"""An MNIST script as tutorials write it: options from argparse (some required), the network,
optimizer and loader built at the top level, and `train(...)` called from the epoch loop with them.
The function reshapes its batches to 1x28x28 images and asks the network for `conv1`: made-up
stand-ins fit neither, what the top-level call passes does."""

import argparse
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torchvision import datasets, transforms

parser = argparse.ArgumentParser(description="MNIST")
parser.add_argument("--data-root", required=True, help="where MNIST is")
parser.add_argument("--lr", type=float, required=True)
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--epochs", type=int, required=True)
parser.add_argument("--optimizer", choices=["sgd", "adam"], required=True)
parser.add_argument("--no-cuda", action="store_true", default=False)
args = parser.parse_args()
use_cuda = not args.no_cuda and torch.cuda.is_available()
device = torch.device("cuda" if use_cuda else "cpu")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 2)
        self.fc = nn.Linear(8 * 13 * 13, 10)

    def forward(self, x):
        return F.log_softmax(self.fc(torch.flatten(F.relu(self.conv1(x)), 1)), dim=1)


def train(model, device, train_loader, optimizer, epoch):
    model.train()
    train_loss = 0
    first_filter = model.conv1.weight[0]
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.view(-1, 1, 28, 28).to(device), target.to(device)
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
        train_loss += loss  # expect: TCL007
    return train_loss / len(train_loader), first_filter


model = Net().to(device)
if args.optimizer == "sgd":
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
else:
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
train_loader = torch.utils.data.DataLoader(
    datasets.MNIST(args.data_root, train=True, download=True, transform=transforms.ToTensor()),
    batch_size=args.batch_size, shuffle=True)

for epoch in range(1, args.epochs + 1):
    train(model, device, train_loader, optimizer, epoch)
    if os.environ.get("TCL_TEST_MARKERS"):
        open(os.path.join(os.environ["TCL_TEST_MARKERS"], f"mnist-epoch-{epoch}"), "w").close()
