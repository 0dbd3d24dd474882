"""A single-layer classifier over sentence vectors saved as text: the whole training set each step,
the layer called through `forward` spelled out, the losses kept to plot later."""
import numpy as np
import torch

features = np.loadtxt("./vectors/train_x.txt", delimiter=" ")
labels = np.loadtxt("./vectors/train_y.txt")
features = torch.tensor(features, dtype=torch.float32)
labels = torch.tensor(labels, dtype=torch.int64)

layer = torch.nn.Linear(300, 4, bias=False)
criterion = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)

history = []
for step in range(200):
    optimizer.zero_grad()
    probabilities = torch.softmax(layer.forward(features), dim=1)
    loss = criterion(probabilities, labels)
    loss.backward()
    optimizer.step()
    history.append(loss)

torch.save(layer.state_dict(), "layer.pt")
