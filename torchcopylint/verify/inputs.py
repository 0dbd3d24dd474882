"""Make what flagged code needs to run: module instances and inputs, found by probing.

Runs in the verification child process, where torch is imported.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import math
import re
import textwrap
from dataclasses import dataclass
from typing import Any, Callable, Optional

import torch
from torch import nn


# Tried after the shape the first layer suggests: the usual image, sequence and vector batches.
COMMON_SHAPES = [(2, 3, 32, 32), (2, 64, 16, 16), (2, 16, 16, 16), (2, 8, 16), (2, 16), (2, 64), (2, 128), (2, 100, 1, 1)]


# The attribute that marks the leaf of a made-up tensor (a block's input, a stand-in argument) with
# what it stands for: a value that requires grad only through such leaves rests on an assumption
# (standins.assumed_through).
STAND_IN_MARK = "_torchcopylint_stand_in"
# The attribute that marks a tensor of a made-up loader's batch (standins.stand_in_loader): that it is a
# tensor at all is the stand-in's guess (a dataset may yield lists, which the collate keeps lists).
BATCH_PART_MARK = "_torchcopylint_batch_part"
# The classes of made-up labels and of a stand-in classifier's outputs: ten, as most code written for
# MNIST or CIFAR-10 assumes (`torch.eye(10)[y]`, AutoAttack's nine target classes, `n_classes=10`).
CLASSES = 10
# Names that hold the device the code runs on (`device`, `dev`): a stand-in's kind, a notebook's global.
DEVICE_NAMES = frozenset({"device", "dev"})


class CannotRun(Exception):
    """The experiment cannot be set up: becomes an `unverified` verdict with this reason.
    `every_error`: how each setting tried failed, in full, where the reason shows only the first:
    the next try of the diagnosis learns from all of them (verify/script.py learn_from)."""

    def __init__(self, reason: str = "", every_error: tuple = ()) -> None:
        super().__init__(reason)
        self.every_error = every_error


@dataclass
class Factories:
    """`[tool.torchcopylint.verify]` entries: "pkg.models:Block" = "tests.factories:make_block"."""

    entries: dict

    def for_object(self, module_path: str, name: str) -> Optional[Callable]:
        for key, target in self.entries.items():
            wanted_module, _, wanted_name = key.partition(":")
            if wanted_name == name and (module_path.endswith(wanted_module.replace(".", "/") + ".py")
                                        or wanted_module in ("", "*")):
                module_name, _, attribute = str(target).partition(":")
                return getattr(importlib.import_module(module_name), attribute)
        return None


# Image sides a network built for large images needs (an ImageNet ResNet's 7x7 pooling, a U-Net of
# eight halvings): tried last, as they cost the most.
LARGE_SIDES = (64, 128, 224, 256)


def large_image_shapes(module: nn.Module) -> list[tuple]:
    """Batches of large images for a network whose first layer is a 2-d convolution."""
    first = next((layer for layer in module.modules() if isinstance(layer, nn.Conv2d)), None)
    return [(2, first.in_channels, side, side) for side in LARGE_SIDES] if first is not None else []


def candidate_shapes(module: nn.Module) -> list[tuple]:
    """Input shapes to try on a network, most likely first: its first layer's, common ones, large images."""
    return first_layer_shapes(module) + COMMON_SHAPES + large_image_shapes(module)


def documented_shapes(module: nn.Module, method: str) -> list[tuple]:
    """The input shapes the method's docstring or comments give in numbers, the batch named
    (`:param x (B, 3, 416, 416)`, `# x: [N, 3, 64, 64]`): a batch of 2 of that shape. A shape with
    any other dim named says too little, and is left out."""
    found = []
    for match in DOCUMENTED_SHAPE.finditer(_method_source(module, method)):
        dims = [dim.strip() for dim in match.group(1).split(",")]
        if len(dims) < 2 or not dims[0].isidentifier() or not all(dim.isdigit() and int(dim) > 0 for dim in dims[1:]):
            continue
        shape = (2, *(int(dim) for dim in dims[1:]))
        if shape not in found and math.prod(shape) <= MAX_DOCUMENTED_VALUES:
            found.append(shape)
    return found


# `(B, 3, 416, 416)`, `[N, 1, 28, 28]`: a batch's name, then its sizes. At most this many values in all
# (two 3x512x512 images): a larger batch would make the experiment run past its time on the CPU.
DOCUMENTED_SHAPE = re.compile(r"[(\[]\s*([A-Za-z_]\w*\s*(?:,\s*\w+\s*){1,4})[)\]]")
MAX_DOCUMENTED_VALUES = 2 * 3 * 512 * 512


def shapes_read(module: nn.Module, method: str) -> list[tuple]:
    """Image batches as the method reads its input: as many channels as the highest one it takes
    (`x[:, 9:10]`: 10), the side of a square it crops to (`y[:, :, :30, :30]`: 30). What a network of
    no layers says of its input (a task written as convolutions with kernels of its own)."""
    try:
        function = ast.parse(textwrap.dedent(_method_source(module, method))).body[0]
    except (SyntaxError, IndexError):
        return []
    positional = [argument.arg for argument in getattr(getattr(function, "args", None), "args", [])][1:]
    if not positional:
        return []
    channels, sides = 0, set()
    for node in ast.walk(function):
        if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple) and len(node.slice.elts) >= 2):
            continue
        dims = node.slice.elts
        if isinstance(node.value, ast.Name) and node.value.id == positional[0]:
            channels = max(channels, _highest_position(dims[1]))
        if len(dims) == 4:
            sides |= {bound for bound in (_upper_bound(dim) for dim in dims[2:]) if bound}
    if not channels:
        return []
    return [(2, channels, side, side) for side in sorted(sides)] or [(2, channels, 32, 32), (2, channels, 28, 28)]


def _method_source(module: nn.Module, method: str) -> str:
    try:
        return inspect.getsource(getattr(type(module), method))
    except (OSError, TypeError, AttributeError):
        return ""


def _highest_position(index: ast.expr) -> int:
    """How many positions along a dim an index needs: `9` and `9:10` need 10; anything else, none."""
    if isinstance(index, ast.Constant) and type(index.value) is int and index.value >= 0:
        return index.value + 1
    return _upper_bound(index)


def _upper_bound(index: ast.expr) -> int:
    if isinstance(index, ast.Slice) and isinstance(index.upper, ast.Constant) and type(index.upper.value) is int \
            and index.upper.value > 0:
        return index.upper.value
    return 0


def first_layer_shapes(module: nn.Module) -> list[tuple]:
    """Batch shapes the first layer asks for: Conv2d(C) -> (2, C, 32, 32), Linear(F) -> (2, F)..."""
    for layer in module.modules():
        if isinstance(layer, nn.Conv2d):
            # 28: MNIST's side, which a classifier that flattens into a fixed Linear needs exactly.
            return [(2, layer.in_channels, 32, 32), (2, layer.in_channels, 28, 28), (2, layer.in_channels, 16, 16)]
        if isinstance(layer, nn.ConvTranspose2d):
            return [(2, layer.in_channels, 1, 1), (2, layer.in_channels, 4, 4)]
        if isinstance(layer, nn.Conv1d):
            return [(2, layer.in_channels, 64)]
        if isinstance(layer, nn.Conv3d):
            return [(2, layer.in_channels, 8, 16, 16)]
        if isinstance(layer, nn.Linear):
            return [(2, layer.in_features), (2, 8, layer.in_features)]
        if isinstance(layer, nn.RNNBase):  # LSTM, GRU, RNN: sequences of 8 steps, either dim first
            return [(2, 8, layer.input_size)]
        if isinstance(layer, (nn.BatchNorm2d, nn.InstanceNorm2d, nn.GroupNorm)):
            channels = getattr(layer, "num_features", None) or getattr(layer, "num_channels", 16)
            return [(2, channels, 32, 32)]
        if isinstance(layer, nn.LayerNorm):
            return [(2, 8, *layer.normalized_shape)]
        if isinstance(layer, nn.Embedding):
            return [("indices", layer.num_embeddings)]
    return []


def class_indices(count: int, classes: int, device: str) -> torch.Tensor:
    """A batch of stand-in class labels, the last class among them, as a real batch of many samples
    almost surely holds it: `F.one_hot(y)` without `num_classes` is then as wide as the network's scores."""
    labels = torch.arange(count, device=device) % classes
    labels[-1] = classes - 1
    return labels


def make_input(shape: tuple, device: str) -> tuple[torch.Tensor, torch.Tensor]:
    """(leaf, input): the input is `leaf * 1.0`, a non-leaf as inside a real network, so in-place
    ops on it behave as they would there (on a leaf they would raise instead). Several inputs made
    from a call site (verify/callsites.py `Inputs`) give (the first one's leaf, the tuple of inputs)."""
    if not isinstance(shape, tuple):
        return shape.make()
    torch.manual_seed(1)
    if shape and shape[0] == "indices":
        indices = torch.randint(0, shape[1], (2, 8), device=device)
        return indices, indices
    leaf = torch.randn(*shape, device=device, requires_grad=True)
    setattr(leaf, STAND_IN_MARK, "the block's made-up input")
    return leaf, leaf * 1.0


@dataclass(frozen=True)
class WithZeroExtras:
    """A block's first input of a probed shape, and each other input it requires a 0-dim zero
    (`forward(x, mask)` with `scores + mask`): a value that broadcasts against anything, for a method
    whose call sites are nowhere in sight; or, for one the block hands to a linear layer of its own
    (`self.time_adapter(t_embed)`), zeros of the batch and that layer's width (`widths`, None for the
    others). It stands where a probed input shape would (`make_input`)."""

    shape: tuple
    extras: int
    device: str = "cpu"
    widths: tuple = ()

    def _width(self, index: int) -> Optional[int]:
        return self.widths[index] if index < len(self.widths) else None

    def make(self) -> tuple:
        leaf, first = make_input(self.shape, self.device)
        others = (torch.zeros(() if self._width(i) is None else (self.shape[0], self._width(i)), device=self.device)
                  for i in range(self.extras))
        return leaf, (first, *others)

    def __str__(self) -> str:
        others = "the others" if self.extras > 1 else "the other"
        if not any(width is not None for width in self.widths):
            return f"input {tuple(self.shape)}, {others} a 0-dim zero (no call in sight shows them)"
        made = ", ".join("a 0-dim zero" if self._width(i) is None else f"zeros ({self.shape[0]}, {self._width(i)})"
                         for i in range(self.extras))
        return (f"input {tuple(self.shape)}, {others} {made} (no call in sight shows them; a width is that of the "
                f"block's linear layer that reads it)")


def widths_read(module: nn.Module, method: str, extras: int) -> tuple:
    """For each input of `method` after the first: the width of the block's own linear layer it is handed to
    first (`self.time_adapter(t_embed)`, a Sequential whose first linear layer reads 256), or None."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(getattr(type(module), method))))
    except (OSError, TypeError, SyntaxError, AttributeError):
        return ()
    definition = tree.body[0] if tree.body and isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)) \
        else None
    if definition is None:
        return ()
    names = [argument.arg for argument in definition.args.args][2:2 + extras]  # after `self` and the first input
    widths = []
    for name in names:
        width = None
        for node in ast.walk(definition):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "self" and node.args \
                    and isinstance(node.args[0], ast.Name) and node.args[0].id == name:
                layer = getattr(module, node.func.attr, None)
                linear = next((part for part in layer.modules() if isinstance(part, nn.Linear)), None) \
                    if isinstance(layer, nn.Module) else None
                width = linear.in_features if linear is not None else None
                break
        widths.append(width)
    return tuple(widths)


def required_inputs(cls: Any, method: str) -> int:
    """How many positional arguments `cls.method` needs besides `self`."""
    try:
        parameters = list(inspect.signature(getattr(cls, method)).parameters.values())
    except (TypeError, ValueError, AttributeError):
        return 1
    if not isinstance(inspect.getattr_static(cls, method, None), (staticmethod, classmethod)):
        parameters = parameters[1:]  # `self` (a static method has none; a class method's `cls` is bound)
    return sum(1 for p in parameters if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


def probe_input_shape(make_module: Callable[[], nn.Module], method: str, device: str,
                      flagged: Optional[tuple[str, int]] = None, extras: int = 0, unset: int = 0) -> Any:
    """The first shape with which a fresh instance's `method` runs (or reaches the flagged line,
    given as (file, line): an error raised there is the bug under test, not a wrong shape). With
    `extras`, the method's other inputs are that many 0-dim zeros, and the answer a WithZeroExtras;
    with `unset`, that many `None`s (a recurrent network's `forward(tokens, hidden)`, whose layers
    start from zeros when given no state), and the answer the first input's shape."""
    module = make_module()
    # What the first layer asks for, then what the method's own text says (its docstring, its indexing).
    shapes = list(dict.fromkeys(first_layer_shapes(module) + documented_shapes(module, method)
                                + shapes_read(module, method) + candidate_shapes(module)))
    widths = widths_read(module, method, extras) if extras else ()
    errors = []
    for shape in shapes:
        fresh = make_module()
        candidate = WithZeroExtras(shape, extras, device, widths) if extras else shape
        _, made = make_input(candidate, device)
        try:
            getattr(fresh, method)(*(made if extras else (made,)), *([None] * unset))
            return candidate
        except Exception as error:  # noqa: BLE001 - a wrong shape: try the next
            if flagged is not None and raised_at(error, *flagged):
                return candidate
            errors.append(f"{shape}: {type(error).__name__}")
    others = " with its other inputs 0-dim zeros" if extras else ""
    raise CannotRun(f"no input shape fits {type(module).__name__}.{method}{others} (tried {', '.join(errors)[:200]})")


def forward_runs(network: nn.Module, value: torch.Tensor) -> bool:
    """Does the network's forward run on this value? In eval mode and without grad, so the trial
    leaves no running statistics and no graph; each layer's mode is put back after."""
    modes = [(layer, layer.training) for layer in network.modules()]
    network.eval()
    try:
        with torch.no_grad():
            network(value)
        return True
    except Exception:  # noqa: BLE001 - any failure: it does not read this value
        return False
    finally:
        for layer, training in modes:
            layer.training = training


def raised_at(error: BaseException, filename: str, line: int) -> bool:
    traceback = error.__traceback__
    last = None
    while traceback is not None:
        if traceback.tb_frame.f_code.co_filename == filename:
            last = traceback.tb_lineno
        traceback = traceback.tb_next
    return last == line


class Batches:
    """An iterator of a stand-in loader's batches (`make(index)`) that also answers the old `.next()`, and its
    length as a DataLoader's iterator does (the loader's)."""

    def __init__(self, make: Callable[[int], Any], count: int) -> None:
        self._make, self._count, self._next = make, count, 0

    def __iter__(self):
        return self

    def __next__(self):
        if self._next >= self._count:
            raise StopIteration
        self._next += 1
        return self._make(self._next - 1)

    next = __next__

    def __len__(self) -> int:
        # `it = iter(loader)`, then `while i < len(it):` (WGAN's critic iterations): a DataLoader's
        # iterator has the loader's length.
        return self._count
