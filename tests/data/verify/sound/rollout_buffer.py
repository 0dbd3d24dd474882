"""A rollout buffer (A3C's): each step's value is appended, and every few steps the buffer is popped
back into the loss and backpropagated. TCL007 stays silent; a finding made by hand on the append must
not be confirmed: the buffer grows between backwards, and the loss built from it takes it apart."""
import torch
from torch import nn

critic = nn.Linear(4, 1)
optimizer = torch.optim.SGD(critic.parameters(), lr=0.01)


def run(steps=40, every=5):
    values = []
    pending = 0
    for step in range(steps):
        value = critic(torch.randn(4))
        values.append(value)
        pending += 1
        if pending >= every:
            loss = 0
            for _ in range(pending):
                loss += values.pop().pow(2).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            pending = 0


run()
