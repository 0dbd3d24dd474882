"""An agent whose update runs its critic on a replay batch before it copies its entropy temperature:
made-up batches fit no critic of the agent's own widths, and the run stops before the copy; the
temperature is set only in `__init__`, so what the copy reads is what the constructor made."""

import math

import torch
from torch import nn


class Agent:
    def __init__(self, state_dim=11, action_dim=3, alpha=0.2):
        self.critic = nn.Sequential(nn.Linear(state_dim + action_dim, 32), nn.ReLU(), nn.Linear(32, 1))
        self.log_alpha = torch.tensor(math.log(alpha), requires_grad=True)
        self.critic_optimizer = torch.optim.Adam(self.critic.parameters(), lr=3e-4)
        self.alpha_optimizer = torch.optim.Adam([self.log_alpha], lr=3e-4)

    def update(self, states, actions, rewards):
        q = self.critic(torch.cat([states, actions], dim=1))
        critic_loss = (q - rewards).pow(2).mean()
        self.critic_optimizer.zero_grad()
        critic_loss.backward()
        self.critic_optimizer.step()
        before = self.log_alpha.clone().detach()  # expect: TCL005
        alpha_loss = -self.log_alpha * (q.detach().mean() + 1.0)
        self.alpha_optimizer.zero_grad()
        alpha_loss.backward()
        self.alpha_optimizer.step()
        return before
