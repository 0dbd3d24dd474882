"""A continual-learning approach: its network wraps a backbone (`model.model`) beside task heads."""
import torch


class Approach:
    def __init__(self, model, device, lamb=5000):
        self.model = model
        self.device = device
        self.lamb = lamb
        feat_ext = self.model.model
        self.older_params = {n: p.clone().detach() for n, p in feat_ext.named_parameters() if p.requires_grad}
        self.fisher = {n: torch.zeros(p.shape).to(self.device) for n, p in feat_ext.named_parameters()
                       if p.requires_grad}
