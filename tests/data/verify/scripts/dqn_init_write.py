"""A DQN tutorial's network initialises a weight in place in `__init__`, without `.data`: building it
raises the leaf error (TCL004), so no instance of it ever exists to run anything else on."""
import torch.nn.functional as F
from torch import nn


class Net(nn.Module):
    def __init__(self, states=4, actions=2):
        super().__init__()
        self.fc1 = nn.Linear(states, 50)
        self.fc1.weight.data.normal_(0, 0.1)
        self.fc1.weight.fill_(0)
        self.out = nn.Linear(50, actions)

    def forward(self, x):
        return self.out(F.relu(self.fc1(x)))


net = Net()
