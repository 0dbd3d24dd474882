"""A regularizer built on the agent whose network comes from the left-out module: its importance
needs only the parameters it keeps."""

from .base import Agent


class L2(Agent):
    def __init__(self, name: str = "mlp"):
        super().__init__(name)
        self.params = {n: p for n, p in self.model.named_parameters() if p.requires_grad}

    def importance(self) -> dict:
        return {n: p.clone().detach().fill_(1) for n, p in self.params.items()}  # expect: TCL005
