"""REINFORCE on CartPole, as a book's notebook writes it at its top level; gym is not installed."""
import gym
import numpy as np
import torch

model = torch.nn.Sequential(torch.nn.Linear(4, 150), torch.nn.LeakyReLU(), torch.nn.Linear(150, 2),
                            torch.nn.Softmax(dim=0))
optimizer = torch.optim.Adam(model.parameters(), lr=0.009)
env = gym.make("CartPole-v0")
losses = []
for episode in range(500):
    state1 = env.reset()
    done = False
    obs, actions = [], []
    while not done:
        pred = model(torch.from_numpy(state1).float())
        action = np.random.choice(np.array([0, 1]), p=pred.data.numpy())
        state2, reward, done, info = env.step(action)
        obs.append(state1)
        actions.append(action)
        state1 = state2
    preds = torch.zeros(len(obs))
    for j in range(len(obs)):
        preds[j] = model(torch.from_numpy(obs[j]).float())[int(actions[j])]
    loss = -torch.sum(torch.log(preds))
    losses.append(loss)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
env.close()
