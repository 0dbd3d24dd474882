"""An entropy loss that copies each row of the scores it is given (TCL005: `scores.clone().detach()`).

Whether the copy records a node depends on the scores the callers pass (a policy network's output,
in a training step, requires grad); none in this file shows them. The rows of made-up scores made
without grad show nothing about that: never a refutation.
"""

import torch
from torch import nn


class ActionEntropyLoss(nn.Module):
    def __init__(self, n_actions):
        super().__init__()
        self.max_entropy = torch.log(torch.tensor(float(n_actions)))

    def forward(self, batch, action_scores):
        if isinstance(action_scores, tuple):
            action_scores, _ = action_scores  # a model that also returns its state values
        entropies = []
        for scores in action_scores:
            act_scores = scores.clone().detach()
            probs = torch.softmax(act_scores, dim=-1)
            entropies.append(-(probs * torch.log_softmax(act_scores, dim=-1)).sum(-1))
        return -torch.stack(entropies).mean() / self.max_entropy * len(batch) / len(batch)
