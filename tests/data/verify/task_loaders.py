"""Importance weights for continual learning, one loader per task seen so far."""
import torch


class SynapticImportance:
    def __init__(self, net, task_loaders, device="cpu"):
        self.net = net
        self.task_loaders = task_loaders
        self.device = device
        self.weights = {name: w for name, w in net.named_parameters() if w.requires_grad}
        self.importance = self._estimate()
        self.anchors = {}
        for name, w in self.weights.items():
            self.anchors[name] = w.clone().detach()

    def _estimate(self):
        totals = {name: torch.zeros_like(w) for name, w in self.weights.items()}
        count = sum(len(loader) for loader in self.task_loaders)
        for loader in self.task_loaders:
            for batch in loader:
                self.net.zero_grad()
                scores = self.net(batch[0].to(self.device))
                scores.pow_(2)  # the squared output's size, in place
                scores.sum(dim=1).mean().backward()
                for name, w in self.net.named_parameters():
                    totals[name] += w.grad.abs() / count
        return totals

    def penalty(self, net):
        total = 0
        for name, w in net.named_parameters():
            total = total + (self.importance[name] * (w - self.anchors[name]) ** 2).sum()
        return total
