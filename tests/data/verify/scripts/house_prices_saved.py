"""A house-prices regression that trains only where no saved network is there, Kaggle's tutorial way.

The repository holds the network an earlier run saved (`house_prices_saved.pth`), so a run as
written loads it and never trains. The training branch keeps every batch's graph in
`running_loss` (TCL007): --verify runs the branch that holds the line. The table stands in for
the user's CSV with the features between the two columns the code reads by label, and as many
as `HouseNet(22, 1)` reads.
"""

import os

import numpy as np
import pandas as pd
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

MODEL_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "house_prices_saved.pth")
train = pd.read_csv("data/train.csv")
features = train.loc[:, "MSSubClass":"SaleCondition"]
features = (features - features.mean()) / features.std()
labels = train.SalePrice.values.reshape(-1, 1).astype(np.float32)
loader = DataLoader(TensorDataset(torch.from_numpy(features.values.astype(np.float32)), torch.from_numpy(labels)),
                    batch_size=16, shuffle=True)


class HouseNet(nn.Module):
    def __init__(self, input_num, output_num):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(input_num, 32), nn.ReLU(), nn.Linear(32, output_num))

    def forward(self, x):
        return self.layers(x)


net = HouseNet(22, 1)
optimizer = torch.optim.Adam(net.parameters(), lr=0.01)
mse_loss = nn.MSELoss()

if not os.path.exists(MODEL_PATH):
    for epoch in range(100):
        running_loss = 0
        for data, label in loader:
            loss = mse_loss(net(data), label)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running_loss += loss
        print(f"epoch {epoch}: {running_loss / len(loader)}")
    torch.save(net.state_dict(), MODEL_PATH)
else:
    net.load_state_dict(torch.load(MODEL_PATH))
