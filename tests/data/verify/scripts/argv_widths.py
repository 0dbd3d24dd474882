"""A homework script run as `python argv_widths.py 256 0.01 run1`: the hidden width, the learning rate
and a run name come from its positional command-line arguments, which --verify is not given."""
import sys

import torch
import torch.nn as nn

if len(sys.argv) < 4:
    print("usage: argv_widths.py HIDDEN LR NAME")
    sys.exit(1)
hidden = int(sys.argv[1])
learning_rate = float(sys.argv[2])
log_name = "runs/" + sys.argv[3]

net = nn.Sequential(nn.Linear(784, hidden), nn.ReLU(), nn.Linear(hidden, 10))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(net.parameters(), lr=learning_rate)

running = 0
for step in range(100):
    images, labels = torch.rand(32, 784), torch.randint(0, 10, (32,))
    optimizer.zero_grad()
    loss = criterion(net(images), labels)
    loss.backward()
    optimizer.step()
    running += loss
print(log_name, running / 100)
