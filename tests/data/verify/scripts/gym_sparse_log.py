"""A Q-learning script written for gym 0.26 and later (`state, _ = env.reset()`, five values from
`step`), which keeps the loss of every 10th episode for a plot, graph and all (TCL007). Stand-in
environments take the API the code unpacks, and the episode loop runs until the line has run twice."""

import gym
import torch
import torch.nn as nn

env = gym.make("CartPole-v1")
q = nn.Linear(4, 2)
optimizer = torch.optim.SGD(q.parameters(), lr=0.01)
losses = []
for episode in range(500):
    state, _ = env.reset()
    done = False
    while not done:
        values = q(torch.as_tensor(state, dtype=torch.float32))
        action = int(values.argmax())
        state, reward, terminated, truncated, _ = env.step(action)
        done = terminated or truncated
        target = reward + 0.99 * q(torch.as_tensor(state, dtype=torch.float32)).max().detach()
        loss = (values[action] - target) ** 2
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    if episode % 10 == 0:
        losses.append(loss)
