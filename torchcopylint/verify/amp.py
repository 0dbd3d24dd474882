"""NVIDIA apex's `amp`, when apex is not installed, as full precision (in the experiment only).

Runs in the verification child process. Adversarial-training code of 2019-2021 wraps its
step in apex's mixed precision: `model, opt = amp.initialize(model, opt, opt_level="O1")`,
then `with amp.scale_loss(loss, opt) as scaled_loss: scaled_loss.backward()`. apex is
rarely installed, and a claim about a copy, a detach or an in-place write does not depend
on the precision a step runs in, only on the step running. So `apex.amp` stands in as
apex's own "O0" level does: `initialize` gives back the model and optimizer unchanged,
`scale_loss` yields the loss itself (its backward is the loss's backward), `master_params`
the optimizer's parameters, and the cast registrations do nothing. Any other part of
apex keeps verify/absent.py's meaning: a use makes the verdict `unverified`, naming it.
Each use is named in the evidence.
"""

from __future__ import annotations

import contextlib
import types
from typing import Any

from torchcopylint.verify.absent import AbsentName

NAME = "apex.amp"
NOTE = ("`apex` is not installed: `apex.amp` ran in full precision, as its O0 level does (initialize gave back "
        "the model and optimizer, scale_loss the loss itself)")
# The cast registrations and switches of O1: nothing to do in full precision.
_DO_NOTHING = frozenset({"register_float_function", "register_half_function", "register_promote_function",
                         "init", "load_state_dict"})


def master_params(optimizer: Any):
    for group in optimizer.param_groups:
        yield from group["params"]


def disable_casts():
    return contextlib.nullcontext()


def state_dict(*args: Any, **kwargs: Any) -> dict:
    return {}


class AmpModule(types.ModuleType):
    """`apex.amp`: the functions above; any other attribute is apex's and absent. `used` says whether
    the code ran through it (the evidence names it then: verify/script.py)."""

    def __init__(self) -> None:
        super().__init__(NAME)
        self.used = False
        for function in (master_params, disable_casts, state_dict):
            setattr(self, function.__name__, function)
        for name in _DO_NOTHING:
            setattr(self, name, lambda *args, **kwargs: None)

    def initialize(self, models: Any, optimizers: Any = None, **options: Any) -> Any:
        self.used = True
        return models if optimizers is None else (models, optimizers)

    @contextlib.contextmanager
    def scale_loss(self, loss: Any, optimizers: Any = None, **options: Any):
        self.used = True
        yield loss

    def __getattr__(self, attribute: str):
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)
        return AbsentName(f"{NAME}.{attribute}")
