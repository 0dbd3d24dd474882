"""A course notebook's regression on Boston house prices (`load_boston`, gone from scikit-learn 1.2),
trained at the top level: the predictions are converted to NumPy in grad mode (TCL009)."""

import torch
from torch import nn
from sklearn.datasets import load_boston

X, y = load_boston(return_X_y=True)
inputs = torch.tensor(X, dtype=torch.float32)
prices = torch.tensor(y, dtype=torch.float32).view(-1, 1)
model = nn.Linear(13, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
for epoch in range(10):
    predictions = model(inputs)
    loss = ((predictions - prices) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
shown = predictions.numpy()  # expect: TCL009
