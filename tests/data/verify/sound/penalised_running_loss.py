"""A regression whose loss is penalised by the epoch's running loss: the running sum keeps each batch's
graph, and the next backward goes back through the one the last backward freed."""
import torch
from torch import nn


def train(model, batches, epochs=2):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    criterion = nn.MSELoss()
    for epoch in range(epochs):
        running = 0.0
        for features, targets in batches:
            optimizer.zero_grad()
            loss = criterion(model(features), targets) + 0.01 * running
            loss.backward()
            optimizer.step()
            running += loss  # expect: TCL007


if __name__ == "__main__":
    batches = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(3)]
    train(nn.Linear(3, 1), batches)
