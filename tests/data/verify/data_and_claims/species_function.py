"""A course script: a table read with pandas, its text labels encoded, the rows split and scaled with
scikit-learn at the top level, and a training function the script calls with the loader. `tr_loss +=
loss` in the function keeps every iteration's graph (TCL007). Where scikit-learn is missing, the
verifier's own split, scaler and label encoder stand in (they run on the stand-in table)."""

import pandas as pd
import torch
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import LabelEncoder, MinMaxScaler
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def train(dataloader, model, loss_fn, optimizer):
    tr_loss = 0
    for X, y in dataloader:
        loss = loss_fn(model(X), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        tr_loss += loss  # expect: TCL007
    return tr_loss.item() / len(dataloader)


target = "species"
data = pd.read_csv("iris.csv")
x = data.drop(target, axis=1)
y = LabelEncoder().fit_transform(data.loc[:, target])
x_train, x_val, y_train, y_val = train_test_split(x, y, test_size=0.2, random_state=20)
scaler = MinMaxScaler()
x_train = scaler.fit_transform(x_train)
train_set = TensorDataset(torch.tensor(x_train, dtype=torch.float32), torch.tensor(y_train, dtype=torch.long))
train_loader = DataLoader(train_set, batch_size=8, shuffle=True)
model = nn.Sequential(nn.Linear(x_train.shape[1], 8), nn.ReLU(), nn.Linear(8, 3))
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(50):
    print(train(train_loader, model, nn.CrossEntropyLoss(), optimizer))
