"""A classifier on blobs: scikit-learn makes, scales and splits the data, a TensorDataset and a
DataLoader over it (in memory: they run as written, on the stand-in arrays). `total += loss` keeps
every iteration's graph (TCL007)."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from sklearn import datasets
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

X, y = datasets.make_blobs(n_samples=300, n_features=5, centers=4, random_state=0)
X = StandardScaler().fit_transform(X)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0)
train = TensorDataset(torch.from_numpy(X_train).float(), torch.from_numpy(y_train).long())
loader = DataLoader(train, batch_size=32, shuffle=True)
model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

for epoch in range(20):
    total = 0
    for xb, yb in loader:
        loss = nn.functional.cross_entropy(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss  # expect: TCL007
    print(epoch, total)
