"""The base class of the attacks: its `__init__` sets the attributes `get_logits` reads."""

import torch


class Attack:
    def __init__(self, name, model):
        self.name = name
        self.model = model
        self._normalization = None
        self._training_mode = False

    def get_logits(self, inputs: torch.Tensor) -> torch.Tensor:
        if self._normalization is not None:
            inputs = (inputs - self._normalization[0]) / self._normalization[1]
        if self._training_mode:
            self.model.train()
        return self.model(inputs)
