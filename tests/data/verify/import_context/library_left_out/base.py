"""The base agent builds its network from the module the repository left out."""

import library_left_out.models as models


class Agent:
    def __init__(self, name: str = "mlp"):
        self.model = models.__dict__[name]()
