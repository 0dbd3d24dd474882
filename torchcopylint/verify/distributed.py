"""`torch.distributed` as a process group of one, for code written to be launched on several.

Runs in the verification child process, which is one process: a trainer that calls
`dist.init_process_group(...)`, wraps its networks in `DistributedDataParallel` and averages
its losses with `dist.all_reduce` would stop at the first call that needs a group ("Default
process group has not been initialized"), or at `init_process_group` itself, which would
open a connection. Here every call answers as it does in a group of one, which is exact, not
a guess: rank 0 of 1, a reduction or gather of one value is that value, a barrier waits for
no one, and DistributedDataParallel over one process is the module (its gradients averaged
over one replica). Nothing connects anywhere. Each use is named in the evidence.
"""

from __future__ import annotations

from typing import Callable

import torch
from torch import nn

SAID = "`torch.distributed` ran as a process group of one (rank 0 of 1), in the verification process"


class OneProcessParallel(nn.Module):
    """DistributedDataParallel over one process: the module, under `.module` as the wrapper keeps it."""

    def __init__(self, module: nn.Module, *args, **kwargs) -> None:
        super().__init__()
        self.module = module

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)


def install(note: Callable[[str], None]) -> None:
    """From now on in this process, `torch.distributed` answers as a group of one. `is_initialized()`
    says whether the code started one (libraries ask it too, and must see none they did not)."""
    import torch.distributed as dist

    if getattr(dist.init_process_group, "_torchcopylint", False):
        return
    started: list = []

    def said(value):
        def answer(*args, **kwargs):
            note(SAID)
            return value(*args, **kwargs) if callable(value) else value
        answer._torchcopylint = True
        return answer

    def start(*args, **kwargs):
        started.append(True)

    def gathered(output, value, *args, **kwargs):  # all_gather([t], x) over one process: t holds x
        if isinstance(output, list) and output and isinstance(output[0], torch.Tensor):
            output[0].copy_(value)
        elif isinstance(output, list):
            output[:1] = [value]

    replacements = {
        "init_process_group": start, "destroy_process_group": None, "barrier": None,
        "get_rank": 0, "get_world_size": 1, "get_local_rank": 0, "get_backend": "gloo",
        # A reduction or a broadcast over one process leaves the tensor as it is.
        "all_reduce": None, "reduce": None, "broadcast": None,
        "all_gather": gathered, "all_gather_object": gathered,
    }
    for name, value in replacements.items():
        if hasattr(dist, name):
            setattr(dist, name, said(value))
    dist.is_initialized = lambda: bool(started)
    nn.parallel.DistributedDataParallel = OneProcessParallel
    nn.parallel.distributed.DistributedDataParallel = OneProcessParallel
