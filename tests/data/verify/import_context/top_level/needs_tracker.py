"""The flagged statement's slice needs a package that is not installed: the verdict names it."""

import torch
from experiment_tracker_not_installed import initial_weights

weights = initial_weights(4)
weights.requires_grad_(True)
history = torch.zeros(4, requires_grad=True)
history.add_(weights)  # expect: TCL004
