"""Passengers read from a CSV file the repository ships, a classifier trained on them (TCL007).

--verify never reads the file: it stands in a table with the columns the code reads (`sex` holding
the strings the code maps to numbers) and as many feature columns as the first layer takes, once the
label is dropped and `sex` kept."""

import pandas as pd
import torch
from torch import nn

frame = pd.read_csv("passengers.csv")
frame["sex"] = frame["sex"].map({"male": 0, "female": 1})
frame = frame.dropna()
features = torch.tensor(frame.drop("survived", axis=1).values, dtype=torch.float32)
labels = torch.tensor(frame["survived"].values)

model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
history = []
for epoch in range(100):
    loss = nn.functional.cross_entropy(model(features), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    history.append(loss)  # expect: TCL007
