# A training function under a timing decorator written without functools.wraps: its wrapper takes
# `*args, **kwargs`, and the experiment must give it what the function itself takes (the top-level
# call's values).
import time

import torch
from torch import nn


def epoch_time(f):
    def timed(*args, **kwargs):
        started = time.time()
        result = f(*args, **kwargs)
        print(f"epoch time: {time.time() - started:.1f} s")
        return result
    return timed


@epoch_time
def train_one_epoch(model, optimizer, batches, device):
    running = 0
    for x, y in batches:
        loss = nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running += loss
    return running


model = nn.Linear(8, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
batches = [(torch.randn(4, 8), torch.randint(0, 3, (4,))) for _ in range(5)]
for epoch in range(3):
    train_one_epoch(model, optimizer, batches, "cpu")
