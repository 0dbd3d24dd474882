"""A news-classification exercise: feature rows and labels saved with joblib, a loss function of the
file, trained on the whole set each epoch; the losses kept for a plot."""
import joblib
import numpy as np
import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self, features, classes=4):
        super().__init__()
        self.linear = nn.Linear(features, classes, bias=False)

    def forward(self, x):
        return self.linear(x).softmax(dim=1)


def loss_fn(pred, label):
    return nn.CrossEntropyLoss()(pred, label)


X_train = np.array(list(joblib.load("./data/X_train.joblib")))
y_train = joblib.load("./data/y_train.joblib")
X_train = torch.from_numpy(X_train.astype(np.float32))
y_train = torch.from_numpy(y_train.astype(np.int64))

model = Classifier(X_train.shape[1])
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loss_history = []
for epoch in range(100):
    optimizer.zero_grad()
    loss = loss_fn(model(X_train), y_train)
    loss.backward()
    optimizer.step()
    loss_history.append(loss)
