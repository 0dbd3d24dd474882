"""A replay buffer of preallocated tensors: `sample` draws indices below the count `add` keeps."""
import numpy as np
import torch


class ReplayBuffer:
    def __init__(self, obs_shape, action_dim, capacity, device="cpu"):
        self.capacity = capacity
        self.states = torch.zeros((capacity, *obs_shape), device=device)
        self.actions = torch.zeros((capacity, action_dim), device=device)
        self.rewards = torch.zeros((capacity, 1), device=device)
        self.not_dones = torch.zeros((capacity, 1), device=device)
        self.count = 0
        self.full = False

    def add(self, state, action, reward, done):
        self.states[self.count] = torch.as_tensor(state)
        self.actions[self.count] = torch.as_tensor(action)
        self.rewards[self.count] = reward
        self.not_dones[self.count] = not done
        self.count = (self.count + 1) % self.capacity
        self.full = self.full or self.count == 0

    def sample(self, batch_size):
        high = self.capacity if self.full else self.count
        indices = np.random.randint(0, high, size=batch_size)
        states = self.states[indices].clone()
        actions = self.actions[indices]
        return states, actions, self.rewards[indices], self.not_dones[indices]
