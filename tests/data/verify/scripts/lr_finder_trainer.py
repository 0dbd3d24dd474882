"""A course's trainer: the constructor keeps what it is given (`self.optimizer = optimizer`) and
nothing in it says what each is; its methods do (`self.optimizer.param_groups`, `.step()`, and the
`state_dict()` an optimizer has as a module does). `find_lr` keeps every step's loss in `logs`
(TCL007)."""

from copy import deepcopy

import numpy as np
import torch
import torch.nn.functional as F


class Trainer:
    def __init__(self, model, optimizer, loader, smooth=0.8):
        self.model = model
        self.optimizer = optimizer
        self.loader = loader
        self.smooth = smooth
        self.cache = {"model": deepcopy(self.model.state_dict()), "optimizer": deepcopy(self.optimizer.state_dict())}

    def find_lr(self, min_lr=1e-6, max_lr=1e-1, steps=20):
        logs = {"lr": [], "loss": []}
        self.model.train()
        for lr, (x, y) in zip(np.geomspace(min_lr, max_lr, steps), self.loader):
            for group in self.optimizer.param_groups:
                group["lr"] = lr
            loss = F.cross_entropy(self.model(x), y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            logs["lr"].append(lr)
            logs["loss"].append(loss)
        self.model.load_state_dict(self.cache["model"])
        self.optimizer.load_state_dict(self.cache["optimizer"])
        return logs
