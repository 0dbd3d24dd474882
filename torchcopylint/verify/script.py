"""Running what a script builds: its top level through the flagged statement's slice, a function with
the module-level names it reads, both on stand-in data; and the evidence of what stood in.

Runs in the verification child process. Most GANs and training loops are
written as scripts and notebooks: the networks, optimizers and parameter
tensors are made at the top level, and the training step either sits there too
or in a function that reads them as globals. So:

- a flagged top-level statement runs after its backward slice (verify/slicing.py),
  on the data stand-ins of verify/datasites.py and verify/batches.py, with the
  script's training loops limited (`limit_loops`) and the flagged line allowed
  to start once (three times where the claim needs iterations, TCL007): the
  flagged iteration runs, and the run stops;
- a function's experiment carries the module-level statements that bind the
  names it reads, transitively (a notebook's `device` from an earlier cell, a
  top-level network), never a loop, never a call of the function itself or of
  a training function; a statement among them that fails is skipped, and named
  if the experiment then needs what it would have bound;
- the evidence of every diagnosis ends with what stood in (data, missing
  packages, writes that went to memory, loops that were stopped).
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import functools
import inspect
import io
import os
import random
import re
import symtable
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import torch
from torch import nn

from torchcopylint.verify import absent, amp, backbones, environments, noops, sandbox
from torchcopylint.verify.absent import AbsentModule, AbsentName, AbsentPackageUsed, UnknownArgumentUsed
from torchcopylint.verify.batches import (BATCH_MISMATCH, BATCHES, LONG_LOADER_LENGTH, SHAPE_MISMATCH,
                                             SMALL_BATCH, SHORT_LENGTH, DataPlan, long_length_note)
from torchcopylint.verify.datasites import limit_loops, replace_nodes, rewrite_data
from torchcopylint.verify.inputs import DEVICE_NAMES, CannotRun
from torchcopylint.verify.probe import LineProbe, StopRun
from torchcopylint.verify.reach import Outcome, Run, confirmed, decide, refuted, statement_lines_between
from torchcopylint.verify.slicing import changed_names, is_main_guard, module_level_slice
from torchcopylint.verify.watching import same_values
from torchcopylint.verify.snippet import snippet_source
from torchcopylint.verify.watching import bytes_cloned_at

# How many times the flagged line may start in a top-level run: once, or as often as the claim needs.
PASSES = {"TCL007": 3, "TCL011": 2}
MAX_ATTEMPTS = 8
FAILED_HELPER = "__tcl_failed__"
# What PyTorch raises for an in-place write to a leaf that requires grad, before it writes anything.
LEAF_ERRORS = ("a leaf Variable that requires grad is being used in an in-place operation",
               "a view of a leaf Variable that requires grad is being used in an in-place operation",
               "arguments don't support automatic differentiation, but one of the arguments requires grad")
# Earlier statements of the slice a run may go past because they raised one of LEAF_ERRORS.
MAX_PASSED_WRITES = 16
# What a failure on a stand-in says: a stand-in network or backbone without what the real one has
# (`'StandInBackbone' object has no attribute 'Conv2d_1a_3x3'`). (A use of data not read, or of what
# a statement could not make, is the first use that stops the run: never passed.)
STAND_IN_FAILURE = re.compile(r"'StandIn\w*'")
UNBUILT_HELPER, ABSENT_HELPER = "__tcl_unbuilt__", "__tcl_absent__"
_BUILTINS = frozenset(dir(builtins))


class LoopLimit(StopRun):
    """The flagged line was about to start once more than the claim needs: the run stops there."""


# ------------------------------------------------------------------------------ what stood in


@dataclass
class _Log:
    items: list = field(default_factory=list)
    plans: list = field(default_factory=list)   # the data plans of the runs that counted
    failed: dict = field(default_factory=dict)  # line -> why a module-level statement a function needs failed
    # The script's argparse options another value of which may take the flagged path: option -> its
    # other values (`--loss` with choices, a `store_true` flag); and the arguments of this run.
    options: dict = field(default_factory=dict)
    arguments: list = field(default_factory=list)
    tried: set = field(default_factory=set)
    # What the script compares each option with (`args.loss == "wasserstein"`): its other values
    # when the option declares no choices.
    compared: dict = field(default_factory=dict)
    # The numbers it compares a numeric option with (`if args.noise > 0:`): values that take the other way.
    compared_numbers: dict = field(default_factory=dict)
    # The options it tests for None (`if args.seed is not None:`): None means something to it.
    none_tested: frozenset = frozenset()
    ran_with: str = ""
    # The attributes the tests of the branches around the flagged line read (`if opts.use_diffaug:`):
    # the options of those names are tried first.
    guards: frozenset = frozenset()
    passed_writes: list = field(default_factory=list)  # lines of refused writes a run went past
    function_plans: list = field(default_factory=list)  # the data plans of a function's module loads
    # Whether the run took `len()` of a stand-in loader given to a function (standins.StandInLoader).
    argument_loader_length_read: bool = False
    # Whether a DataLoader of the run got smaller batches than the code asks for (loaders_of_several_batches).
    loaders_cut: bool = False

    def add(self, text: str) -> None:
        if text not in self.items:
            self.items.append(text)

    def discard(self, text: str) -> None:
        if text in self.items:
            self.items.remove(text)


_log = _Log()
# Reshapes of stand-in batches that failed in an earlier run of this diagnosis (`view(-1, 784)` on
# 4x3x64x64 values): the data of the next run is shaped for them (verify/batches.py DataPlan.learn).
_learned: tuple = ()
# The candidate sample shape a function's stand-in data takes in this try of the diagnosis: the next
# one after a try whose network read another shape (`mat1 and mat2 shapes cannot be multiplied`).
_shape_choice = 0
# Whether a function's stand-in batches take the size the code asks for in this try: after a try
# whose batches, cut to SMALL_BATCH, did not match a size the code made from its own batch size
# (`torch.ones(batch_size, 1)` targets, a penalty's `expand(batch_size, ...)`).
_full_batches = False
# How many times the side of a pair's first image its later images have in this try (verify/batches.py
# DataPlan.learn_pair_scale): a super-resolution target, after a try that found it too small.
_pair_scale = 1
# Whether the stand-in labels hold two classes in this try: after one whose network scored fewer
# classes than they held (verify/batches.py DataPlan.needs_fewer_classes).
_two_classes = False
# Each stand-in sample's label a column of one, after a run that indexed the labels' second dim
# (verify/batches.py DataPlan.needs_column_labels).
_column_labels = False
# Sample shapes a function's stand-in images take first in this try, with why: after a try whose
# network's output disagreed in side with a target the code sized itself (DataPlan.learn_side).
_resized: tuple = ()
# Whether a function's stand-in loaders report a real loader's length in this try: after one that divided
# by a fraction of their length (`log_interval = len(loader) // 10`, then `batch % log_interval`).
_long_loaders = False


def begin(keep_learned: bool = False, source: str = "", guards: frozenset = frozenset()) -> None:
    """A new diagnosis (or, `keep_learned`, a new try of the same one): nothing has stood in yet, but
    the CPU types that stand for the GPU's where its `source` names them (see cuda_on_cpu). `guards`:
    the attributes the branches around the flagged line test, whose options are tried first."""
    global _log, _learned, _shape_choice, _full_batches, _pair_scale, _two_classes, _resized, _long_loaders, \
        _column_labels
    for plan in (*_log.plans, *_log.function_plans):
        plan.forget_modules()  # a sibling's loader made up for the last try is not this one's
    _log = _Log(guards=guards)
    if getattr(nn.Module.cuda, "_torchcopylint", False):
        for name in sorted(set(GPU_TENSOR_TYPE.findall(source))):
            _log.add(f"`torch.cuda.{name}` made CPU tensors, on the verification device")
    if isinstance(sys.modules.get(amp.NAME), amp.AmpModule):
        sys.modules[amp.NAME].used = False  # said again only of a diagnosis whose code runs through it
    if not keep_learned:
        _learned, _shape_choice, _full_batches, _pair_scale, _two_classes, _resized = (), 0, False, 1, False, ()
        _long_loaders = _column_labels = False
    sandbox.begin()
    backbones.notes.clear()
    environments.notes.clear()
    environments.code_api = environments.api_in(source) if source else None


def note(text: str) -> None:
    """Something the experiment changed on the way to the claim (verify/legacy.py), for the evidence."""
    _log.add(text)


def learn_from(text: str) -> bool:
    """Did the diagnosis's runs fail on a reshape of a stand-in batch (the reason's `text` quotes the
    error)? Then the next try shapes its data for that reshape; False when nothing new was learned."""
    global _learned, _shape_choice, _full_batches, _pair_scale, _two_classes, _resized, _long_loaders, _column_labels
    if any(plan.needs_fewer_classes(RuntimeError(text)) for plan in (*_log.plans, *_log.function_plans)):
        _two_classes = True
        return True
    if any(plan.needs_column_labels(RuntimeError(text)) for plan in (*_log.plans, *_log.function_plans)):
        _column_labels = True
        return True
    if any(plan.needs_long_loaders(RuntimeError(text)) for plan in (*_log.plans, *_log.function_plans)) or (
            _log.argument_loader_length_read and not _long_loaders and SHORT_LENGTH.search(text)):
        _long_loaders = True
        return True
    for plan in _log.plans:
        learned = plan.learn(RuntimeError(text))
        if learned is not None and learned not in _learned:
            _learned = (learned, *_learned)
            return True
        scale = plan.learn_pair_scale(RuntimeError(text))
        if scale is not None:
            _pair_scale = scale
            return True
    for plan in (*_log.plans, *_log.function_plans):
        resized = plan.learn_side(RuntimeError(text))
        if resized is not None and resized not in _resized:
            _resized, _shape_choice, _full_batches = (resized, *_resized), 0, False
            return True
    # No reshape to learn from, but sizes that disagree: batches cut small beside what the code sized by
    # its own batch size (`torch.ones(batch_size, 1)`, `x.view(batch_size, -1)`) take the size it asks
    # for first, as a script's own loop does; then a network read samples of another shape than the
    # stand-in data's: the next candidate shape (a function's module is loaded once a try).
    mismatch = SHAPE_MISMATCH.search(text) or BATCH_MISMATCH.search(text) or \
        any(plan.reshaped_to_asked_size(RuntimeError(text)) for plan in _log.function_plans)
    if mismatch and not _full_batches and (_log.loaders_cut or any(plan.cut for plan in _log.function_plans)):
        _full_batches = True
        return True
    if SHAPE_MISMATCH.search(text) and any(plan.used and _shape_choice + 1 < plan.candidate_count
                                           for plan in _log.function_plans):
        _shape_choice += 1
        return True
    return False


def argument_loader_length(batches: int) -> int:
    """`len()` of a stand-in loader a function is given (standins.StandInLoader), which yields `batches`:
    that many, or in a try after one that divided by a part of it (`log_every = len(loader) // 10`, then
    `step % log_every`), a length real data would give, said."""
    _log.argument_loader_length_read = True
    if not _long_loaders:
        return batches
    _log.add(long_length_note("a stand-in loader", batches))
    return LONG_LOADER_LENGTH


def full_batches_next() -> bool:
    """After a try that never reached the flagged line with batches cut small: the next try takes the
    size the code asks for (a loop that skips every batch of another size, `if imgs.shape[0] !=
    args.batch_size: continue`, runs on those). False when the batches were not cut, or already full."""
    global _full_batches
    if _full_batches or not (_log.loaders_cut or any(plan.cut for plan in (*_log.plans, *_log.function_plans))):
        return False
    _full_batches = True
    return True


def stood_in() -> str:
    """What stood in during the diagnosis's runs, for its evidence ("" when nothing did)."""
    items = []
    for plan in _log.plans:  # described as the data was made, which may be after the load
        items += list(plan.described.values()) + list(plan.stopped.values())
    items += _log.items + [text for text in (_log.ran_with, _passed_writes_text()) if text] + sandbox.events()
    if getattr(sys.modules.get(amp.NAME), "used", False) is True:
        items.append(amp.NOTE)  # the code ran through apex's amp, which stood in (verify/amp.py)
    items += backbones.notes  # torchvision's or timm's networks that stood in (verify/backbones.py)
    items += environments.notes  # gym's environments (verify/environments.py)
    return "; ".join(dict.fromkeys(items))


def with_stand_ins(outcome: Outcome) -> Outcome:
    text = stood_in()
    if not text or text in outcome.evidence:
        return outcome
    return Outcome(outcome.status, f"{outcome.evidence}; stood in: {text}")


def explain_failure(reason: str) -> str:
    """A reason for `unverified`, with the module-level statements that failed and what stood in."""
    failed = [f"the module-level statement at line {line} failed ({why})" for line, why in sorted(_log.failed.items())]
    text = stood_in()
    extra = "; ".join(failed + ([f"stood in: {text}"] if text and text not in reason else []))
    return f"{reason}; {extra}" if extra else reason


def _record(plan: DataPlan, namespace: Optional[dict]) -> None:
    if plan not in _log.plans:
        _log.plans.append(plan)
    for package in noops.used_in(namespace or {}):
        _log.add(f"`{package}` is not installed: {noops.stood_in_as(package)} stood in for it")
    for package in noops.imported_by_siblings(namespace or {}):
        # A module the code imports imported it (LPIPS's `requests`, for its weights): said too.
        _log.add(f"`{package}` is not installed: {noops.stood_in_as(package)} stood in for it "
                 f"(imported by a module the code uses)")
    for package in _absent_in(namespace or {}):
        if not any(f"needs `{package}`" in item for item in _log.items):  # (one a statement failed on: said)
            _log.add(f"`{package}` is not installed: imported as a stand-in the code never used")


def _absent_in(namespace: dict) -> list[str]:
    # The stand-ins the code's own imports bound, and those a module it imported bound (a sibling
    # the package's `__init__.py` imports: `from .detection import *`).
    found = [name for name, module in list(sys.modules.items()) if isinstance(module, AbsentModule) and "." not in name]
    for value in list(namespace.values()):
        if isinstance(value, AbsentModule):
            found.append(value.__name__)
        elif isinstance(value, AbsentName) and object.__getattribute__(value, "_said") is None:
            # (One with words of its own stands for data not read or an unknown argument, no package.)
            found.append(object.__getattribute__(value, "_qualified_name"))
    # A module the project left out (`CLB_pack.models`) was said when it was stood in; its package is the project's.
    return sorted({name.split(".")[0] for name in found if absent.left_out_of_project(name) is None})


def loaders_of_several_batches() -> None:
    """A DataLoader the code makes over stand-in samples (a dataset class stood in for, a table of 120
    rows) would often make one batch of them at the code's batch size: a loop over it then runs once
    an epoch, and a claim about what builds up between iterations (a loss summed over the batches)
    cannot show. Such a loader makes BATCHES smaller batches instead, named in the evidence; a try after
    one whose sizes then disagreed with the code's own (`torch.ones(batch_size, 1)`) takes the size
    the code asks for. A loader with its own sampler, or one of several batches already, is left alone."""
    from torch.utils.data import DataLoader

    original = DataLoader.__init__
    if getattr(original, "several_batches", False):
        return

    def several_batches(self, *args, **kwargs):
        # DataLoader(dataset, batch_size=1, shuffle, sampler, batch_sampler, num_workers, collate_fn,
        # pin_memory, drop_last, ...)
        dataset = args[0] if args else kwargs.get("dataset")
        asked = args[1] if len(args) > 1 else kwargs.get("batch_size", 1)
        drop_last = args[8] if len(args) > 8 else kwargs.get("drop_last", False)
        sampled = any((args[i] if len(args) > i else kwargs.get(name)) is not None
                      for i, name in ((3, "sampler"), (4, "batch_sampler")))
        sampler = args[3] if len(args) > 3 else kwargs.get("sampler")
        within = _sampler_within(sampler, dataset)
        if within is not sampler:
            if len(args) > 3:
                args = (*args[:3], within, *args[4:])
            else:
                kwargs["sampler"] = within
        cut = None if sampled or _full_batches else _several_batch_size(dataset, asked, drop_last)
        if cut is not None:
            if len(args) > 1:
                args = (args[0], cut, *args[2:])
            else:
                kwargs["batch_size"] = cut
            _log.loaders_cut = True
            _log.add(f"a `DataLoader` over {len(dataset)} samples made batches of {cut} (of the {asked} "
                     f"the code asks for), so that a loop over it runs more than once")
        return original(self, *args, **kwargs)

    several_batches.several_batches = True
    DataLoader.__init__ = several_batches


def _sampler_within(sampler: Any, dataset: Any) -> Any:
    """A sampler of the real data's positions (`SubsetRandomSampler(np.arange(19998)[:16000])`, a
    course's split) over a dataset of fewer samples, which the stand-in data is: the same sampler over
    those positions taken modulo the dataset's length (which samples a batch holds decides nothing a
    claim rests on); the sampler itself otherwise."""
    indices = getattr(sampler, "indices", None)
    try:
        length = len(dataset)
        largest = max(int(index) for index in indices) if indices is not None and len(indices) else -1
    except Exception:  # noqa: BLE001 - a dataset or sampler of the user's code may raise anything
        return sampler
    if not 0 < length <= largest:
        return sampler
    try:
        within = type(sampler)([int(index) % length for index in indices])
    except Exception:  # noqa: BLE001 - a sampler class that is built otherwise: left as it is
        return sampler
    _log.add(f"a `{type(sampler).__name__}` over positions up to {largest} drew them modulo the {length} "
             f"stand-in samples")
    return within


def _several_batch_size(dataset: Any, asked: Any, drop_last: bool) -> Optional[int]:
    """The batch size that makes BATCHES batches of `dataset`, where the size the code asks for makes
    fewer than three; None where it makes enough, or the dataset's length is unknown."""
    if isinstance(dataset, torch.utils.data.IterableDataset) or not isinstance(asked, int) \
            or isinstance(asked, bool) or asked < 2:
        return None
    try:
        length = len(dataset)
    except Exception:  # noqa: BLE001 - a dataset of the user's code may raise anything
        return None
    made = length // asked if drop_last else -(-length // asked)
    cut = length // BATCHES
    if made >= 3 or cut < 2 or cut >= asked:
        return None
    return cut


def cuda_on_cpu(source: str = "", path: str = "") -> None:
    """On the CPU (`--device cpu`), let code written for a GPU run there: `model.cuda()` and
    `model.to("cuda")` leave the module where it is, `tensor.cuda()` and `tensor.to("cuda")` make a
    copy (differentiable, not a leaf: what a transfer to the GPU makes), and `torch.device(0)` names
    the GPU rather than raising. Each use is named in the evidence. `path`: the flagged file, whose
    folder's modules may name the GPU for it (a `config.py` holding `device = "cuda"`)."""
    if getattr(nn.Module.cuda, "_torchcopylint", False):
        return
    moved = "`.cuda()` ran on the CPU, the verification device: modules stayed, tensors were copied"
    module_to, tensor_to = nn.Module.to, torch.Tensor.to

    def module_cuda(self, device=None):
        _log.add(moved)
        return self

    def tensor_cuda(self, device=None, non_blocking=False, memory_format=torch.preserve_format):
        _log.add(moved)
        return self.clone(memory_format=memory_format)

    def module_to_gpu(self, *args, **kwargs):
        args, kwargs, gpu = _on_cpu(args, kwargs)
        if gpu:
            _log.add(f"`.to({gpu})` ran on the CPU, the verification device: modules stayed, tensors were copied")
        return module_to(self, *args, **kwargs)

    def tensor_to_gpu(self, *args, **kwargs):
        args, kwargs, gpu = _on_cpu(args, kwargs)
        result = tensor_to(self, *args, **kwargs)
        if not gpu:
            return result
        _log.add(f"`.to({gpu})` ran on the CPU, the verification device: modules stayed, tensors were copied")
        return result.clone() if result is self else result

    for function in (module_cuda, tensor_cuda, module_to_gpu, tensor_to_gpu):
        function._torchcopylint = True
    # A lazy module's parameters refuse every method but those torch allows before their first forward
    # (`model.to(device)` of a LazyLinear): `.to` is allowed still, as replaced.
    allowed = getattr(nn.parameter.UninitializedTensorMixin, "_allowed_methods", None)
    if isinstance(allowed, list):
        allowed.append(tensor_to_gpu)
    nn.Module.cuda, nn.Module.to = module_cuda, module_to_gpu
    torch.Tensor.cuda, torch.Tensor.to = tensor_cuda, tensor_to_gpu
    torch.device = _GpuNamingDevice
    # Old code makes tensors with the GPU's legacy types (`torch.cuda.FloatTensor(n, 100).normal_()`,
    # `x.type(torch.cuda.LongTensor)`), which raise without CUDA: the CPU's types stand for them (named
    # in the evidence of every diagnosis whose file names them: script.begin).
    for name in GPU_TENSOR_TYPES:
        setattr(torch.cuda, name, getattr(torch, name))
    # A script's `torch.cuda.set_device(args.gpu)` or `torch.cuda.synchronize()` asks CUDA itself and
    # raises without it; on the CPU there is one device and nothing to wait for.
    for name, answer in CUDA_DEVICE_CALLS.items():
        setattr(torch.cuda, name, _answering(f"torch.cuda.{name}", answer))
    # `with torch.cuda.device(self.device):` (a trainer's) asks for a CUDA device: on the CPU, the one there is.
    torch.cuda.device = _answering("torch.cuda.device", contextlib.nullcontext())
    if "autocast" in source:
        # The GPU's mixed precision (`with torch.cuda.amp.autocast():` around a step whose generator makes
        # its latents `.half()`) is switched off without CUDA, and half inputs then meet float weights:
        # the CPU's autocast runs the step in the same precision instead.
        torch.autocast = torch.amp.autocast = _AutocastOnCpu
        torch.cuda.amp.autocast = _cuda_autocast_on_cpu
    # `torch.randn(n, z_dim, device="cuda")` (a notebook's `device = "cuda"`) asks CUDA itself: made on the
    # CPU. Only where the file names CUDA: the wrappers are Python functions, which TorchScript (in
    # code that scripts functions calling `torch.zeros`) would try to compile.
    if not any(accelerator in source for accelerator in ACCELERATORS) and not _folder_names_an_accelerator(path):
        return
    for name in FACTORIES:
        if hasattr(torch, name):
            setattr(torch, name, _made_on_cpu(getattr(torch, name)))
    for name in ("new_zeros", "new_ones", "new_empty", "new_full", "new_tensor"):
        setattr(torch.Tensor, name, _made_on_cpu(getattr(torch.Tensor, name)))
    torch.jit.script = _scripted_as_python(torch.jit.script)
    # The older way to script a network, `class G(torch.jit.ScriptModule)` with `@torch.jit.script_method`
    # on its methods (a course's generator whose `forward` calls `torch.randn(n, 128).cuda()`), compiles
    # those methods when the class is built: they too run as Python, in a plain module.
    torch.jit.ScriptModule = _ScriptModuleAsPython
    torch.jit.script_method = _script_method_as_python


class _AutocastOnCpu(torch.amp.autocast_mode.autocast):
    """`torch.autocast("cuda", ...)` as the CPU's autocast, in bfloat16: the CPU's half precision (its
    float16 kernels are a hundred times slower, and a claim does not depend on which half it is)."""

    def __init__(self, device_type: str, dtype: Optional[torch.dtype] = None, enabled: bool = True,
                 cache_enabled: Optional[bool] = None):
        if device_type == "cuda":
            if enabled:
                _log.add("the GPU's autocast ran as the CPU's, in bfloat16")
            device_type, dtype = "cpu", torch.bfloat16
        super().__init__(device_type, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


def _cuda_autocast_on_cpu(enabled: bool = True, dtype: torch.dtype = torch.float16,
                          cache_enabled: bool = True) -> _AutocastOnCpu:
    return _AutocastOnCpu("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class _ScriptModuleAsPython(nn.Module):
    def __init__(self, *args, **kwargs):
        super().__init__()
        _log.add("`torch.jit.ScriptModule` and its `@torch.jit.script_method` methods ran as Python, beside "
                 "the CPU stand-ins for torch's factories")


def _script_method_as_python(method: Callable) -> Callable:
    return method


def _scripted_as_python(script: Callable) -> Callable:
    """TorchScript reads the source of what a scripted function calls, and the factories above are
    Python wrappers of builtins, which it cannot compile: a function or module the code scripts runs
    as Python instead, computing the same values (named in the evidence)."""
    @functools.wraps(script)
    def as_python(obj=None, *args, **kwargs):
        if inspect.isfunction(obj) or isinstance(obj, nn.Module):
            _log.add("`torch.jit.script` left what it scripts as Python, beside the CPU stand-ins for "
                     "torch's factories")
            return obj
        return script(obj, *args, **kwargs)
    return as_python


# (What a script prints of its GPU, `torch.cuda.get_device_name(0)` and the memory it holds, is answered
# for the CPU too: those ask CUDA as well.)
CUDA_DEVICE_CALLS = {"set_device": None, "synchronize": None, "current_device": 0, "reset_peak_memory_stats": None,
                     "get_device_name": "cpu", "memory_allocated": 0, "memory_reserved": 0, "memory_cached": 0,
                     "max_memory_allocated": 0, "max_memory_reserved": 0}


def _answering(name: str, answer: Any) -> Callable:
    done = "did nothing" if answer is None or callable(getattr(answer, "__enter__", None)) else f"answered {answer!r}"

    def on_cpu(*args, **kwargs):
        _log.add(f"`{name}()` {done}: the verification device is the CPU")
        return answer
    return on_cpu


FACTORIES = ("randn", "rand", "randint", "randperm", "zeros", "ones", "empty", "full", "tensor", "as_tensor",
             "arange", "linspace", "logspace", "eye", "normal", "zeros_like", "ones_like", "empty_like",
             "full_like", "rand_like", "randn_like", "randint_like")


def _made_on_cpu(factory: Callable) -> Callable:
    @functools.wraps(factory)
    def on_cpu(*args, **kwargs):
        device = kwargs.get("device")
        if _names_an_accelerator(device) or type(device) is int:  # `device=0`: the GPU of that index
            kwargs["device"] = "cpu"
            shown = device if type(device) is int else repr(str(device))
            _log.add(f"`device={shown}` made tensors on the CPU, the verification device")
        return factory(*args, **kwargs)
    return on_cpu


GPU_TENSOR_TYPES = ("FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor",
                    "ByteTensor", "CharTensor", "BoolTensor")
GPU_TENSOR_TYPE = re.compile(r"\bcuda\.(" + "|".join(GPU_TENSOR_TYPES) + r")\b")


def _on_cpu(args: tuple, kwargs: dict) -> tuple[tuple, dict, str]:
    """The arguments of a `.to(...)` with a GPU device replaced by the CPU, and the GPU it named ("" if none).
    A whole number where the device goes (`.to(0)`, `device=0`, as `torch.cuda.current_device()` gives
    it) is the GPU of that index."""
    args = tuple(_device_or_cpu(value) for value in args)
    kwargs = {key: _device_or_cpu(value) if key == "device" else value for key, value in kwargs.items()}
    if args and type(args[0]) is int:
        args = (f"cuda:{args[0]}", *args[1:])
    if type(kwargs.get("device")) is int:
        kwargs = {**kwargs, "device": f"cuda:{kwargs['device']}"}
    named = [value for value in (*args, kwargs.get("device")) if _names_an_accelerator(value)]
    if not named:
        return args, kwargs, ""
    args = tuple("cpu" if _names_an_accelerator(value) else value for value in args)
    kwargs = {key: ("cpu" if _names_an_accelerator(value) else value) for key, value in kwargs.items()}
    return args, kwargs, repr(str(named[0]))


def _device_or_cpu(value: Any) -> Any:
    """The device where `.to(...)` takes one, for a device the run could not make: one of a package that
    is not installed (`device = torch_directml.device()`, `xm.xla_device()`), or a name whose statement
    failed on what stood in (`device`): the code runs on the verification device, the CPU."""
    if not isinstance(value, AbsentName):
        return value
    name = object.__getattribute__(value, "_qualified_name")
    if "device" not in name.lower():
        return value
    on_use = object.__getattribute__(value, "_on_use")
    if on_use is not None:
        on_use()  # the statement's failure stops nothing: said below instead
    _log.add(f"{name if name.startswith('`') else f'`{name}`'}, a device the run could not make, stood for the CPU, "
             f"the verification device")
    return "cpu"


# Accelerators code is written for: CUDA, and Apple's Metal (`torch.device("mps")`, a Mac user's notebook).
ACCELERATORS = ("cuda", "mps")
MAX_SIBLINGS = 50
MAX_SIBLING_BYTES = 200_000


def _folder_names_an_accelerator(path: str) -> bool:
    """Does a module beside the flagged file name the GPU (`device = "cuda"` in the `config.py` its script
    imports)? Read as text, the first MAX_SIBLINGS modules of the folder, each up to MAX_SIBLING_BYTES."""
    folder = os.path.dirname(os.path.abspath(path)) if path else ""
    try:
        siblings = sorted(name for name in os.listdir(folder) if name.endswith(".py"))[:MAX_SIBLINGS] if folder else []
    except OSError:
        return False
    for name in siblings:
        try:
            with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as file:
                text = file.read(MAX_SIBLING_BYTES)
        except OSError:
            continue
        if any(accelerator in text for accelerator in ACCELERATORS):
            return True
    return False


def _names_an_accelerator(value: Any) -> bool:
    return (isinstance(value, str) and value.startswith(ACCELERATORS)) or \
        (isinstance(value, _REAL_DEVICE) and value.type in ACCELERATORS)


_REAL_DEVICE = torch.device


class _DeviceType(type):
    """`isinstance(x, torch.device)` keeps working once `torch.device` is _GpuNamingDevice."""

    def __instancecheck__(cls, value: Any) -> bool:
        return isinstance(value, _REAL_DEVICE)

    def __call__(cls, *args, **kwargs):
        if len(args) == 1 and not kwargs and type(args[0]) is int:
            # `torch.device(0)` asks for the current accelerator and raises on a machine without one,
            # often as a default argument (`device=torch.device(0)`), so at import. The device it
            # names: `.cuda()` and `.to()` of it are what the code does with it.
            _log.add(f"`torch.device({args[0]})` named the GPU `cuda:{args[0]}`, whose work ran on the CPU")
            return _REAL_DEVICE("cuda", args[0])
        return _REAL_DEVICE(*args, **kwargs)


class _GpuNamingDevice(metaclass=_DeviceType):
    """Stands for `torch.device` while code written for a GPU runs on the CPU (see cuda_on_cpu)."""


# What a script's positional command-line argument reads as, by how the code converts it.
ARGUMENT_VALUES = {"int": "8", "float": "0.1"}
TEXT_ARGUMENT = "arg"


class ScriptArguments(list):
    """`sys.argv` of a script that reads its positional arguments (`hidden = int(sys.argv[1])`): the
    values `script_arguments` chose, each named in the evidence when the code reads it."""

    def __getitem__(self, index):
        if isinstance(index, slice) or index != 0:
            program, *values = list(self)  # (iterating a list does not call __getitem__)
            shown = ", ".join(f"`sys.argv[{i}]` = {value!r}" for i, value in enumerate(values, 1))
            _log.add(f"the script reads its command-line arguments, and ran as `python {os.path.basename(program)} "
                     f"{' '.join(values)}` ({shown})")
        return super().__getitem__(index)


def script_arguments(source: str, path: str) -> list:
    """`sys.argv` as `python script.py` gives it, or, for a script that reads positional arguments by
    index (`int(sys.argv[1])`, `open(sys.argv[2])`) and has no argparse parser to give them defaults,
    one value for each index it reads: "8" where every read converts it with `int()`, "0.1" with
    `float()`, else "arg1", "arg2" (a path under that name is then not there, or not read)."""
    if "argv" not in source or "argparse" in source:
        return [path]
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return [path]
    conversions: dict = {}  # index -> the conversions its reads go through ("" for none)
    converted = {id(node.args[0]): node.func.id for node in ast.walk(tree)
                 if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ARGUMENT_VALUES
                 and len(node.args) == 1}
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and _is_argv(node.value) and isinstance(node.slice, ast.Constant) \
                and isinstance(node.slice.value, int) and not isinstance(node.slice.value, bool) \
                and 1 <= node.slice.value <= 9:
            conversions.setdefault(node.slice.value, set()).add(converted.get(id(node), ""))
    if not conversions:
        return [path]
    values = []
    for index in range(1, max(conversions) + 1):
        ways = conversions.get(index, {""})
        values.append(ARGUMENT_VALUES[next(iter(ways))] if len(ways) == 1 and "" not in ways
                      else f"{TEXT_ARGUMENT}{index}")
    return ScriptArguments([path, *values])


def _is_argv(node: ast.expr) -> bool:
    """`sys.argv`, or `argv` (imported from sys)."""
    return (isinstance(node, ast.Attribute) and node.attr == "argv" and isinstance(node.value, ast.Name)
            and node.value.id == "sys") or (isinstance(node, ast.Name) and node.id == "argv")


def fill_required_options() -> None:
    """Let a script's argparse parser parse as `python script.py` with no arguments would, but with a
    value for each option it requires (where it would exit with status 2), and for each number option
    with no default that the script never tests for None (it computes with what its user passes): the
    first of its choices, the first string the script compares it with, or the declared type's (1 for
    int, the stand-in batch size for an int batch size, 0.1 for float, "x" for str). The values are
    named in the evidence. An explicit argument list (`parser.parse_args([...])`) is parsed as it is."""
    import argparse

    if getattr(argparse.ArgumentParser.parse_known_args, "_torchcopylint", False):
        return
    original = argparse.ArgumentParser.parse_known_args

    def parse_known_args(self, args=None, namespace=None):
        if args is None:
            extra, shown = _required_values(self)
            if extra:
                args = extra + list(sys.argv[1:])
                _log.add(f"the script's argparse parser got its defaults, and values for the options it requires "
                         f"or gives none: {', '.join(shown)}")
            for option, values in _other_values(self).items():
                _log.options.setdefault(option, values)
            if _log.arguments and all(a in self._option_string_actions for a in _log.arguments[:1]):
                args = (args or list(sys.argv[1:])) + list(_log.arguments)
        return original(self, args, namespace)

    parse_known_args._torchcopylint = True
    argparse.ArgumentParser.parse_known_args = parse_known_args


def _other_values(parser) -> dict:
    """Option -> the argument lists that give it a value other than its default: each other choice
    (`--loss hinge`), the flag of a `store_true`/`store_false` option."""
    import argparse

    found: dict = {}
    for action in parser._actions:
        if not action.option_strings or action.required or isinstance(action, (argparse._HelpAction,
                                                                               argparse._VersionAction)):
            continue
        option = action.option_strings[-1]
        if action.choices and action.nargs in (None, "?"):
            found[option] = [[option, str(choice)] for choice in action.choices if choice != action.default]
        elif action.dest in _log.compared and action.nargs in (None, "?") and action.type in (None, str):
            # Each string the script compares it with, then one it compares with none (its `else:`).
            values = [value for value in _log.compared[action.dest] if value != action.default]
            found[option] = [[option, value] for value in values + [UNMATCHED_OPTION]]
        elif isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
            found[option] = [[option]]
        elif action.dest in _log.compared_numbers and action.nargs in (None, "?") and action.type in (int, float):
            # `if args.noise > 0:` with `--noise` 0.11 by default: the number compared with, and one past it.
            values = [action.type(value) for value in _log.compared_numbers[action.dest]
                      if action.type is float or float(value).is_integer()]
            found[option] = [[option, str(value)] for value in dict.fromkeys(values) if value != action.default]
        elif action.default is None and action.type in (int, float) and \
                (action.nargs in ("+", "*") or isinstance(action.nargs, int) and action.nargs > 1):
            # `--prior` of `nargs="+"` floats, no default: the script's `np.array(args.prior)` is None unless
            # given one. Two halves (a distribution over two), or ones for whole numbers.
            count = action.nargs if isinstance(action.nargs, int) else 2
            found[option] = [[option, *["0.5" if action.type is float else "1"] * count]]
    return found


UNMATCHED_OPTION = "other"  # a value none of the script's comparisons of an option match


def compared_options(text: str) -> dict:
    """Attribute -> the strings the script compares it with (`args.loss == "wasserstein"`,
    `opt.mode in ("a", "b")`): the values an option without declared choices is meant to take."""
    found: dict = {}
    for node in ast.walk(ast.parse(text)):
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1):
            continue
        left, right = node.left, node.comparators[0]
        if isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
            pairs = [(left, [right]), (right, [left])]
        elif isinstance(node.ops[0], (ast.In, ast.NotIn)) and isinstance(right, (ast.List, ast.Tuple, ast.Set)):
            pairs = [(left, right.elts)]
        else:
            continue
        for side, literals in pairs:
            if isinstance(side, ast.Attribute) and isinstance(side.value, ast.Name) and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in literals):
                values = found.setdefault(side.attr, [])
                values.extend(e.value for e in literals if e.value not in values)
    return found


def options_tested_for_none(text: str) -> frozenset:
    """The attributes and keys the script tests for None or for truth (`args.seed is None`,
    `opt["resume"] is not None`, `if args.max_steps:`, `args.limit or n`): options whose None it handles."""
    found = set()
    tree = ast.parse(text)
    tested = [node.test for node in ast.walk(tree) if isinstance(node, (ast.If, ast.While, ast.IfExp))]
    tested += [value for node in ast.walk(tree) if isinstance(node, ast.BoolOp) for value in node.values]
    tested += [side for node in ast.walk(tree) if isinstance(node, ast.Compare) and any(
        isinstance(other, ast.Constant) and other.value is None for other in (node.left, *node.comparators))
        for side in (node.left, *node.comparators)]
    for node in tested:
        node = node.operand if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) else node
        if isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            found.add(node.slice.value)
    return frozenset(found)


def compared_numbers(text: str) -> dict:
    """Attribute -> the numbers the script compares it with by order or equality (`args.noise > 0`,
    `opt.epoch >= 10`), each with the next integer: one value on each side of the comparison."""
    found: dict = {}
    for node in ast.walk(ast.parse(text)):
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(
                node.ops[0], (ast.Gt, ast.GtE, ast.Lt, ast.LtE, ast.Eq, ast.NotEq))):
            continue
        for side, other in ((node.left, node.comparators[0]), (node.comparators[0], node.left)):
            if isinstance(side, ast.Attribute) and isinstance(side.value, ast.Name) and isinstance(other, ast.Constant) \
                    and type(other.value) in (int, float):
                values = found.setdefault(side.attr, [])
                values.extend(value for value in (other.value, other.value + 1) if value not in values)
    return found


def next_option_values() -> bool:
    """Set the arguments of the next run of the script: an option at another of its values, one at a
    time, none tried before. False when there is none left."""
    # `if opts.use_diffaug:` around the flagged line: `--use_diffaug` first, then the others in order.
    ordered = sorted(_log.options.items(), key=lambda item: item[0].lstrip("-").replace("-", "_") not in _log.guards)
    for option, candidates in ordered:
        for arguments in candidates:
            if tuple(arguments) not in _log.tried:
                _log.tried.add(tuple(arguments))
                _log.arguments = list(arguments)
                return True
    _log.arguments = []
    return False


def flipped_switch(text: str, line: int) -> Optional[tuple[str, str]]:
    """The script with the switch of a top-level `if flag:` (or `if not flag:`) that holds `line` set
    the other way where the script last sets it (`flag = False` -> `flag = True`, `0` -> `1`), and
    what was done; None when no such switch guards the line."""
    tree = ast.parse(text)
    for index, node in enumerate(tree.body):
        if not (isinstance(node, ast.If) and node.lineno < line <= (node.end_lineno or node.lineno)):
            continue
        test = node.test.operand if isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not) \
            else node.test
        if asks_whether_a_file_exists(test):
            # `if not os.path.exists(MODEL_PATH): <train> else: <load>`, a checkpoint the repository
            # holds: the branch that holds the line runs, as it does on a first run.
            taken = any(child.lineno <= line <= (child.end_lineno or child.lineno) for child in node.body)
            flipped = replace_nodes(text, [(node.test, repr(taken))])
            return flipped, (f"the script ran its branch of `if {ast.unparse(node.test)}:` at line {node.lineno} "
                             f"that holds the flagged line, as on a run where the file "
                             f"{'is' if taken == (test is node.test) else 'is not'} there")
        if not isinstance(test, ast.Name):
            return None
        setting = next((earlier for earlier in reversed(tree.body[:index]) if isinstance(earlier, ast.Assign)
                        and any(isinstance(t, ast.Name) and t.id == test.id for t in earlier.targets)), None)
        if setting is None or not (isinstance(setting.value, ast.Constant) and setting.value.value in (True, False)):
            return None
        value = setting.value.value
        other = (not value) if isinstance(value, bool) else int(not value)
        flipped = replace_nodes(text, [(setting.value, repr(other))])
        return flipped, (f"the script ran with `{test.id} = {other!r}` at line {setting.lineno} (it sets {value!r}; the "
                         f"flagged line is under `if {ast.unparse(node.test)}:` at line {node.lineno})")
    return None


# Questions whether a file or folder is there (`os.path.exists(root)`, `Path(root).is_dir()`): a checkpoint
# that decides whether a script trains or loads, or the data a check stops the program without.
FILE_QUESTIONS = frozenset({"exists", "isdir", "isfile", "is_dir", "is_file"})


def asks_whether_a_file_exists(test: ast.expr) -> bool:
    """`os.path.exists(path)`, `os.path.isdir(root)`, `Path(path).exists()`, `path.is_file()`."""
    return isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr in FILE_QUESTIONS


def _note_arguments() -> None:
    """The evidence names the arguments of the run that counts (the last), not those tried before it."""
    _log.ran_with = f"the script ran with `{' '.join(_log.arguments)}` (its default does not reach the flagged " \
                    f"line)" if _log.arguments else ""


def _required_values(parser) -> tuple[list, list]:
    """(arguments, how each is shown) that satisfy the parser's required options and positionals."""
    import argparse

    positional, options, shown = [], [], []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            continue
        if isinstance(action, argparse._SubParsersAction):
            if action.required and action.choices:
                name = next(iter(action.choices))
                inner, inner_shown = _required_values(action.choices[name])
                positional += [name, *inner]
                shown += [f"the command `{name}`", *inner_shown]
            continue
        if action.option_strings and not action.required:
            if action.dest == "device" and action.default is None and action.type in (None, str) \
                    and action.nargs in (None, "?") and not action.choices:
                # `--device` with no default (`torch.device(args.device)` fails on None): the CPU, where
                # the experiments run.
                options += [action.option_strings[-1], "cpu"]
                shown.append(f"`{action.option_strings[-1]} cpu`")
            elif action.default is None and action.type in (int, float) and action.nargs is None \
                    and not action.choices and action.dest not in _log.none_tested:
                # `--n_epochs` of type int with no default, which the script computes with and never tests
                # for None: its user always passes one (the run would fail on None), so a number stands in.
                value = _value_for(action)
                options += [action.option_strings[-1], value]
                shown.append(f"`{action.option_strings[-1]} {value}`")
            continue
        if not action.option_strings and action.nargs in ("?", "*", argparse.REMAINDER):
            continue
        count = action.nargs if isinstance(action, argparse.Action) and isinstance(action.nargs, int) else 1
        values = [] if action.nargs == 0 else [_value_for(action)] * max(count, 1)
        if action.option_strings:
            options += [action.option_strings[-1], *values]
            shown.append(f"`{' '.join([action.option_strings[-1], *values])}`")
        else:
            positional += values
            shown.append(f"`{action.dest}` = `{' '.join(values)}`")
    return positional + options, shown


def _value_for(action) -> str:
    if action.choices:
        return str(next(iter(action.choices)))
    kind = action.type
    if (kind is None or kind is str) and _log.compared.get(action.dest):
        # `if args.dataset == "MNIST": n_z = 62 ...`: a value the script knows, so its branches bind their names.
        return _log.compared[action.dest][0]
    if kind is None or kind is str:
        return "x"
    if kind is int:
        # A batch of one trips BatchNorm in training ("Expected more than 1 value per channel"); the
        # stand-in loaders' batch size keeps the batches the code makes the size of the ones it loads.
        return str(SMALL_BATCH) if "batch" in action.dest.lower() else "1"
    if kind is float:
        return "0.1"
    for candidate in ("1", "0.1", "x"):
        try:
            kind(candidate)
            return candidate
        except Exception:  # noqa: BLE001 - a converter of the script's own: try the next
            continue
    return "x"


# ------------------------------------------------------------------------------ the top level


def run_top_level(source: str, path: str, claim: list[int], code: str, execute: Callable,
                  probe: Optional[LineProbe] = None) -> dict:
    """Run the flagged top-level statement of `source` after its backward slice, on stand-in data,
    its loops limited; the module's namespace afterwards. A run that fails before any line the
    experiment watches ran, having used stand-in data, is tried again with the data's next shape."""
    rewritten, limited = _top_level_text(source, tuple(claim))
    flagged = claim[0]
    probe = probe if probe is not None else LineProbe(path)
    watched = set(probe.before) | set(probe.after)
    passes = Passes()
    start = statement_start(limited.text, flagged)
    # The claim's later lines (the backward after an inner loop of generator steps): a pass is over
    # once they ran, not at the flagged line's next start within the same outer iteration.
    later = [statement_start(limited.text, line) for line in claim[1:] if line > flagged]

    def guard(frame):
        if not passes.started(frame):
            return
        if passes.count > PASSES.get(code, 1) and all(probe.executed.get(line) for line in later):
            _log.add(f"the run stopped where line {start} was to start a pass more than the claim needs "
                     f"({PASSES.get(code, 1)})")
            raise LoopLimit()

    probe.on_before(start, guard)  # after the experiment's own callbacks: they decide first
    _log.compared = compared_options(source)
    _log.compared_numbers = compared_numbers(source)
    _log.none_tested = options_tested_for_none(source)
    choice, full_batches, learned, pair_scale, two_classes = 0, False, _learned, _pair_scale, _two_classes
    column_labels = _column_labels
    small_batch = SMALL_BATCH
    resized, long_loaders = _resized, _long_loaders
    errors: list[str] = []
    text = limited.text
    passed_writes: frozenset = frozenset()
    unbuilt: frozenset = frozenset()  # first lines of assignments that failed on stand-ins (_unbuilt)
    attempt = 0
    while attempt < MAX_ATTEMPTS:
        last = attempt == MAX_ATTEMPTS - 1
        attempt += 1
        plan = DataPlan(rewritten.sites, choice, limited.loops, flagged, full_batches, learned, pair_scale,
                        two_classes, resized, runtime_layout=rewritten.runtime_layout, long_loaders=long_loaders,
                        watched=frozenset(watched), small_batch=small_batch, column_labels=column_labels)
        passes.reset()
        probe.restart()
        namespace: Optional[dict] = None
        seed()
        try:
            namespace = execute(text, path, probe, helpers={**plan.helpers(), FAILED_HELPER: _passed_write,
                                                            UNBUILT_HELPER: _unbuilt, ABSENT_HELPER: AbsentPackageUsed,
                                                            **notebook_globals(source)},
                                plan=plan, tolerant=passed_writes, unbuilt=unbuilt)
        except StopRun:
            _record(plan, plan.namespace)
            _note_arguments()
            raise
        except (AbsentPackageUsed, Exception) as error:
            failed = _unbuilt_by_stand_ins(error, path, text, start)
            if failed is not None and failed not in unbuilt and len(unbuilt) < MAX_PASSED_WRITES:
                # An earlier assignment of the slice failed on what stood in: the run goes on past it, its
                # names standing for what it makes. Not an attempt of its own.
                unbuilt |= {failed}
                attempt -= 1
                continue
            if not isinstance(error, Exception):
                # A package the default path needs (`pyvacy` under `if args.noise > 0:`), missing: the
                # flagged line may sit on the path another value of an option selects, which may not need
                # it (so for any other error before the claim, below).
                if not any(probe.executed.get(line) for line in watched) and not last and next_option_values():
                    continue
                raise
            refused = _refused_write(error, path, text, start)
            if refused is not None and refused not in passed_writes and len(passed_writes) < MAX_PASSED_WRITES:
                # An earlier statement of the slice (a notebook cell's first of several writes to a
                # parameter) raised as it refused an in-place write to a leaf: it wrote nothing, and
                # the run goes on past it to the flagged line. Not an attempt of its own.
                passed_writes |= {refused}
                attempt -= 1
                continue
            errors.append(f"{type(error).__name__}: {str(error).splitlines()[0][:120] if str(error) else ''}")
            before_claim = not any(probe.executed.get(line) for line in watched)
            if plan.reshaped_to_asked_size(error) and not full_batches and not last:
                # `X_test.view(500, -1)` of a test batch cut to 4: the size the code asks for (also after the
                # flagged line ran: an accumulation over epochs needs the test loop after it to pass).
                full_batches = True
                continue
            shape = plan.learn(error)
            if shape is not None and (before_claim or not last):
                # A reshape of a stand-in batch: shape the data for it (also after the flagged line ran:
                # a claim over several passes needs the run to go on past a later reshape, a test loop's).
                choice, full_batches, learned = 0, False, (shape, *learned)
                continue
            scale = plan.learn_pair_scale(error)
            if scale is not None and before_claim and not last:  # a super-resolution pair: its target larger
                pair_scale = scale
                continue
            side = plan.learn_side(error)
            if side is not None and side not in resized and before_claim and not last:
                choice, full_batches, resized = 0, False, (side, *resized)
                continue
            if plan.needs_fewer_classes(error) and before_claim and not last:
                two_classes = True
                continue
            if plan.needs_column_labels(error) and before_claim and not last:
                column_labels = True
                continue
            if plan.needs_long_loaders(error) and before_claim and not last:
                long_loaders = True
                continue
            larger = plan.larger_small_batch(error)
            if larger is not None and not full_batches and not last:
                # `plot(fake[idx]) for idx in range(8)`: batches of that many, not the code's full size
                small_batch = larger
                continue
            # Small batches first, then the size the code asks for (its noise may be sized by a constant);
            # then the next sample shape.
            choice, full_batches = (choice, True) if plan.cut and not full_batches else (choice + 1, False)
            retry = plan.used and choice < plan.candidate_count and before_claim and not last
            if not retry and before_claim and not last and next_option_values():
                continue  # the default path failed before the claim: another value of an option may avoid it
            if not retry:
                _record(plan, plan.namespace)
                raise
            continue
        finally:
            plan.forget_modules()  # the next attempt's loaders are made for it
        if not probe.executed.get(start) and plan.cut and not full_batches and not last:
            # The script skipped every stand-in batch smaller than the size it asks for
            # (`if x.size(0) != batch_size: continue`): the size it asks for.
            full_batches = True
            continue
        if not probe.executed.get(start) and not last and next_option_values():
            # The flagged line sits on a path an option selects (`if args.loss == "hinge":`).
            continue
        if not probe.executed.get(start) and not last and text == limited.text:
            flipped = flipped_switch(text, flagged)
            if flipped is not None:  # a tutorial's `flag = False` / `if flag:` around the flagged line
                text, switch = flipped
                _log.add(switch)
                continue
        _note_arguments()
        _record(plan, namespace)
        return namespace
    # Not reached: the last attempt raises or returns.
    raise CannotRun(f"no stand-in data fitted the script ({'; '.join(dict.fromkeys(errors))[:300]})")


def _refused_write(error: BaseException, path: str, text: str, flagged_start: int) -> Optional[int]:
    """The first line of the top-level statement that raised `error`, when it ends before the flagged
    line and the error is PyTorch refusing an in-place write to a leaf (which writes nothing); None otherwise."""
    if not any(message in str(error) for message in LEAF_ERRORS):
        return None
    statement = _failed_statement(error, path, text, flagged_start)
    return statement.lineno if statement is not None else None


def _unbuilt_by_stand_ins(error: BaseException, path: str, text: str, flagged_start: int) -> Optional[int]:
    """The first line of the module-level assignment that raised `error`, when it ends before the
    flagged line, binds names only, and failed on what stood in (an absent package used, a stand-in
    network or backbone without what the real one has: `model = InceptionV3(...)` for a FID the step
    never needs) or on the user's data, which is never read and may not be here at all
    (`train_data, test_data = load_pickled_data(ABSOLUTE_PATH)`); None otherwise. Its names then
    stand for what it makes, a value whose first use stops the run (`_unbuilt`)."""
    if isinstance(error, UnknownArgumentUsed) or "UnreadData" in str(error) \
            or not (isinstance(error, AbsentPackageUsed) or STAND_IN_FAILURE.search(str(error))
                    or _data_not_here(error)):
        return None
    statement = _failed_statement(error, path, text, flagged_start)
    if not isinstance(statement, ast.Assign) or not _assigned_names(statement):
        return None
    return statement.lineno


def _data_not_here(error: BaseException) -> bool:
    """Did the code fail on reading a file: the user's data, which --verify never reads, or a file of
    the author's machine (an absolute path) that is not here?"""
    return isinstance(error, (sandbox.UserDataRead, FileNotFoundError))


def _failed_statement(error: BaseException, path: str, text: str, flagged_start: int) -> Optional[ast.stmt]:
    """The innermost module-level statement of `text` (one of the top level or of the blocks of its
    `if`, `with`, `for` and `try`, never one in a function or class) that raised `error`, when it ends
    before the flagged line."""
    line = None
    trace = error.__traceback__
    while trace is not None:
        if trace.tb_frame.f_code.co_filename == path and trace.tb_frame.f_code.co_name == "<module>":
            line = trace.tb_lineno
        trace = trace.tb_next
    if line is None:
        return None
    statement = None
    body = ast.parse(text).body
    while body:
        inner = next((node for node in body if node.lineno <= line <= (node.end_lineno or node.lineno)), None)
        if inner is None:
            break  # the line is the header of `statement` (`if load(path):`)
        statement = inner
        body = [node for block in _module_blocks(statement) for node in block]
    return statement if statement is not None and (statement.end_lineno or line) < flagged_start else None


def _module_blocks(statement: ast.stmt) -> list[list[ast.stmt]]:
    """The blocks of statements a compound statement runs in the module's own frame (none for a
    function or class)."""
    if isinstance(statement, ast.Try):
        return [statement.body, *(handler.body for handler in statement.handlers), statement.orelse,
                statement.finalbody]
    if isinstance(statement, (ast.If, ast.For, ast.AsyncFor, ast.While)):
        return [statement.body, statement.orelse]
    if isinstance(statement, (ast.With, ast.AsyncWith)):
        return [statement.body]
    return []


def _assigned_names(statement: ast.Assign) -> list[str]:
    """The names `a = b = ...` or `a, b = ...` binds; empty when a target is anything else."""
    names: list[str] = []
    for target in statement.targets:
        for element in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
            if not isinstance(element, ast.Name):
                return []
            names.append(element.id)
    return names


def _unbuilt(line: int, names: str, error: BaseException) -> AbsentName:
    """What the names of an assignment that failed on stand-ins stand for: a use raises the statement's
    own failure, as the run would have there (and the evidence then says nothing of it standing in)."""
    why = f"{type(error).__name__}: {str(error).splitlines()[0][:120] if str(error) else ''}"
    failed_on = "data that is not read" if _data_not_here(error) else "what stood in"
    text = (f"the statement at line {line} failed on {failed_on} ({why}): {names} stood for what it makes, "
            f"a value whose first use stops the run")
    _log.add(text)
    unbuilt = AbsentName(names)
    object.__setattr__(unbuilt, "_said", f"needs {names}, which the statement at line {line} could not make")
    object.__setattr__(unbuilt, "_failure", error)
    object.__setattr__(unbuilt, "_on_use", lambda: _log.discard(text))
    return unbuilt


def _passed_write(line: int, error: BaseException) -> None:
    if line not in _log.passed_writes:
        _log.passed_writes.append(line)


def _passed_writes_text() -> str:
    lines = _log.passed_writes
    if not lines:
        return ""
    where = ", ".join(f"line {line}" for line in lines)  # each `line N`: a notebook's evidence names its cell
    return (f"the statement{'s' if len(lines) > 1 else ''} at {where}, before the flagged one, raised as PyTorch "
            f"refused {'their' if len(lines) > 1 else 'its'} in-place write to a leaf (nothing was written): the run "
            f"went on past {'them' if len(lines) > 1 else 'it'}")


@functools.lru_cache(maxsize=32)
def _top_level_text(source: str, claim: tuple):
    """The data rewrite of the file, and the flagged statement's slice of it with its loops limited."""
    rewritten = rewrite_data(source)
    sliced = module_level_slice(rewritten.text, list(claim))
    if sliced is None:
        raise CannotRun("the flagged line is in no top-level statement")
    return rewritten, limit_loops(sliced, claim[0])


def seed() -> None:
    """The same random numbers in every run (as written, as fixed, each attempt): what the script
    builds at the top level is drawn from them, and a seed it sets may be outside the slice."""
    torch.manual_seed(0)
    random.seed(0)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(0)


class Passes:
    """How many times a statement has started in the module's frame. A statement over several lines
    (`loss = a(x) + \\` / `b(y)`) fires its first line again as it evaluates (Python reports the line
    of each instruction): that is the same pass, whose instructions come after the pass's first one;
    a loop's next pass starts at or before it."""

    def __init__(self) -> None:
        self.count = 0
        self._first_instruction: Optional[int] = None

    def started(self, frame) -> bool:
        """Called at the statement's first line: True when this is a new pass (then counted)."""
        if _nested_code(frame):
            return False  # a comprehension or lambda on the line runs in a frame of its own
        if self._first_instruction is not None and frame.f_lasti > self._first_instruction:
            return False
        self._first_instruction = frame.f_lasti
        self.count += 1
        return True

    def reset(self) -> None:
        self.count, self._first_instruction = 0, None


def _nested_code(frame) -> bool:
    """A frame of a comprehension, lambda or generator expression (on the line of its statement)."""
    name = frame.f_code.co_name
    return name.startswith("<") and name != "<module>"


def statement_start(text: str, line: int) -> int:
    """The first line of the innermost statement holding `line` (where a line event fires)."""
    best = None
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.stmt) and node.lineno <= line <= (node.end_lineno or node.lineno):
            if best is None or node.lineno >= best.lineno:
                best = node
    return best.lineno if best is not None else line


# ------------------------------------------------------------------------------ a function's globals

# What a script cut from a notebook reads without binding it, because an earlier cell (or a file it was
# split from) did: the usual aliases of torch and NumPy, and the device such a cell picks.
NOTEBOOK_MODULES = {"torch": "torch", "nn": "torch.nn", "F": "torch.nn.functional", "optim": "torch.optim",
                    "np": "numpy"}
NOTEBOOK_DEVICES = DEVICE_NAMES | {"DEVICE"}


def notebook_globals(source: str) -> dict:
    """Values for the names of NOTEBOOK_MODULES and NOTEBOOK_DEVICES that `source` reads and binds
    nowhere (no assignment, import or definition, no `import *`): the module under its alias, and the
    device `torch.device("cuda" if torch.cuda.is_available() else "cpu")` gives here, the verification
    device. The evidence names each."""
    missing = names_bound_nowhere(source)
    found: dict = {}
    for name in sorted(missing & set(NOTEBOOK_MODULES)):
        found[name] = __import__(NOTEBOOK_MODULES[name], fromlist=["_"])
        _log.add(f"`{name}` is read but bound nowhere in the file (a notebook's earlier cell?): "
                 f"`{NOTEBOOK_MODULES[name]}` stood in")
    for name in sorted(missing & NOTEBOOK_DEVICES):
        found[name] = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        _log.add(f"`{name}` is read but bound nowhere in the file (a notebook's earlier cell?): "
                 f"`torch.device({found[name].type!r})`, the verification device, stood in")
    for name, (statement, read_at) in sorted(imported_after_use(source).items()):
        namespace: dict = {}
        try:
            exec(compile(ast.Module([statement], []), "<import>", "exec"), namespace)
        except Exception:  # noqa: BLE001 - a package that is not installed: its own stand-in, later
            continue
        if name in namespace:
            found[name] = namespace[name]
            _log.add(f"`{name}` is read at line {read_at} before the import at line {statement.lineno} binds it "
                     f"(a notebook whose cells ran out of order): imported first")
    for name, (value, line, read_at) in sorted(set_after_use(source).items()):
        if name not in found:
            found[name] = value
            _log.add(f"`{name}` is read at line {read_at} before line {line} sets it to {value!r} (a notebook "
                     f"whose cells ran out of order): that value first")
    return found


@functools.lru_cache(maxsize=64)
def set_after_use(source: str) -> dict:
    """Names the module's top level reads before the only top-level statement that binds them, a
    constant (`z_sample = torch.randn(n_output, z_dim)` in one cell, `n_output = 1000` in a later
    one): name -> (the constant, its line, the line of the first read)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    first_read = _first_top_level_reads(tree)
    bindings: dict[str, list] = {}
    for statement in tree.body:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                bindings.setdefault(node.id, []).append(statement)
    found: dict = {}
    for name, statements in bindings.items():
        statement = statements[0]
        if len(statements) != 1 or not isinstance(statement, ast.Assign) or len(statement.targets) != 1 \
                or not isinstance(statement.targets[0], ast.Name) or \
                first_read.get(name, statement.lineno) >= statement.lineno:
            continue
        try:
            value = ast.literal_eval(statement.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            if name not in NOTEBOOK_DEVICES or not _picks_a_device(statement.value):
                continue
            # `device = torch.device("cuda" if torch.cuda.is_available() else "cpu")` in a later cell:
            # the device such a cell picks here, the verification device.
            value = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        found[name] = (value, statement.lineno, first_read[name])
    return found


def _picks_a_device(value: ast.expr) -> bool:
    """`torch.device(...)`, or a string naming a device by a test (`"cuda" if ... else "cpu"`)."""
    return isinstance(value, ast.Call) and ast.unparse(value.func) in ("torch.device", "device") or \
        isinstance(value, ast.IfExp) and all(isinstance(branch, ast.Constant) and branch.value in ("cuda", "cpu", "mps")
                                             for branch in (value.body, value.orelse))


def _first_top_level_reads(tree: ast.Module) -> dict[str, int]:
    """The line of each name's first read by the module's own code: not inside its functions, but
    what a definition evaluates as it runs (a default, `def __init__(self, z_dim=z_dim)`, a decorator,
    a class's bases and body)."""
    first_read: dict[str, int] = {}
    pending = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            arguments = node.args
            pending.extend([*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None),
                            *getattr(node, "decorator_list", [])])
            continue
        if isinstance(node, ast.ClassDef):
            pending.extend([*node.bases, *(keyword.value for keyword in node.keywords), *node.decorator_list,
                            *node.body])
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            first_read[node.id] = min(first_read.get(node.id, node.lineno), node.lineno)
        pending.extend(ast.iter_child_nodes(node))
    return first_read


@functools.lru_cache(maxsize=64)
def imported_after_use(source: str) -> dict:
    """Names the module's own code reads before the top-level import that binds them (a notebook's first
    cell uses `torch`, imported by its third): name -> (that import, alone; the line of the first read)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    first_read = _first_top_level_reads(tree)
    found: dict = {}
    for statement in tree.body:
        if not isinstance(statement, (ast.Import, ast.ImportFrom)) or \
                isinstance(statement, ast.ImportFrom) and (statement.level or statement.module == "__future__"):
            continue
        for alias in statement.names:
            name = alias.asname or alias.name.split(".")[0]
            if alias.name != "*" and first_read.get(name, statement.lineno) < statement.lineno and name not in found:
                alone = (ast.Import([alias]) if isinstance(statement, ast.Import)
                         else ast.ImportFrom(statement.module, [alias], 0))
                found[name] = (ast.fix_missing_locations(ast.copy_location(alone, statement)), first_read[name])
    return found


@functools.lru_cache(maxsize=64)
def names_bound_nowhere(source: str) -> frozenset:
    """The global names the code reads that no statement of it binds (none, when it imports `*`)."""
    if "import *" in source:
        return frozenset()
    try:
        table = symtable.symtable(source, "<source>", "exec")
    except SyntaxError:
        return frozenset()
    top = table.get_symbols()
    bound = {symbol.get_name() for symbol in top if symbol.is_assigned() or symbol.is_imported()}
    bound |= _globals_assigned(table)
    read = {symbol.get_name() for symbol in top if symbol.is_referenced()} | _globals_read(table)
    return frozenset(read - bound - _BUILTINS)


@functools.lru_cache(maxsize=64)
def globals_only_functions_bind(source: str, root: str) -> tuple[str, ...]:
    """The module-level names `root` (a function or a class of the file) reads that only functions of
    the file bind, through `global args` (`main()` parses the options into a global the training
    functions read): the experiment never runs those functions, so it stands the names in from use."""
    try:
        table = symtable.symtable(source, "<source>", "exec")
    except SyntaxError:
        return ()
    scopes = {child.get_name(): child for child in table.get_children()}
    if root not in scopes:
        return ()
    bound_at_top = {symbol.get_name() for symbol in table.get_symbols() if symbol.is_assigned() or symbol.is_imported()}
    return tuple(sorted((_globals_read(scopes[root]) & _globals_assigned(table)) - bound_at_top))


@functools.lru_cache(maxsize=64)
def globals_read_by(source: str, root: str) -> frozenset:
    """The module-level names `root` (a function or a class of the file) reads."""
    try:
        table = symtable.symtable(source, "<source>", "exec")
    except SyntaxError:
        return frozenset()
    scopes = {child.get_name(): child for child in table.get_children()}
    return frozenset(_globals_read(scopes[root])) if root in scopes else frozenset()


def _globals_assigned(table: symtable.SymbolTable) -> set[str]:
    """The names the functions under `table` bind at module level through `global name`."""
    found = set()
    for child in table.get_children():
        found |= {symbol.get_name() for symbol in child.get_symbols()
                  if symbol.is_declared_global() and symbol.is_assigned()}
        found |= _globals_assigned(child)
    return found


@dataclass(frozen=True)
class FunctionText:
    text: str
    tolerant: frozenset  # first lines of the module-level statements a failure of which is skipped
    sites: tuple
    runtime_layout: Any = None  # verify/datasites.py Rewritten.runtime_layout


@functools.lru_cache(maxsize=64)
def function_text(source: str, roots: frozenset, reads: frozenset = frozenset(),
                  avoided: frozenset = frozenset(), built: frozenset = frozenset()) -> FunctionText:
    """The snippet for `roots` (their definitions and imports) with the module-level statements that
    bind the names they read, and the names in `reads` (what a top-level call of the function passes
    it, verify/topcalls.py), transitively, on stand-in data; line numbers kept. A statement that calls
    a name of `avoided` (another module's function that trains), or a root, is never carried; but one
    that builds a network of a root class in `built` is (`model = to_device(ResNet9(3, 3), device)`,
    the network a top-level call passes the flagged function)."""
    rewritten = rewrite_data(source)
    text = rewritten.text
    try:
        tree = ast.parse(text)
        table = symtable.symtable(text, "<snippet>", "exec")
    except SyntaxError:
        return FunctionText(snippet_source(source, set(roots) | set(reads)), frozenset(), tuple(rewritten.sites),
                            rewritten.runtime_layout)
    statements = _module_statements(tree)
    definitions = {node.name: node for node in tree.body
                   if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    training = _training_functions(definitions)
    avoided = (set(roots) - set(built)) | training | set(avoided)
    training_methods = _training_methods(definitions)
    candidates = [node for node in statements if _may_carry(node, avoided, training_methods)]
    touched = {id(node): _binds(node) | changed for node, changed in zip(candidates, changed_names(candidates, tree.body))}
    scopes = {child.get_name(): child for child in table.get_children()}
    names = set(roots)
    kept: list[ast.stmt] = []
    while True:
        wanted = set(reads)
        for name in names:
            if name in scopes and name in definitions:
                wanted |= _globals_read(scopes[name]) | _read_where_defined(definitions[name])
        for node in kept:
            wanted |= {sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name)}
        wanted -= _BUILTINS
        added = [node for node in candidates if node not in kept and touched[id(node)] & wanted]
        grown = wanted - names
        names |= wanted
        kept += added
        if not added and not grown:
            break
    snippet_lines = snippet_source(text, names).splitlines(keepends=True)
    source_lines = text.splitlines(keepends=True)
    taken = {index for index, line in enumerate(snippet_lines) if line.strip()}
    tolerant = set()
    for node in sorted(kept, key=lambda n: n.lineno):
        span = range(node.lineno - 1, node.end_lineno or node.lineno)
        if any(index in taken for index in span):
            continue  # the snippet carries it already (a constant, an import fallback)
        tolerant.add(node.lineno)
        for index in span:
            line = source_lines[index]
            strip = min(node.col_offset, len(line) - len(line.lstrip(" \t")))
            snippet_lines[index] = line[strip:] or "\n"
    # An assignment the snippet carries as it is (`rest = num_samples - 1000`) that reads what a skipped
    # statement binds (`num_samples = len(train_dataset)`) fails when that one did: skipped the same way.
    maybe_unbound = set().union(*(_binds(node) for node in kept if node.lineno in tolerant))
    tolerant |= {node.lineno for node in statements
                 if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.lineno not in tolerant
                 and snippet_lines[node.lineno - 1].strip()
                 and {sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load)}
                 & maybe_unbound}
    return FunctionText("".join(snippet_lines), frozenset(tolerant), tuple(rewritten.sites), rewritten.runtime_layout)


def _module_statements(tree: ast.Module) -> list[ast.stmt]:
    """The top-level statements, with the bodies of main guards opened up."""
    found = []
    for node in tree.body:
        if is_main_guard(node):
            found.extend(node.body)
        else:
            found.append(node)
    return found


def _training_functions(definitions: dict) -> set[str]:
    """The file's functions that train (a backward, an optimizer step), and those that call one."""
    training = {name for name, node in definitions.items()
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _trains(node)}
    while True:
        more = {name for name, node in definitions.items() if name not in training
                and any(isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in training
                        for sub in ast.walk(node))}
        if not more:
            return training
        training |= more


def _training_methods(definitions: dict) -> set[str]:
    """The names of the file's classes' methods that train (a backward, an optimizer step)."""
    return {method.name for node in definitions.values() if isinstance(node, ast.ClassDef)
            for method in node.body if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and _trains(method)}


def _trains(definition: ast.AST) -> bool:
    """Does the definition's body backpropagate or step an optimizer?"""
    return any(isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute)
               and sub.func.attr in ("backward", "step") for sub in ast.walk(definition))


def _may_carry(node: ast.stmt, avoided: set[str], training_methods: set[str] = frozenset()) -> bool:
    """A module-level statement a function's experiment may run for the names it binds: no definition
    or import (the snippet has those), no loop, no call of the function itself or of a training function,
    nor of a method that trains on an object (`dcgan.train(trainloader, epoch=50)`, which would change
    the loader it is given)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
        return False
    for sub in ast.walk(node):
        if isinstance(sub, (ast.For, ast.AsyncFor, ast.While)) and not _sets_attributes_only(sub):
            return False
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in avoided:
            return False
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in ("input", "exit", "quit"):
            return False
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr in training_methods \
                and isinstance(sub.func.value, ast.Name):
            return False
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and (
                sub.func.attr in ("fit", "fit_generator") or
                (sub.func.attr == "train" and "trainer" in ast.unparse(sub.func.value).lower())):
            return False  # `trainer.fit(model)`: a whole training run, which changes the model it is given
    return True


def _sets_attributes_only(loop: ast.stmt) -> bool:
    """`for key, value in config["train"].items(): setattr(args, key, value)`: a `for` loop whose only calls
    are `setattr` and no loop inside: it reads a configuration into a namespace, and trains nothing."""
    if not isinstance(loop, ast.For):
        return False
    calls = [sub for body in loop.body for sub in ast.walk(body) if isinstance(sub, ast.Call)]
    return bool(calls) and all(
        isinstance(call.func, ast.Name) and call.func.id == "setattr" for call in calls) and not any(
        isinstance(sub, (ast.For, ast.AsyncFor, ast.While)) for body in loop.body for sub in ast.walk(body))


def _binds(node: ast.stmt) -> set[str]:
    """The module-level names a statement binds (not those of a lambda or comprehension inside it)."""
    names = set()
    pending: list[ast.AST] = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, ast.Name) and isinstance(current.ctx, ast.Store):
            names.add(current.id)
        if isinstance(current, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ListComp,
                                ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        pending.extend(ast.iter_child_nodes(current))
    return names


def _read_where_defined(definition: ast.AST) -> set[str]:
    """The names a definition reads as it runs at the top level, outside its body's scope: its
    decorators and its parameters' defaults (`def train_step(model, device=device)`)."""
    if isinstance(definition, ast.ClassDef):
        expressions = list(definition.decorator_list)
    else:
        arguments = definition.args
        expressions = [*definition.decorator_list, *arguments.defaults,
                       *(default for default in arguments.kw_defaults if default is not None)]
    return {sub.id for expression in expressions for sub in ast.walk(expression) if isinstance(sub, ast.Name)}


def _globals_read(table: symtable.SymbolTable) -> set[str]:
    found = {symbol.get_name() for symbol in table.get_symbols() if symbol.is_global() and symbol.is_referenced()}
    if table.get_type() == "class":
        found |= {symbol.get_name() for symbol in table.get_symbols()
                  if symbol.is_referenced() and not symbol.is_assigned() and not symbol.is_parameter()}
    for child in table.get_children():
        found |= _globals_read(child)
    return found


def load_function(source: str, path: str, roots: set, execute: Callable,
                  rewrite: Optional[Callable[[str], tuple]] = None, reads: frozenset = frozenset(),
                  avoided: frozenset = frozenset(), place: Optional[Callable[[int], str]] = None,
                  built: frozenset = frozenset()) -> Optional[dict]:
    """Execute the snippet for `roots` with the module-level names it reads (and those of `reads`); its
    namespace. `rewrite` (text -> (text, what it changed)) edits the snippet first, keeping its line
    numbers; None when it changed nothing. No statement that calls a name of `avoided` runs (nor a
    root, but for a class of `built`: function_text).
    `place`: for a file other than the flagged one, where its line N is (`main.py, line N`), for the
    evidence."""
    prepared = function_text(source, frozenset(roots), frozenset(reads), frozenset(avoided), frozenset(built))
    text = prepared.text
    if rewrite is not None:
        text, changed = rewrite(text)
        if not changed:
            return None
    plan = DataPlan(list(prepared.sites), _shape_choice, full_batches=_full_batches, learned=_learned,
                    pair_scale=_pair_scale, two_classes=_two_classes, resized=_resized,
                    runtime_layout=prepared.runtime_layout, long_loaders=_long_loaders, column_labels=_column_labels)
    plan.place = place
    _log.function_plans.append(plan)

    def failed(line: int, error: BaseException) -> None:
        _log.failed[line] = f"{type(error).__name__}: {str(error).splitlines()[0][:120] if str(error) else ''}"

    helpers = {**plan.helpers(), FAILED_HELPER: failed, **notebook_globals(source)}
    seed()
    _log.compared = compared_options(source)
    _log.compared_numbers = compared_numbers(source)
    _log.none_tested = options_tested_for_none(source)
    namespace = execute(text, path, None, helpers=helpers, plan=plan, tolerant=prepared.tolerant)
    _note_arguments()
    _record(plan, namespace)
    return namespace


def compile_tolerant(text: str, path: str, tolerant: frozenset, unbuilt: frozenset = frozenset()):
    """Compile `text`, each module-level statement (`_failed_statement`) starting on a `tolerant` line
    wrapped so that an exception in it is recorded (by `__tcl_failed__`) and the module goes on; an
    assignment starting on an `unbuilt` line, so that a failure (an absent package's too) binds its
    names to what `__tcl_unbuilt__` makes of it."""
    tree = ast.parse(text)
    tree.body = _tolerant_block(tree.body, tolerant, unbuilt)
    return compile(tree, path, "exec")


def _tolerant_block(body: list[ast.stmt], tolerant: frozenset, unbuilt: frozenset) -> list[ast.stmt]:
    wrapped_body = []
    for node in body:
        for block in _module_blocks(node):
            block[:] = _tolerant_block(block, tolerant, unbuilt)
        if node.lineno in unbuilt and isinstance(node, ast.Assign) and _assigned_names(node):
            names = _assigned_names(node)
            made = ast.Call(ast.Name(UNBUILT_HELPER, ast.Load()),
                            [ast.Constant(node.lineno), ast.Constant(", ".join(f"`{name}`" for name in names)),
                             ast.Name("__tcl_error__", ast.Load())], [])
            handler_body = [ast.Assign([ast.Name(name, ast.Store()) for name in names], made)]
            caught = ast.Tuple([ast.Name("Exception", ast.Load()), ast.Name(ABSENT_HELPER, ast.Load())], ast.Load())
        elif node.lineno in tolerant:
            handler_body = [ast.Expr(ast.Call(ast.Name(FAILED_HELPER, ast.Load()),
                                              [ast.Constant(node.lineno), ast.Name("__tcl_error__", ast.Load())], []))]
            caught = ast.Name("Exception", ast.Load())
        else:
            wrapped_body.append(node)
            continue
        wrapped = ast.Try(body=[node], handlers=[ast.ExceptHandler(caught, "__tcl_error__", handler_body)],
                          orelse=[], finalbody=[])
        for new in (wrapped, wrapped.handlers[0], *(n for part in handler_body for n in ast.walk(part)),
                    *ast.walk(caught)):
            new.lineno = new.end_lineno = node.lineno
            new.col_offset = new.end_col_offset = 0
        wrapped_body.append(wrapped)
    return wrapped_body


# ------------------------------------------------------------------------------ a script's networks


def parameters_of(value: Any, namespace: dict) -> tuple[list, str]:
    """The parameters of a network: an nn.Module's, or for a function of top-level tensors (`def G(z):
    return F.relu(z @ W1) @ W2`), the leaf tensors that require grad among the globals it reads,
    through the file's functions it calls. With a description of what was found."""
    if isinstance(value, nn.Module):
        parameters = list(value.parameters())
        values = sum(p.numel() for p in parameters)
        return parameters, f"{type(value).__name__} with {len(parameters)} parameter tensors ({values:,} values)"
    if callable(value) and hasattr(value, "__code__"):
        found: list = []
        names: list[str] = []
        seen_code: set = set()

        def visit(function) -> None:
            code = getattr(function, "__code__", None)
            if code is None or code in seen_code:
                return
            seen_code.add(code)
            pending = [code]
            globals_ = getattr(function, "__globals__", namespace)
            while pending:
                current = pending.pop()
                pending.extend(c for c in current.co_consts if hasattr(c, "co_names"))
                for name in current.co_names:
                    item = globals_.get(name)
                    if isinstance(item, torch.Tensor) and item.is_leaf and item.requires_grad:
                        if not any(item is p for p in found):
                            found.append(item)
                            names.append(name)
                    elif isinstance(item, nn.Module):
                        for parameter in item.parameters():
                            if not any(parameter is p for p in found):
                                found.append(parameter)
                        names.append(name)
                    elif callable(item) and getattr(item, "__globals__", None) is globals_:
                        visit(item)

        visit(value)
        shown = ", ".join(dict.fromkeys(names))
        return found, f"a function of the top-level tensors {shown}" if found else "a function of no trainable tensor"
    return [], f"a {type(value).__name__}"


# ------------------------------------------------------------------------------ TCL001 at the top level


@dataclass(frozen=True)
class TopLevel:
    description: str = "as given"  # the evidence says what ran


def redundant_clone_at_top_level(job, run: Callable) -> Outcome:
    """TCL001 on a top-level statement: run the slice through the read of the copy, as written and
    without the clone; every tensor the script then holds, and every gradient, must be bitwise equal."""
    if job.fixed_source is None:
        raise CannotRun("the diagnosis has no fix to compare with")
    read_line = job.context.get("read_line")
    required = {job.line: "the flagged line"}
    covered = {}
    # The statements between the copy and its read that read the copy run too (`print(copy.data_ptr() ==
    # x.data_ptr())`, which the slice would leave out): what they print is compared below.
    copy = job.context.get("copy")
    readers = tuple(statement_lines_between(job.source, job.line, read_line, reading=copy)) \
        if isinstance(read_line, int) and isinstance(copy, str) else ()
    if isinstance(read_line, int):
        required[read_line] = "the read of the copy"
        # Of the statements between, those the slice runs (it leaves out what cannot change the names it
        # reads: a `print(...)` of other names); a statement left out cannot write the copy.
        sliced = _top_level_text(job.source, tuple(sorted({job.line, read_line, *readers})))[1].text.splitlines()
        covered = {line: meaning for line, meaning in statement_lines_between(job.source, job.line, read_line).items()
                   if line <= len(sliced) and sliced[line - 1].strip()}
    last = read_line if isinstance(read_line, int) else job.line
    start = statement_start(job.source, job.line)

    def state_after(source: str, count_clones: bool) -> tuple[dict, list, set, str]:
        probe = LineProbe(job.path)
        seen: dict = {}
        printed = io.StringIO()

        def capture(frame):
            if not passes.started(frame):
                return
            if passes.count == 2 and "state" not in seen:  # the flagged iteration is over, backward included
                seen["state"] = _snapshot(frame.f_globals)
                raise StopRun

        passes = Passes()
        probe.on_before(start, capture)
        error = None
        with bytes_cloned_at(job.path, job.line, enabled=count_clones) as cloned, contextlib.redirect_stdout(printed):
            try:
                namespace = run(source, probe, readers)
                seen.setdefault("state", _snapshot(namespace))
            except StopRun:
                pass
            except Exception as raised:  # noqa: BLE001 - the script failed before its iteration ended
                error = f"{type(raised).__name__}: {str(raised).splitlines()[0][:160] if str(raised) else ''}"
        if "state" not in seen:
            raise CannotRun(f"the script's iteration through line {last} did not finish"
                            + (f": {error}" if error else ""))
        if not probe.executed.get(last):
            raise CannotRun(f"line {last} was not reached in the script's top level")
        return seen["state"], cloned, set(probe.executed), printed.getvalue()

    def attempt(setting) -> Run:
        written, cloned, executed, shown = state_after(job.source, True)
        fixed, _, _, shown_fixed = state_after(job.fixed_source, False)
        differs = _printed_difference(shown, shown_fixed)
        if differs is not None:
            # What the script shows may rest on the copy being another tensor, which no comparison of
            # values sees. Never a refutation: a difference may be a timing's.
            raise CannotRun(f"without the clone the script prints otherwise ({differs}): what it shows may "
                            f"rest on the copy being another tensor")
        names = sorted(set(written) & set(fixed))
        different = [name for name in names if not same_values(written[name], fixed[name])]
        if set(written) != set(fixed):
            different += sorted(set(written) ^ set(fixed))
        if different:
            return Run(refuted(f"removing the clone changes what the script holds after the iteration through line "
                               f"{last}: "
                               f"{', '.join(f'`{n}`' for n in different[:4])} differ; the copy is needed"), executed)
        per_call = f"{cloned[0]:,} bytes" if cloned else "a copy"
        return Run(confirmed(f"without the clone, the {len(names)} tensors and gradients the script holds after "
                             f"the iteration through line {last} are bitwise equal; the clone allocated {per_call} "
                             f"per pass"), executed)

    return decide([TopLevel()], attempt, required, universal=True, covered=covered)


def _printed_difference(written: str, fixed: str) -> Optional[str]:
    """The first line the two runs printed differently, numbers aside (a timing, an address or a
    size printed may differ from run to run); None when they printed the same."""
    for first, second in zip(written.splitlines() + [""], fixed.splitlines() + [""]):
        if re.sub(r"\d+(\.\d+)?", "#", first) != re.sub(r"\d+(\.\d+)?", "#", second):
            return f"`{first.strip()[:60]}` as written, `{second.strip()[:60]}` without it"
    return None


def _snapshot(namespace: dict) -> dict:
    """Every tensor of the namespace and every gradient of its parameters, copied."""
    found: dict = {}
    for name, value in list(namespace.items()):
        if name.startswith("__"):
            continue
        if isinstance(value, torch.Tensor):
            found[name] = value.detach().clone()
            if value.grad is not None:
                found[f"{name}.grad"] = value.grad.detach().clone()
        elif isinstance(value, nn.Module):
            for key, tensor in value.state_dict().items():
                found[f"{name}.{key}"] = tensor.detach().clone()
            for key, parameter in value.named_parameters():
                if parameter.grad is not None:
                    found[f"{name}.{key}.grad"] = parameter.grad.detach().clone()
    return found


# ------------------------------------------------------------------------------ TCL002 at the top level


def alias_mutated_at_top_level(job, run: Callable) -> Outcome:
    """TCL002 on top-level code: run the slice through the read of the alias, as written and with the
    alias copied (the fix), and compare what the read sees. The value is taken at the read's first
    start after the write has finished: on a loop's next iteration too, never before the write."""
    if job.fixed_source is None:
        raise CannotRun("the diagnosis has no fix to compare with")
    alias, event_line, read_line = (job.context.get(key) for key in ("alias", "event_line", "read_line"))
    if not isinstance(alias, str) or not isinstance(event_line, int) or not isinstance(read_line, int):
        raise CannotRun("the diagnosis does not say which write and which read its claim is about")
    required = {job.line: "the flagged line", event_line: "the in-place write", read_line: "the read of the alias"}

    def value_at_read(source: str) -> tuple[list, set]:
        probe = LineProbe(job.path)
        seen: dict = {}
        write_start, read_start = statement_start(source, event_line), statement_start(source, read_line)

        def written(frame):
            seen["written"] = True

        def capture(frame):
            if _nested_code(frame) or not seen.get("written"):
                return
            if alias not in frame.f_globals:
                raise CannotRun(f"`{alias}` is not bound when line {read_line} reads it")
            seen["value"] = [tensor.detach().clone() for tensor in tensors_in(frame.f_globals[alias])]
            raise StopRun

        probe.on_after(write_start, written)
        probe.on_before(read_start, capture)
        error = ""
        try:
            run(source, probe)
        except StopRun:
            pass
        except Exception as raised:  # noqa: BLE001 - the script failed before its read
            error = f": {type(raised).__name__}: {str(raised).splitlines()[0][:160] if str(raised) else ''}"
        if "value" not in seen:
            raise CannotRun(f"the read of `{alias}` at line {read_line} did not run after the write at line "
                            f"{event_line}{error}")
        if not seen["value"]:
            raise CannotRun(f"`{alias}` held no tensor when line {read_line} read it")
        return seen["value"], set(probe.executed)

    def attempt(setting) -> Run:
        written, executed = value_at_read(job.source)
        fixed, _ = value_at_read(job.fixed_source)
        if len(written) == len(fixed) and all(same_values(a, b) for a, b in zip(written, fixed)):
            return Run(refuted(f"with the copy, `{alias}` holds the same values when line {read_line} reads it: "
                               f"the write at line {event_line} did not change what it reads"), executed)
        difference = max((float((a.double() - b.double()).abs().max()) for a, b in zip(written, fixed)
                          if a.shape == b.shape and a.numel()), default=float("nan"))
        return Run(confirmed(f"the write at line {event_line} changed what `{alias}` holds when line {read_line} "
                             f"reads it: with the copy the values differ (largest difference {difference:.3g})"),
                   executed)

    return decide([TopLevel()], attempt, required)


def tensors_in(value: Any) -> list[torch.Tensor]:
    """The tensors of a value, through tuples, lists and dicts."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [tensor for item in value for tensor in tensors_in(item)]
    if isinstance(value, dict):
        return [tensor for item in value.values() for tensor in tensors_in(item)]
    return []
