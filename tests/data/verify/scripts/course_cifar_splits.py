"""A course's MLP trainer on CIFAR-10 through the course's own reader (course_cifar10_utils.py), whose
splits hand out batches by `next_batch`; every evaluation keeps its test loss, graph and all (fresh63's
UvA practicals, TCL007). --verify reads none of the pickled batches: the splits stand in."""

import numpy as np
import torch
import torch.nn as nn

import course_cifar10_utils

BATCH_SIZE, MAX_STEPS, EVAL_FREQ = 200, 1500, 100


def train():
    cifar10 = course_cifar10_utils.get_cifar10("cifar10/cifar-10-batches-py")
    x_test = torch.from_numpy(cifar10["test"].images.reshape(10000, -1))
    y_test = torch.from_numpy(np.argmax(cifar10["test"].labels, axis=1))
    network = nn.Sequential(nn.Linear(3 * 32 * 32, 100), nn.ReLU(), nn.Linear(100, 10))
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(network.parameters(), 2e-3)
    losses_test = []
    for step in range(MAX_STEPS):
        x, y = cifar10["train"].next_batch(BATCH_SIZE)
        loss = criterion(network(torch.from_numpy(x.reshape(BATCH_SIZE, -1))), torch.from_numpy(np.argmax(y, axis=1)))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % EVAL_FREQ == EVAL_FREQ - 1:
            loss_test = criterion(network(x_test), y_test)
            losses_test.append(loss_test)


if __name__ == "__main__":
    train()
