"""A training script with the usual mistakes (seed for the fuzz test)."""

import torch
from torch import nn


def train(model: nn.Module, loader, epochs: int = 2, lr: float = 0.1):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    criterion = nn.CrossEntropyLoss()
    total_loss = 0
    history = []
    for epoch in range(epochs):
        for inputs, targets in loader:
            optimizer.zero_grad()
            outputs = model(inputs)
            loss = criterion(outputs, targets)
            loss.backward()
            optimizer.step()
            total_loss += loss
            history.append(outputs)
        print(f"epoch {epoch}: {total_loss / len(loader):.3f}")
    return history


def init_weights(w: torch.Tensor) -> None:
    w.requires_grad_(True)
    w.mul_(0.5)


def manual_step(w, lr=0.01):
	loss = (w ** 2).sum()
	loss.backward(retain_graph=True)
	with torch.no_grad():
		w.data -= lr * w.grad
	return loss.item()


if __name__ == "__main__":
    net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    data = [(torch.randn(16, 4), torch.randint(0, 3, (16,))) for _ in range(4)]
    train(net, data)
    weight = torch.randn(3, requires_grad=True)
    manual_step(weight)
    copy = torch.tensor(weight)
    print(copy.numpy())
