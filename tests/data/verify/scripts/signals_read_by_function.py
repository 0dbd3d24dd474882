"""A classifier of two-channel signals whose arrays a function of the project reads and returns as four
values, made tensors and batched by TensorDatasets (NYCU's EEG lab, with its `read_bci_data()`).
--verify reads none of them: stand-in arrays of samples and labels take their places, in their order."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from signal_files import read_signal_data


def prepare_data():
    x_train, y_train, x_test, y_test = read_signal_data()
    train_set = TensorDataset(torch.Tensor(x_train), torch.Tensor(y_train))
    test_set = TensorDataset(torch.Tensor(x_test), torch.Tensor(y_test))
    return DataLoader(train_set, batch_size=batch_size, shuffle=True), DataLoader(test_set, batch_size=batch_size)


def evaluate():
    model.eval()
    test_loss = 0
    for x_batch, y_batch in test_loader:
        output = model(x_batch)
        test_loss += loss_fn(output, y_batch.long())
    return test_loss / len(test_loader)


batch_size = 64
train_loader, test_loader = prepare_data()
model = nn.Sequential(nn.Flatten(), nn.Linear(2 * 50, 16), nn.ELU(), nn.Linear(16, 2))
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(100):
    model.train()
    for x_batch, y_batch in train_loader:
        optimizer.zero_grad()
        loss = loss_fn(model(x_batch), y_batch.long())
        loss.backward()
        optimizer.step()
    print(epoch, evaluate())
