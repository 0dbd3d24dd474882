"""PyTorch Lightning's LightningModule, where the package is missing (verify/noops.py serves it).

Runs in the verification child process. A LightningModule is an nn.Module whose steps a Trainer
calls; a claim about a step (a discriminator's backward through the generator's output, a loss
kept with its graph) is about the module's own code. The stand-in gives that code what Lightning
gives it: its optimizers as `configure_optimizers` returns them, `manual_backward`, switching the
other optimizers' parameters off (`toggle_optimizer`), `log`, the epoch and step counters, its
hyperparameters and device. A Trainer stays a no-op (verify/noops.py): nothing runs the training
loop by accident.
"""

from __future__ import annotations

import inspect
from typing import Any

import torch
from torch import nn


class LightningModule(nn.Module):
    current_epoch = 0
    global_step = 0
    automatic_optimization = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        self.hparams = Hyperparameters()
        self._toggled: list = []

    @property
    def device(self) -> torch.device:
        parameter = next(self.parameters(), None)
        return parameter.device if parameter is not None else torch.device("cpu")

    def save_hyperparameters(self, *args: Any, **kwargs: Any) -> None:
        """What the caller's `__init__` was given, as Lightning reads it off that frame."""
        frame = inspect.currentframe().f_back
        code = frame.f_code
        parameters = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        given = {name: frame.f_locals[name] for name in parameters if name != "self" and name in frame.f_locals}
        if args and isinstance(args[0], dict):
            given.update(args[0])
        self.hparams.update(given)

    def optimizers(self, use_pl_optimizer: bool = True):
        if "_stand_in_optimizers" not in self.__dict__:
            self.__dict__["_stand_in_optimizers"] = _optimizers_of(self.configure_optimizers())
        found = self.__dict__["_stand_in_optimizers"]
        return found[0] if len(found) == 1 else found

    def lr_schedulers(self):
        return None

    def manual_backward(self, loss: torch.Tensor, *args: Any, **kwargs: Any) -> None:
        loss.backward(*args, **kwargs)

    def toggle_optimizer(self, optimizer, *args: Any) -> None:
        """Lightning switches off `requires_grad` of the parameters only the other optimizers train."""
        own = {id(p) for group in optimizer.param_groups for p in group["params"]}
        for other in _optimizers_of(self.optimizers()):
            for group in other.param_groups:
                for parameter in group["params"]:
                    if id(parameter) not in own and parameter.requires_grad:
                        parameter.requires_grad_(False)
                        self._toggled.append(parameter)

    def untoggle_optimizer(self, *args: Any) -> None:
        for parameter in self._toggled:
            parameter.requires_grad_(True)
        self._toggled = []

    def log(self, *args: Any, **kwargs: Any) -> None:
        return None

    def log_dict(self, *args: Any, **kwargs: Any) -> None:
        return None

    def print(self, *args: Any, **kwargs: Any) -> None:
        print(*args, **kwargs)


class Hyperparameters(dict):
    """Lightning's `self.hparams`: a dict whose keys are also attributes (`self.hparams.lr`)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value


def _optimizers_of(configured: Any) -> list:
    """The optimizers in what `configure_optimizers` returns: one, a list or tuple of them, `([optimizers],
    [schedulers])`, or dicts with an "optimizer"."""
    if isinstance(configured, torch.optim.Optimizer):
        return [configured]
    if isinstance(configured, dict):
        return _optimizers_of(configured.get("optimizer"))
    if isinstance(configured, (list, tuple)):
        if len(configured) == 2 and isinstance(configured[0], (list, tuple)) and isinstance(configured[1], (list, tuple)):
            return _optimizers_of(configured[0])  # ([optimizers], [schedulers])
        return [optimizer for item in configured for optimizer in _optimizers_of(item)]
    return []


class LightningDataModule:
    """A data module: its loaders are the project's, stood in where they read data."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass


class Callback:
    """A callback the Trainer would call: the Trainer is a no-op, so it is never called."""


# The names a project imports them by.
STAND_INS = {f"{package}.{name}": value
             for package in ("pytorch_lightning", "pytorch_lightning.core", "lightning", "lightning.pytorch")
             for name, value in (("LightningModule", LightningModule), ("LightningDataModule", LightningDataModule),
                                 ("Callback", Callback))}
STAND_INS["pytorch_lightning.callbacks.Callback"] = STAND_INS["lightning.pytorch.callbacks.Callback"] = Callback
