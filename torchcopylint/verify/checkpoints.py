"""Checkpoints the code loads: never read, the networks keep their initial weights; and never written.

Runs in the verification child process. A script that resumes training or
evaluates a trained model starts with `G.load_state_dict(torch.load("G.pth"))`.
Verification never reads the user's files, and the checkpoint is usually not in
the repository anyway, yet the claim under test (a missing detach, an in-place
write) holds or fails the same on any weights. So `torch.load` of a file of the
project, or of one that does not exist, returns a `CheckpointStandIn`; a
module's or an optimizer's `load_state_dict` of it loads nothing, nor of a dict
the code made from it (keys stripped of DataParallel's `module.`: empty, since
the stand-in has no entries), and the evidence names the checkpoint. A count read from it (the epoch to resume from)
is 0, where a run that resumes nothing starts, said in the evidence. A network saved whole and
loaded over one the code built (`G = Generator()`, then `G = torch.load("G.pth")`) is the built one,
with its initial weights (said). Another network saved whole
(`gan = torch.load("netG")`) that a function calls is replaced by the experiment with a stand-in
network made from use (`unread_network`), as any network whose class is not known. Any other
use of what was loaded (a tensor in it) fails as an unknown value would: the
verdict is then `unverified`, never one resting on made-up weights.

Weights the code downloads (`torch.hub.load_state_dict_from_url(url)`, `model_zoo.load_url(url)`) are a
checkpoint not read either.

`torch.save` writes through its own C++ writer, not `open`, so the sandbox's
guard on `open` does not see it: a checkpoint saved into the project or
elsewhere on the user's disk is written to memory instead.
"""

from __future__ import annotations

import ast
import io
import linecache
import os
import sys
from typing import Any, Optional

import torch
import torch.hub
import torch.utils.model_zoo

from torchcopylint.verify import sandbox


class CheckpointStandIn(dict):
    """What `torch.load` returned for a checkpoint it did not read; its entries (`ckpt["model"]`) too."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def __getitem__(self, key: Any) -> "CheckpointStandIn":
        return CheckpointStandIn(f"{self.name}[{key!r}]")

    def get(self, key: Any, default: Any = None) -> "CheckpointStandIn":
        return self[key]

    def __contains__(self, key: Any) -> bool:
        return True

    def __index__(self) -> int:
        # A count read from it (`start_epoch = ckpt["epoch"]`, then `range(start_epoch, epochs)`): 0, where a
        # run that resumes nothing starts. Weights and tensors in it stay unknown.
        _note(self, "a count read from it was 0, a run that resumes nothing")
        return 0

    __int__ = __index__

    def __float__(self) -> float:
        return float(self.__index__())

    # `start_epoch = ckpt["epoch"] + 1`, `best = ckpt["best_acc"] - 1`: arithmetic on that count of 0.
    def __add__(self, other: Any) -> Any:
        return self.__index__() + other

    def __radd__(self, other: Any) -> Any:
        return other + self.__index__()

    def __sub__(self, other: Any) -> Any:
        return self.__index__() - other

    def __rsub__(self, other: Any) -> Any:
        return other - self.__index__()

    def to(self, *args: Any, **kwargs: Any) -> "CheckpointStandIn":
        # `torch.load(path).to(device)` of a tensor or a whole network saved: still the checkpoint not
        # read (a loss history kept in it, `list(...)`, is empty, as for a run that resumes nothing).
        return self

    def cpu(self) -> "CheckpointStandIn":
        return self

    def cuda(self, *args: Any, **kwargs: Any) -> "CheckpointStandIn":
        return self

    def __repr__(self) -> str:
        return f"<checkpoint {self.name} not read>"


def unread_network(value: Any) -> bool:
    """Is `value` a whole network saved with `torch.save(net, path)` that the run did not read
    (`gan = torch.load("netG")`), or a wrapper around one (`nn.DataParallel(torch.load(...))`)?"""
    return isinstance(value, CheckpointStandIn) or \
        isinstance(value, torch.nn.Module) and isinstance(getattr(value, "module", None), CheckpointStandIn)


def install() -> None:
    """Patch `torch.load`, `torch.save`, the two downloaders of weights and the two `load_state_dict`s
    (once per process)."""
    if getattr(torch.load, "stands_in_for_checkpoints", False):
        return
    load, save = torch.load, torch.save
    module_load = torch.nn.Module.load_state_dict
    optimizer_load = torch.optim.Optimizer.load_state_dict

    stood_in: list[CheckpointStandIn] = []  # the checkpoints not read, in the order the code loaded them

    def guarded_load(f, *args, **kwargs):
        saved = sandbox.read_back(f) if isinstance(f, (str, os.PathLike)) else None
        if saved is not None:  # `torch.save(net, path)`, then `net = torch.load(path)`: what the run saved
            return load(io.BytesIO(saved), *args, **kwargs)
        if isinstance(f, (str, os.PathLike)) and (not os.path.exists(f) or sandbox.in_project(f) is not None):
            stood_in.append(CheckpointStandIn(f"`{os.fspath(f)}`"))
            built = _network_loaded_over(sys._getframe(1))
            if built is not None:
                name, network = built
                _note(stood_in[-1], f"`{name}` stays the `{type(network).__name__}` the code built, with its initial "
                                    f"weights")
                return network
            return stood_in[-1]
        return load(f, *args, **kwargs)

    def made_from_stand_in(state_dict: Any) -> Any:
        """The checkpoint not read that `state_dict` stands for: itself, an empty dict the code made
        from one (`{k.replace("module.", ""): v for k, v in ckpt.items()}`, which holds no entries since
        the stand-in has none; no real checkpoint is empty), or a dict of entries the code took from one
        by name (`new[f"{layer}.weight"] = state_dict[f"features.{i}.weight"]`, renaming a downloaded
        VGG's layers); None otherwise."""
        if isinstance(state_dict, CheckpointStandIn):
            return state_dict
        if isinstance(state_dict, dict) and not state_dict and stood_in:
            return stood_in[-1]
        if isinstance(state_dict, dict) and stood_in and \
                all(isinstance(value, CheckpointStandIn) for value in state_dict.values()):
            return stood_in[-1]
        return None

    def guarded_save(obj, f, *args, **kwargs):
        if isinstance(f, (str, os.PathLike)) and sandbox.write_goes_to_memory(f):
            buffer = io.BytesIO()
            save(obj, buffer, *args, **kwargs)
            sandbox.keep_written(f, buffer.getvalue())
            return None
        return save(obj, f, *args, **kwargs)

    def module_load_state_dict(self, state_dict, *args, **kwargs):
        checkpoint = made_from_stand_in(state_dict)
        if checkpoint is not None:
            _note(checkpoint, f"`{type(self).__name__}` keeps its initial weights")
            return torch.nn.modules.module._IncompatibleKeys([], [])
        return module_load(self, state_dict, *args, **kwargs)

    def optimizer_load_state_dict(self, state_dict, *args, **kwargs):
        checkpoint = made_from_stand_in(state_dict)
        if checkpoint is not None:
            _note(checkpoint, f"the `{type(self).__name__}` optimizer keeps its fresh state")
            return None
        return optimizer_load(self, state_dict, *args, **kwargs)

    def downloaded_weights(url, *args, **kwargs):
        # `load_state_dict_from_url(alexnet_url)` of a course notebook: verification never touches the
        # network, and the claim does not rest on the trained weights.
        stood_in.append(CheckpointStandIn(f"at `{url}`"))
        return stood_in[-1]

    guarded_load.stands_in_for_checkpoints = True
    torch.load = guarded_load
    torch.hub.load_state_dict_from_url = torch.utils.model_zoo.load_url = downloaded_weights
    torch.save = guarded_save
    torch.nn.Module.load_state_dict = module_load_state_dict
    torch.optim.Optimizer.load_state_dict = optimizer_load_state_dict


def _network_loaded_over(frame: Any) -> Optional[tuple[str, torch.nn.Module]]:
    """(name, network) where the statement calling `torch.load` assigns a network saved whole to a name
    that holds a network the code built (`G = Generator().to(device)`, then `G = torch.load("G.pth")`):
    the same class, trained, which the claim under test does not depend on."""
    statement = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    try:
        assignment = ast.parse(statement).body[0]
    except (SyntaxError, IndexError):
        return None
    if not (isinstance(assignment, ast.Assign) and len(assignment.targets) == 1
            and isinstance(assignment.targets[0], ast.Name) and isinstance(assignment.value, ast.Call)
            and ast.unparse(assignment.value.func).endswith("load")):
        return None
    name = assignment.targets[0].id
    network = frame.f_locals.get(name, frame.f_globals.get(name))
    return (name, network) if isinstance(network, torch.nn.Module) else None


def _note(checkpoint: CheckpointStandIn, kept: str) -> None:
    from torchcopylint.verify import script

    script.note(f"the checkpoint {checkpoint.name} the code loads was not read: {kept}")
