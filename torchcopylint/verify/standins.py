"""Stand-ins from use: make a function's missing arguments from how its code uses them.

Runs in the verification child process; reads the function's syntax tree (the
user's code is never imported for this). A name that is called or asked for
`.parameters()` is a module, one with `.step()`/`.zero_grad()` an optimizer, one
with `.scale()`/`.update()` a gradient scaler, one iterated a loader (a short
list of batches, unpacked as the loop unpacks them), one with tensor methods a
tensor; numbers and flags come from defaults and names (`lr`, `eps`: floats;
`epochs`: a small int). The same reading gives a method's `self.x` attributes
when the instance itself cannot be built (a trainer whose networks come from an
unimportable package). Every stand-in says what it is, for the evidence.
"""

from __future__ import annotations

import argparse
import ast
import collections
import copy
import inspect
import math
import os
import re
import sys
import textwrap
import zlib
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Optional

import torch
import torch.nn.functional as F
from torch import nn

from torchcopylint.verify import absent, datasites, samples
from torchcopylint.verify.datasites import LOSS_NAME
from torchcopylint.verify.absent import unknown_argument
from torchcopylint.verify.watching import walk_graph
from torchcopylint.verify.inputs import (BATCH_PART_MARK, CLASSES, DEVICE_NAMES, STAND_IN_MARK, Batches, CannotRun,
                                         class_indices)

BATCH = 4
# The attribute that marks a stand-in made as a plain leaf (the code sets `x.requires_grad = True`
# itself): seen at the line still not requiring grad, it shows what was made up, not what the code does.
PLAIN_LEAF_MARK = "_torchcopylint_plain_leaf"
FEATURES = 8       # the features of a made-up sample: what stand-in networks read and write
VOCABULARY = 1000  # the token ids a stand-in language model's embeddings take (any id, modulo this)
BATCHES = 4        # a stand-in loader's length: enough for an accumulation to grow three times
# A schedule of noise levels (`for i, sigma in enumerate(sigmas)`): few, so a table the code indexes by
# a level's position (an embedding of the levels) has a row for each, decreasing from 1 as annealing does.
SCHEDULE = (1.0, 0.01, 5)
MAX_SETTINGS = 9
# What a path the code saves into or reads from stands in by: a folder of the project's (where the
# sandbox lets no write happen, verify/sandbox.py, and reads find nothing).
STAND_IN_FOLDER = "torchcopylint-stand-in"
IMAGE = (3, 16, 16)  # one sample of a stand-in image batch

MODULE_METHODS = {"parameters", "named_parameters", "train", "eval", "modules", "children", "state_dict",
                  "load_state_dict", "apply", "requires_grad_", "named_modules", "buffers", "forward"}
# A module the code only hooks (`feature_layer.register_forward_hook(get_mid_output)`): a layer of the
# network it runs, or the hook would never fire.
HOOK_METHODS = {"register_forward_hook", "register_full_backward_hook", "register_backward_hook",
                "register_forward_pre_hook", "register_full_backward_pre_hook"}
SCALER_METHODS = {"scale", "update", "unscale_", "get_scale"}
# A GradScaler's own (`update` alone is a dict's, a set's, a progress bar's: `self.state.update(d)`).
SCALER_ONLY_METHODS = SCALER_METHODS - {"update"}
OPTIMIZER_METHODS = {"step", "zero_grad", "param_groups", "add_param_group"}
SHARED_METHODS = {"state_dict", "load_state_dict", "zero_grad"}  # a module's and an optimizer's alike
TENSORS_TOO = {"requires_grad_"}  # a module's method that a tensor has too
TENSOR_METHODS = {"size", "shape", "view", "reshape", "detach", "clone", "float", "mean", "sum", "backward",
                  "softmax", "log_softmax", "argmax", "max", "min", "item", "numel", "dim", "unsqueeze",
                  "squeeze", "flatten", "fill_", "zero_", "add_", "mul_", "copy_", "masked_fill", "masked_fill_",
                  "requires_grad", "grad", "dtype", "device", "t", "T", "permute", "transpose", "abs", "exp",
                  "log", "pow", "sqrt", "clamp", "clamp_", "sigmoid", "tanh", "relu", "data", "new_zeros",
                  "new_ones", "expand", "expand_as", "type_as", "norm", "gather", "scatter_", "index_select",
                  "contiguous", "long", "half", "double", "chunk", "split", "topk", "sort", "cumsum"}
ARRAY_ROWS = 192  # the rows of a stand-in NumPy array (kind "array")
# Of those, what a NumPy array has too (`data.shape[0]`, `x.reshape(-1, 784)`, `x.mean()`).
ARRAY_METHODS = {"shape", "reshape", "mean", "sum", "argmax", "max", "min", "dtype", "T", "flatten", "squeeze",
                 "transpose", "clip", "cumsum", "sort", "copy", "astype", "size"}


def _library_methods() -> frozenset:
    """What tensors, modules, optimizers, arrays and Python's containers and strings have: a method
    called on a value that is none of these is its own class's, the project's (`model.get_embedding(x)`,
    `posteriors.kl()`)."""
    names = set(dir(torch.Tensor)) | set(dir(nn.Module)) | set(dir(torch.optim.Optimizer)) | set(dir(dict)) \
        | set(dir(list)) | set(dir(str)) | SCALER_METHODS | HOOK_METHODS | ARRAY_METHODS
    try:
        import numpy
    except ImportError:
        return frozenset(names)
    return frozenset(names | set(dir(numpy.ndarray)))


KNOWN_METHODS = _library_methods()
FLOAT_NAMES = re.compile(r"^(lr|eps|epsilon|alpha|beta\d?|gamma|momentum|weight_decay|wd|tau|temperature|temp|"
                         r"lam|lambda_?\w*|smoothing|label_smoothing|dropout|p|rate|scale|margin|clip\w*|"
                         r"max_norm|decay|ema\w*|step_size|learning_rate|(max|min|base|init|initial|peak|start|end)_lr)$")
COUNT_NAMES = re.compile(r"^(epochs?|n_?epochs?|num_epochs|steps|n_?steps|num_steps|iters|n_?iters|iterations|"
                         r"accum\w*|grad_accum\w*|n_critic|d_steps|g_steps|k)$")
# An int that picks one of several (`idx`, `layer_index`): 0, which every non-empty sequence has.
INDEX_NAMES = re.compile(r"^(idx|index|\w+_(idx|index)|(idx|index)_\w+)$")
# A list of ints that gives sizes (`hidden_sizes: list[int]`), not positions (`indices_to_remove: list[int]`).
SIZE_LIST_WORDS = re.compile(r"size|dim|channel|width|feature|hidden|unit|shape", re.IGNORECASE)
MAX_NAMED_BATCH = 256  # the largest batch size a constructor sets that stand-in batches take on
BATCH_NAMES = re.compile(r"^(batch_size|batchsize|bs|n_batch|mb_size|minibatch_size)$")
SIZE_TAKERS = {f"torch.{name}" for name in ("randn", "rand", "zeros", "ones", "empty", "full", "randint", "arange",
                                             "eye", "linspace")}
# Layers whose arguments are sizes (`nn.Linear(1024, signal_length * channels)`): whole numbers.
SIZED_LAYERS = frozenset({"Linear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
                          "ConvTranspose3d", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "Embedding", "LSTM",
                          "GRU", "RNN", "LayerNorm", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d"})
DEVICE_ATTRIBUTES = frozenset({"type", "index"})  # a torch.device's
LAYER_ATTRIBUTES = frozenset({"weight", "bias", "in_features", "out_features", "in_channels", "out_channels"})
# Losses whose target is class indices, and losses whose target is values (the same shape as the input).
CLASS_LOSSES = {"cross_entropy", "nll_loss", "CrossEntropyLoss", "NLLLoss", "multi_margin_loss", "MultiMarginLoss"}
VALUE_LOSSES = {"mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
                "binary_cross_entropy_with_logits", "kl_div", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss",
                "BCELoss", "BCEWithLogitsLoss", "KLDivLoss", "cosine_embedding_loss"}
# Calls whose `index` argument holds indices (the third of `torch.index_select(x, 0, idx)`, the second of
# the method forms), and the reshapes an index goes through on its way there.
INDEX_TAKERS = {"index_select", "index_copy_", "index_copy", "index_add_", "index_add", "index_fill_", "gather",
                "scatter_", "scatter", "scatter_add_", "take_along_dim"}
INDEX_VIEWS = {"view", "reshape", "flatten", "long", "squeeze", "unsqueeze", "to", "cuda", "contiguous"}
# Names that say "class labels" when nothing in the code says otherwise.
# A suffix says which labels (`y_in`, `labels_batch`, `y_true`): still class labels.
LABEL_NAMES = re.compile(r"^(labels?|targets?|classes|class_ids?|cls|y|gt_labels?|real_labels|class_labels|"
                         r"label_ids?|digits?)(_(in|true|batch|orig|clean|gt|src|tgt))?$")


@dataclass
class Use:
    """How one name (`model`, or `self.model`) is used in a function."""

    called: bool = False
    methods: set = field(default_factory=set)
    iterated: bool = False
    loader_items: bool = False  # each item iterated in turn: `for loader in loaders: for x, y in loader`
    called_items: bool = False  # each item called: `[sig(t) for sig in signal]`, a list of input signals
    unpacked: int = 0          # the loop's unpacking: `for x, y in loader` -> 2; `for (x,) in loader` -> ONE_ITEM
    views: int = 0             # the unpacking of a batch's first item: `for (x1, x2), y in loader` -> 2
    string_keys: list = field(default_factory=list)  # the strings it is indexed with: `sample["images"]`
    batch_keys: tuple = ()     # a loader whose batches the code indexes by these strings (dict batches)
    in_range: bool = False
    range_start: bool = False  # in the start of a `range(start, stop)`: where a loop resumes (`range(self.epoch + 1, n)`)
    shape: bool = False        # joined to a tuple: `(n,) + self.img_shape`, a shape
    position: bool = False     # a position along a dim: `ranks[:, -self.target_class]`, `out[:, k]`
    sizes: bool = False        # a size given to `torch.randn(...)`, `range(...)`, `.view(...)`: an int
    seed: bool = False         # given to `random.seed`, `torch.manual_seed`: a whole number
    indexed: bool = False      # `x[i]`, `x[:, 0]`: a tensor (or a container), never a number
    torch_argument: bool = False  # an argument of a torch.* / F.* call: a tensor, or a number it accepts
    torch_input: bool = False  # the input of a torch function, which takes no Python number (`torch.frexp(m)`)
    arithmetic: bool = False   # an operand of + - * /: a number, or a tensor if anything else says so
    number_arithmetic: bool = False  # arithmetic with a Python number (`1 - alpha`), or `float(x)`
    float_arithmetic: bool = False   # arithmetic with a float literal (`x * 0.5`): not an int
    ordered: bool = False      # compared by < > <= >= where Python needs a bool (`if clip > eps`): a number
    numbers: list = field(default_factory=list)   # the numbers it is compared with: `n == 0`
    truth: bool = False        # tested as a flag: `if self.use_amp:`
    compared: list = field(default_factory=list)  # the literals it is compared with: `mode == "hinge"`
    listed: bool = False       # tested for being one of listed literals: `assert size in [64, 128, 256]`
    device_like: bool = False  # `.type` read, passed as `device=`, or to `.to(...)`: a device
    type_read: bool = False    # `device.type`: a torch.device, not a string
    returns: int = 0           # the unpacking of what a call to it returns: `fake, attn = G(z)` -> 2
    # the unpacking of what a call of each of its methods returns: `s, a, r = buffer.numpy_to_tensor()` -> 3
    method_returns: dict = field(default_factory=dict)
    fed_to: set = field(default_factory=set)  # the names of the callees it is passed to
    class_target: bool = False  # a class-index target or index: `F.cross_entropy(out, y)`, `embed(y)`, `one_hot(y)`
    value_target: bool = False  # the target of a loss of values: `F.mse_loss(out, y)`
    position_index: bool = False  # the indices of `index_select`, `gather`, `index_copy_`: positions along a dim
    keys_of: set = field(default_factory=set)  # the containers it is a key of: `self.count[mode]` -> {"self.count"}
    none_tested: bool = False   # `if best is None:`: the code has a path for None
    number_checked: bool = False  # `isinstance(eps, float)`: the code asks whether it is a Python number
    dict_key: bool = False      # a key of a dict the code builds of string keys: one of those keys
    grad_switched: bool = False  # `x.requires_grad = True`, `x.requires_grad_()`: a leaf the code makes require grad
    switched_at: int = 0         # the line of the first such switch
    tensor_values: bool = False  # `for name, p in params.items(): p.clone()`: a dict whose values are tensors
    passed_as: list = field(default_factory=list)  # (function, position or keyword) of each plain call it is passed to
    parameter_elements: bool = False  # iterated, each element's `requires_grad` or `.grad` read: parameters
    trained: bool = False       # handed to an optimizer as what it trains (`super().__init__(params, defaults)`)
    makes_optimizer: bool = False  # called on a network's parameters (`opt_fn(model.parameters(), lr)`)
    via_callee: Optional[str] = None  # the kind the file's own function it is passed to uses it as (a number, a loss)
    layer_attributes: bool = False  # `layer.weight`, `layer.bias` read, never called: a layer (pruning helpers)
    joined: str = ""           # the first argument of `torch.cat` / `torch.stack`: a sequence of tensors ("cat", "stack")
    results_indexed: bool = False  # what a call to it returns is indexed: `loss = criterion(o, y); loss[i]`
    returns_loss: bool = False  # what a call to it returns is backpropagated as it is: `elbo = model(x); elbo.backward()`
    assigned_unpacked: int = 0  # unpacked by an assignment: `condition, real = batch` -> 2 (a loader's batch)
    dims: int = 0              # its shape unpacked: `batch_size, k, c, h, w = img.size()` -> a tensor of 5 dims
    unpacks_loaders: bool = False  # what it is unpacked into is iterated: `train, val = data`, `for x in train`
    one_sample: bool = False  # its batch size compared with 1 (`assert x.size(0) == 1`): a batch of one
    learning_rate: bool = False  # an optimizer's `lr` (`optim.Adam(self.weights, meta_lr)`): a float
    per_class: bool = False  # indexed by labels (`cw_eps[y]`, `self.prototypes[labels]`): a row per class
    path_like: bool = False  # a file or folder: `os.makedirs(x)`, `open(x)`, `torch.save(obj, x)`, `x + "/a.png"`
    dtype_like: bool = False   # passed as `dtype=` (`torch.randn(n, dtype=dtype)`) or to `x.type(...)`: a torch dtype
    moved: bool = False        # `x.type(dtype)`, or moved where what it becomes is used as a tensor
    #                            (`x = X.to(device)`, then `torch.cat([y, x])`): a tensor
    probability: bool = False  # a dropout rate: `nn.Dropout(p)`, `nn.LSTM(..., dropout=p)`: a number in [0, 1)
    numpy_input: bool = False  # given to `torch.from_numpy`, itself or a slice of it (`batch = data[i:j]`): an array
    makes_a_tensor: bool = False  # an operand of arithmetic whose result is used as a tensor
    #                               (`diff = out - original; diff.clone()`): one of the operands is one
    number_entries: bool = False   # an entry at one position computed with (`sigmas[-1] ** 2`, `sigmas[idx] * eps`)
    sliced: bool = False           # indexed by anything but one position: `x[:, 0]`, `x[mask]`, `x["key"]`
    updates_its_input: bool = False  # called, its result added to what it is given: `x += step * score(x, t)`,
    #                                  a score, a denoiser or a residual branch: an output of its input's shape
    reconstructs_its_input: bool = False  # called, its (first) result given to a loss with what it was given:
    #                                       `recon, mu, logvar = vae(x)`, `criterion(recon, x)`: an output of its input's shape
    compared_with_data: bool = False  # called, its result subtracted from or by another value: `(gan(z) - x) ** 2`,
    #                                   an output shaped like a sample of the data

    @property
    def seen(self) -> bool:
        return bool(self.called or self.methods or self.iterated or self.in_range or self.sizes or self.seed
                    or self.indexed or self.torch_argument or self.arithmetic or self.ordered or self.numbers
                    or self.truth or self.compared or self.device_like or self.fed_to)

    @property
    def tensor_like(self) -> bool:
        return self.indexed or self.torch_argument


# A module's own forward, called from another of its methods: what it is handed is an input tensor.
OWN_FORWARD = frozenset({"self", "self.forward"})
# Calls that iterate what they are given (`zip` each argument, the others their first): a loader or a
# sequence, never a namespace of options.
ITERATING_CALLS = frozenset({"enumerate", "iter", "tqdm", "tqdm.tqdm", "zip"})
# Calls whose first argument is a sequence of tensors they join: how each element is shaped for it.
JOINING_CALLS = {"torch.cat": "cat", "torch.concat": "cat", "torch.concatenate": "cat", "torch.vstack": "cat",
                 "torch.stack": "stack", "torch.hstack": "stack"}
# torch's spellings of `a * b`, `a + b`...: the second operand, as in Python arithmetic, may be a number.
ELEMENTWISE_ARITHMETIC = frozenset({"torch.mul", "torch.multiply", "torch.div", "torch.divide", "torch.true_divide",
                                    "torch.add", "torch.sub", "torch.subtract"})
# Callees that take any value and say nothing of its kind (printing, logging, containers).
NEUTRAL_CALLEES = {"print", "str", "repr", "format", "isinstance", "type", "id", "hash", "bool", "abs", "min",
                   "max", "sum", "list", "tuple", "dict", "set", "sorted", "enumerate", "zip", "getattr",
                   "setattr", "hasattr", "logging.info", "logger.info", "log", "warnings.warn"}
# Conversions to a Python number: `float(loss)` of a tensor of several values would raise.
NUMBER_CALLEES = {"float", "int", "round", "math.sqrt", "math.log", "math.exp"}
# Seeding functions: what they are given is a whole number (`np.random.seed` takes no tensor, nor a float).
SEED_TAKERS = {"random.seed", "np.random.seed", "numpy.random.seed", "torch.manual_seed", "torch.cuda.manual_seed",
               "torch.cuda.manual_seed_all", "torch.random.manual_seed", "seed_everything", "pl.seed_everything",
               "set_seed", "setup_seed", "set_random_seed", "seed_all", "random.Random", "np.random.default_rng",
               "np.random.RandomState"}
# Callees whose argument in that position is a file or folder's path (any position: -1).
PATH_TAKERS = {"os.makedirs": 0, "os.mkdir": 0, "os.listdir": 0, "open": 0, "glob.glob": 0, "glob": 0,
               "Path": 0, "pathlib.Path": 0, "os.path.join": -1, "os.path.exists": 0, "os.path.isdir": 0,
               "os.path.isfile": 0, "torch.save": 1, "torch.load": 0, "plt.savefig": 0, "plt.imsave": 0,
               "save_image": 1, "vutils.save_image": 1, "torchvision.utils.save_image": 1}


def function_node(tree: ast.Module, class_name: Optional[str], function_name: str) -> Optional[ast.FunctionDef]:
    if class_name is not None:
        return methods_of(tree, class_name).get(function_name)
    return next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and n.name == function_name), None)


def methods_of(tree: ast.Module, class_name: str) -> dict:
    """Name -> definition of the methods a top-level class of the file defines (none when it is not there)."""
    owner = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name), None)
    return {n.name: n for n in (owner.body if owner else []) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def methods_with_inherited(tree: ast.Module, class_name: str, seen: frozenset = frozenset()) -> dict:
    """`methods_of` the class and, where it does not define them, of its base classes the file defines,
    in their order (`self.get_loss(...)` in an attack's `step`, defined by the attack it derives from)."""
    owner = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name), None)
    methods = methods_of(tree, class_name)
    for base in (owner.bases if owner is not None else []):
        if isinstance(base, ast.Name) and base.id not in seen | {class_name}:
            inherited = methods_with_inherited(tree, base.id, seen | {class_name})
            methods = {**inherited, **methods}
    return methods


def _key(node: ast.AST) -> Optional[str]:
    """`model` or `self.model` for a name or a self attribute; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return f"self.{node.attr}"
    return None


# torch functions whose first argument is no tensor input: factories of sizes or data, and `torch.tensor`.
NOT_TENSOR_INPUTS = frozenset({"tensor", "as_tensor", "from_numpy", "full", "arange", "linspace", "logspace",
                               "manual_seed", "set_num_threads", "device", "Size", "no_grad", "enable_grad",
                               "set_grad_enabled", "is_tensor", "load", "save", "get_default_dtype"})


def _shadowing_parameters(closure: ast.AST) -> set[int]:
    """The name nodes, in the other methods of a method closure, of their parameters that share a name
    with a parameter of the method itself (the closure's first function) but are not always given it:
    `self.compute_gp(x, fake)` hands `compute_gp(self, batch, fake)` another `batch` than the method's,
    while `self.prepare(images, labels)` hands on the same `labels`."""
    if not (isinstance(closure, ast.Module) and closure.body
            and all(isinstance(node, ast.FunctionDef) for node in closure.body)):
        return set()
    own = {argument.arg for argument in ast.walk(closure.body[0].args) if isinstance(argument, ast.arg)} - {"self"}
    calls = [node for node in ast.walk(closure) if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
             and isinstance(node.func.value, ast.Name) and node.func.value.id == "self"]
    found = set()
    for other in closure.body[1:]:
        positions = [argument.arg for argument in other.args.args[1:]]
        called = [call for call in calls if call.func.attr == other.name]

        def handed_on(name: str) -> bool:
            position = positions.index(name) if name in positions else None
            return bool(called) and all(
                any(isinstance(k.value, ast.Name) and k.value.id == name for k in call.keywords if k.arg == name)
                or (position is not None and position < len(call.args) and isinstance(call.args[position], ast.Name)
                    and call.args[position].id == name)
                for call in called)

        names = {name for name in own & {a.arg for a in ast.walk(other.args) if isinstance(a, ast.arg)}
                 if not handed_on(name)}
        found |= {id(node) for node in ast.walk(other) if isinstance(node, ast.Name) and node.id in names}
    return found


def _keyword_parameters(function: ast.AST) -> frozenset:
    """The names of the `**kwargs` parameters of the functions in `function`."""
    return frozenset(node.args.kwarg.arg for node in ast.walk(function)
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.args.kwarg)


def _entry_read(node: ast.AST, keywords: frozenset = frozenset()) -> Optional[str]:
    """`kwargs["epoch"]` of a `**kwargs` parameter: `epoch`, the keyword argument a caller passes;
    `config["batch_size"]` of anything else: that entry, known by that spelling (`plan` makes it what
    its own use says: `torch.ones(config["batch_size"], 1)` a whole number)."""
    if not (isinstance(node, ast.Subscript) and _key(node.value) and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)):
        return None
    if _key(node.value) in keywords and node.slice.value.isidentifier():
        return node.slice.value
    return f"{_key(node.value)}[{node.slice.value!r}]"


def _takes_a_tensor_input(callee: str) -> bool:
    """`torch.frexp`, `torch.exp`, `F.softmax`: a function of a tensor input; not a factory or a class."""
    name = callee.rsplit(".", 1)[-1]
    return callee.count(".") == 1 and name[:1].islower() and name not in NOT_TENSOR_INPUTS \
        and f"torch.{name}" not in SIZE_TAKERS


def _networks_given(expression: ast.AST, key: Optional[str], assigned: Optional[dict] = None) -> list:
    """The callees in `expression` that are given `key` first: `score` of `step * score(x, t)` for `x`;
    through the function's locals (`assigned`, name -> the values it is assigned) that `expression`
    reads: `score = score_model(x, t)`, `drift = f - g * score`, then `x + drift * dt`. Only locals
    computed by arithmetic, by such a call or by methods of a name are followed: a loss's gradient
    (`grad = autograd.grad(criterion(model(x), y), x)`, then `x + eps * grad.sign()`) is no output of
    `model` in `x`'s shape."""
    if key is None:
        return []

    def given_key(node: ast.AST) -> bool:
        return isinstance(node, ast.Call) and bool(_key(node.func)) and bool(node.args) and _key(node.args[0]) == key

    found, seen, pending = [], set(), [expression]
    while pending:
        for node in ast.walk(pending.pop()):
            if given_key(node):
                found.append(node.func)
            elif isinstance(node, ast.Name) and node.id != key and node.id not in seen and assigned:
                seen.add(node.id)
                pending.extend(value for value in assigned.get(node.id, ())
                               if isinstance(value, (ast.BinOp, ast.UnaryOp)) or given_key(value)
                               or _elementwise_chain(value))
    return found


def _elementwise_chain(value: ast.expr) -> bool:
    """`purified.grad.data.sign()`, `out.detach()`: attributes and methods read off a name, which keep
    its shape as far as an update of the input goes (`x = x + lr * purified.grad.sign()`)."""
    while isinstance(value, (ast.Attribute, ast.Call)):
        if isinstance(value, ast.Call):
            if not isinstance(value.func, ast.Attribute):
                return False
            value = value.func
        value = value.value
    return isinstance(value, ast.Name)


def _local_values(function: ast.AST) -> dict:
    """name -> the values the function assigns it (`score = score_model(x, t)`)."""
    assigned: dict = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            assigned.setdefault(node.targets[0].id, []).append(node.value)
    return assigned


def _one_position(node: ast.AST) -> bool:
    """`-1`, `0`, `idx`: one whole-number position, not a slice, a tuple of them or a key."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Name) or isinstance(node, ast.Constant) and type(node.value) is int


def _is_number(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)


def _choice(node: ast.AST) -> Any:
    """The value of a literal a name is compared with (`"hinge"`, `2`, `np.inf`); None if it is not one."""
    if isinstance(node, ast.Attribute) and node.attr == "inf":
        return math.inf
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float)) and not isinstance(node.value, bool):
        return node.value
    return ast.literal_eval(node) if _is_number(node) else None


def _tests(function: ast.AST) -> list:
    """The expressions Python reads as a bool: if/while/assert tests, `x if c else y`, `and`/`or`/`not` operands."""
    found = []
    for node in ast.walk(function):
        if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            found.append(node.test)
        elif isinstance(node, ast.comprehension):
            found.extend(node.ifs)
    expanded = []
    while found:
        test = found.pop()
        if isinstance(test, ast.BoolOp):
            found.extend(test.values)
        elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            found.append(test.operand)
        else:
            expanded.append(test)
    # `not done` reads `done` as a bool wherever it stands (`self.not_dones[i] = not done`).
    expanded.extend(node.operand for node in ast.walk(function) if isinstance(node, ast.UnaryOp)
                    and isinstance(node.op, ast.Not) and node.operand not in expanded)
    return expanded


def _renames(function: ast.AST) -> dict[int, str]:
    """The name nodes, in each function, of a name bound there only to one other name or `self.x`
    (`x = x_in`), each with the name it stands for: what the code does with the new name it does
    with the value of the old one."""
    renamed: dict[int, str] = {}
    functions = [node for node in ast.walk(function) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for body in functions or [function]:
        stores = collections.Counter(node.id for node in ast.walk(body)
                                     if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store))
        parameters = {argument.arg for argument in ast.walk(body.args if functions else body)
                      if isinstance(argument, ast.arg)}
        renaming = [(node.targets[0].id, _key(node.value)) for node in ast.walk(body)
                    if isinstance(node, ast.Assign) and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name) and _key(node.value)
                    and node.targets[0].id not in parameters and _key(node.value) != node.targets[0].id]
        # Bound only so, to one name each time (`eps = self.eps` in each branch of a norm).
        originals = {name: original for name, original in renaming
                     if stores[name] == sum(1 for other, _ in renaming if other == name)
                     and {value for other, value in renaming if other == name} == {original}}
        renamed.update({id(node): originals[node.id] for node in ast.walk(body)
                        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in originals})
    return renamed


NUMBER_TYPES = frozenset({"float", "int", "numbers.Number", "numbers.Real", "Number", "Real"})


def _names_a_number_type(types: ast.expr) -> bool:
    """`float`, `(int, float)`, `numbers.Number`: Python's number types, all of them."""
    named = types.elts if isinstance(types, ast.Tuple) else [types]
    return bool(named) and all(ast.unparse(name) in NUMBER_TYPES for name in named)


def uses(function: ast.AST) -> dict[str, Use]:
    """The use of every name and `self.x` attribute in the function. Of a method's closure
    (`method_closure`: the method first, then the methods it calls), a parameter of another method
    named as one of the method's is that method's own (`compute_gp(self, batch, fake)` beside
    `training_step(self, batch, i)`): its uses say nothing of the method's."""
    found: dict[str, Use] = {}
    keywords = _keyword_parameters(function)
    shadowed = _shadowing_parameters(function)

    renamed = _renames(function)
    assigned = _local_values(function)

    def use(node: ast.AST) -> Optional[Use]:
        key = _key(node) or _entry_read(node, keywords)
        key = renamed.get(id(node), key)
        if id(node) in shadowed:
            return Use()  # another method's parameter of the same name: what it says is not kept
        return found.setdefault(key, Use()) if key else None

    called = {id(node.func) for node in ast.walk(function) if isinstance(node, ast.Call)}
    batch_names: list = []  # (the loader's use, the name a loop over it binds each batch to)
    progress_bars = {node.targets[0].id: node.value for node in ast.walk(function) if isinstance(node, ast.Assign)
                     and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                     and isinstance(node.value, ast.Call) and ast.unparse(node.value.func) in ("tqdm", "tqdm.tqdm")}
    mapped: list = []  # (a dict's expression, the name a loop over its values binds each value to)
    # (an operand's use, what it is added to or the prefix of): `path + self.folder`, `f"{path}_{n}"`
    added: list = []
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id == "isinstance" and len(node.args) == 2 \
                    and _key(node.args[0]) and _names_a_number_type(node.args[1]):
                use(node.args[0]).number_checked = True  # `isinstance(eps, float)`: the code takes a Python number
            target = use(node.func)
            if target is not None:
                target.called = True
                first = node.args[0] if node.args else None
                if isinstance(first, ast.Call) and isinstance(first.func, ast.Attribute) and \
                        first.func.attr in ("parameters", "named_parameters"):
                    target.makes_optimizer = True  # `optimizer = opt_fn(model.parameters(), max_lr)`
            if isinstance(node.func, ast.Attribute):
                owner = use(node.func.value)
                if owner is not None:
                    owner.methods.add(node.func.attr)
                    if node.func.attr == "__iter__":
                        owner.iterated = True  # `self.loader.__iter__().next()`: Python 2's spelling of next(iter(...))
                    if node.func.attr == "requires_grad_":
                        owner.grad_switched = True
                        owner.switched_at = min(owner.switched_at or node.lineno, node.lineno)
            callee = ast.unparse(node.func)
            arguments = [*node.args, *(k.value for k in node.keywords)]
            # `torch.rand((n, self.z_dim))`: the elements of a literal tuple are arguments too.
            arguments += [e for a in arguments if isinstance(a, (ast.Tuple, ast.List)) for e in a.elts]
            if _takes_sizes(callee) or callee == "range":
                # `torch.randn(n, int(args["--nz"]))`, `range(int(opt.epochs))`: what `int` converts is the size.
                arguments += [a.args[0] for a in arguments if isinstance(a, ast.Call) and isinstance(a.func, ast.Name)
                              and a.func.id == "int" and len(a.args) == 1]
            plain = node.func.id if isinstance(node.func, ast.Name) else callee if isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "self" else None
            if plain is not None:  # `helper(x)`, or a method of the class: `self.get_batches(loader)`
                for position, argument in enumerate(node.args):
                    if _key(argument) is not None:
                        use(argument).passed_as.append((plain, position))
                for keyword in node.keywords:
                    if keyword.arg is not None and _key(keyword.value) is not None:
                        use(keyword.value).passed_as.append((plain, keyword.arg))
            if _takes_sizes(callee):
                # `torch.ones(channels * img_dim**2 // ratio)`: every factor of a size is a whole number.
                for factor in (f for a in arguments if isinstance(a, ast.BinOp) for f in arithmetic_operands(a)):
                    if use(factor) is not None:
                        use(factor).sizes = True
            if callee == "range":
                # `range(self.init_epoch + 1, n)`: every operand of a bound is a whole number.
                for factor in (f for a in arguments if isinstance(a, ast.BinOp) for f in arithmetic_operands(a)):
                    if use(factor) is not None:
                        use(factor).in_range = True
                if len(arguments) > 1:
                    start = arguments[0]
                    for factor in arithmetic_operands(start) if isinstance(start, ast.BinOp) else [start]:
                        if use(factor) is not None:
                            use(factor).range_start = True
            if callee in PATH_TAKERS:
                position = PATH_TAKERS[callee]
                for argument in node.args if position < 0 else node.args[position:position + 1]:
                    for part in arithmetic_operands(argument) if isinstance(argument, ast.BinOp) else \
                            [_path_prefix(argument) or argument]:
                        if use(part) is not None:
                            use(part).path_like = True
            for argument in arguments:
                passed = use(argument)
                if passed is not None:
                    if callee in SEED_TAKERS:
                        passed.seed = True
                    elif callee in NUMBER_CALLEES:
                        passed.number_arithmetic = True
                    elif callee not in NEUTRAL_CALLEES:
                        passed.fed_to.add(callee)
                    if callee == "range":
                        passed.in_range = True
                    elif _takes_sizes(callee):
                        passed.sizes = True
                    elif callee.split(".")[-1] == "to" and argument in node.args[:1]:
                        passed.device_like = True  # `x.to(device)`
                    elif callee in ELEMENTWISE_ARITHMETIC and argument is not (node.args[0] if node.args else None):
                        passed.arithmetic = True  # `torch.mul(loss, self.delta)`: a weight, as in `loss * w`
                    elif callee.startswith(("torch.", "F.")):
                        passed.torch_argument = True
                        passed.torch_input = passed.torch_input or (
                            bool(node.args) and argument is node.args[0] and _takes_a_tensor_input(callee))
            if callee in JOINING_CALLS and node.args and use(node.args[0]) is not None:
                # `torch.cat(batch.state)`: a replay memory's transitions, one tensor per sample
                use(node.args[0]).joined = JOINING_CALLS[callee]
            if callee.split(".")[-1] == "one_hot":
                # `F.one_hot(labels, n_classes)`: the number of classes is a whole number.
                count = node.args[1] if len(node.args) > 1 else \
                    next((k.value for k in node.keywords if k.arg == "num_classes"), None)
                if count is not None and use(count) is not None:
                    use(count).sizes = True
            for keyword in node.keywords:
                passed = use(keyword.value)
                if passed is not None and keyword.arg == "device":
                    passed.device_like = True
                if passed is not None and keyword.arg == "dtype":
                    passed.dtype_like = True
                if passed is not None and keyword.arg == "dropout":
                    passed.probability = True
            if isinstance(node.func, ast.Attribute) and node.func.attr == "type" and len(node.args) == 1 \
                    and not node.keywords:
                # `data.type(data_type)`: a tensor converted, to `torch.cuda.FloatTensor` in old code.
                if use(node.func.value) is not None:
                    use(node.func.value).moved = True
                if use(node.args[0]) is not None:
                    use(node.args[0]).dtype_like = True
            if callee.split(".")[-1].lower().startswith("dropout") and node.args and use(node.args[0]) is not None:
                use(node.args[0]).probability = True
            _mark_targets(node, callee, use)
            handed = _optimizer_parameters(node, callee)
            if handed is not None and use(handed) is not None:
                use(handed).iterated = use(handed).parameter_elements = True  # what `model.parameters()` gives
                use(handed).trained = True
            if _is_optimizer_class(callee):
                rate = node.args[1] if len(node.args) > 1 else next(
                    (keyword.value for keyword in node.keywords if keyword.arg == "lr"), None)
                if rate is not None and use(rate) is not None:
                    use(rate).learning_rate = True
            if callee in ITERATING_CALLS and node.args:
                for argument in node.args if callee == "zip" else node.args[:1]:  # zip iterates each
                    iterated = use(argument)
                    if iterated is not None:
                        iterated.iterated = True
        elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Store):
            if _key(node):
                use(node)  # every `self.x` read needs a value, even one whose use says nothing
            owner = use(node.value)
            if owner is not None and node.attr in TENSOR_METHODS | OPTIMIZER_METHODS | MODULE_METHODS | HOOK_METHODS:
                owner.methods.add(node.attr)
            if owner is not None and node.attr in LAYER_ATTRIBUTES:
                owner.layer_attributes = True
            if owner is not None and node.attr == "type" and id(node) not in called:
                owner.device_like = owner.type_read = True  # `device.type`; `x.type(torch.float)` is a tensor's
        elif isinstance(node, (ast.For, ast.comprehension)):
            iterable, target = node.iter, node.target
            if isinstance(iterable, ast.Name) and iterable.id in progress_bars:
                iterable = progress_bars[iterable.id]  # `loop = tqdm(loader)`, then `for x, y in loop:`
            # `enumerate(tqdm(loader))`, `tqdm(iter(loader))`: the loader, each batch the last name of `i, batch`.
            while isinstance(iterable, ast.Call) and ast.unparse(iterable.func) in ("enumerate", "tqdm", "tqdm.tqdm",
                                                                                     "iter") and iterable.args:
                if ast.unparse(iterable.func) == "enumerate":
                    target = target.elts[-1] if isinstance(target, ast.Tuple) and target.elts else None
                iterable = iterable.args[0]
            loaded = use(iterable)
            if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) and not iterable.args \
                    and iterable.func.attr in ("items", "values"):
                value = node.target.elts[-1] if iterable.func.attr == "items" and isinstance(node.target, ast.Tuple) \
                    and len(node.target.elts) == 2 else node.target
                if isinstance(value, ast.Name):
                    mapped.append((iterable.func.value, value.id))
            if loaded is not None:
                loaded.iterated = True
                if isinstance(target, (ast.Tuple, ast.List)):
                    loaded.unpacked = len(target.elts) if len(target.elts) != 1 else ONE_ITEM
                    first = target.elts[0] if target.elts else None
                    if isinstance(first, (ast.Tuple, ast.List)) and len(first.elts) > 1:
                        loaded.views = len(first.elts)  # two augmentations of each image (SimCLR, BYOL)
                elif isinstance(target, ast.Name):
                    batch_names.append((loaded, target.id))
        elif isinstance(node, (ast.BinOp, ast.AugAssign)):
            sides = (node.left, node.right) if isinstance(node, ast.BinOp) else (node.target, node.value)
            for side, other in (sides, sides[::-1]):
                for network in _networks_given(other, _key(side), assigned) if isinstance(node.op, (ast.Add, ast.Sub)) \
                        else ():
                    use(network).updates_its_input = True  # `x + step * score(x, t)`
                if isinstance(side, ast.Subscript) and _key(side.value) and _one_position(side.slice):
                    use(side.value).number_entries = True  # `sigmas[-1] ** 2`
                operand = use(side)
                if operand is not None:
                    operand.arithmetic = True
                    if isinstance(node.op, ast.Add) and _is_text(other):
                        operand.path_like = True  # `path + "/model.pt"`, `prefix + f"{epoch}.png"`
                    elif isinstance(node.op, ast.Add) and isinstance(other, ast.Tuple):
                        operand.shape = True  # `torch.rand((n,) + img_shape)`
                    elif isinstance(node.op, ast.Add) and _key(other):
                        added.append((operand, other))
                    if _is_number(other):
                        operand.number_arithmetic = True
                        if isinstance(ast.literal_eval(other), float):
                            operand.float_arithmetic = True
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = use(node.operand)
            if operand is not None:
                operand.arithmetic = True
        elif isinstance(node, ast.Subscript):
            indexed = use(node.value)
            if indexed is not None:
                indexed.indexed = True
                indexed.sliced |= not _one_position(node.slice)
            key = _key(node.slice)
            if key is not None and LABEL_NAMES.match(key.split(".")[-1]):
                use(node.slice).class_target = True  # `self.prototypes[labels]`
                if indexed is not None:
                    indexed.per_class = True  # `batch_eps = cw_eps[y]`: a value per class
            if isinstance(node.slice, ast.Subscript) and _key(node.slice.value) is not None:
                use(node.slice.value).class_target = True  # `output[i][y[i]]`: its elements are indices
            for picked in _picked_per_row(node.slice):
                use(picked).class_target = True  # `log_probs[torch.arange(n), y_target]`: one class per row
            if key is not None and _key(node.value) is not None:
                use(node.slice).keys_of.add(_key(node.value))
            if indexed is not None and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str) \
                    and node.slice.value not in indexed.string_keys:
                indexed.string_keys.append(node.slice.value)  # `sample["right_images"]`
            slices = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            beside_a_slice = any(isinstance(part, ast.Slice) for part in slices)
            for part in slices:
                negated = isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.USub)
                position = part.operand if negated else part
                if (negated or beside_a_slice) and _key(position) \
                        and not LABEL_NAMES.match(_key(position).split(".")[-1]):
                    use(position).position = True
            for part in (part for part in slices if isinstance(part, ast.Slice)):
                # `selected[0:K]`, `output[:, :end]`: a bound is an int
                for bound in (part.lower, part.upper, part.step):
                    if bound is not None and _key(bound):
                        use(bound).sizes = True
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
            for side, other in ((node.left, node.comparators[0]), (node.comparators[0], node.left)):
                measured = _batch_size_of(side)
                if measured is not None and isinstance(other, ast.Constant) and other.value == 1 \
                        and type(other.value) is int:
                    use(measured).one_sample = True  # `assert image.size(0) == 1`: attacks of one image
                if _key(side) and isinstance(other, ast.Constant) and isinstance(other.value, str):
                    compared = use(side)
                    if other.value not in compared.compared:
                        compared.compared.append(other.value)
                elif _key(side) and _is_number(other):
                    number = ast.literal_eval(other)
                    use(side).numbers.append(number)
                    if type(number) is int and number not in use(side).compared:
                        use(side).compared.append(number)  # `if optimizer_idx == 1:`: one of the values it is told
                elif _key(side) and isinstance(other, ast.BinOp) and (_is_number(other.left) or _is_number(other.right)):
                    use(side).number_arithmetic = True  # `epoch + 1 == Epoch`: a number, as what it equals is
                elif isinstance(other, ast.Constant) and type(other.value) is bool and use(side) is not None:
                    use(side).truth = True  # `if Params['aug'] == True:`: a flag (a name, or an entry)
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)) \
                and isinstance(node.comparators[0], ast.Constant) and node.comparators[0].value is None \
                and _key(node.left):
            use(node.left).none_tested = True
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)) \
                and isinstance(node.comparators[0], (ast.List, ast.Tuple, ast.Set)) and _key(node.left):
            # `if norm not in [np.inf, 1, 2]`, `mode in ("hinge", "wgan")`: one of those values.
            choices = [_choice(element) for element in node.comparators[0].elts]
            if choices and None not in choices:
                compared = use(node.left)
                compared.listed = compared.listed or isinstance(node.ops[0], ast.In)
                compared.compared.extend(c for c in choices if c not in compared.compared)
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == "requires_grad"
                                                  and _key(t.value) for t in node.targets):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and target.attr == "requires_grad" and _key(target.value):
                    switched = use(target.value)
                    switched.grad_switched = True
                    switched.switched_at = min(switched.switched_at or node.lineno, node.lineno)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Tuple):
            network = node.value.func
            if isinstance(network, ast.Attribute) and network.attr == "forward":
                network = network.value  # `dis_fake, _ = discriminator.forward(gen_fake)`: the network's outputs
            producer = use(network)
            if producer is not None:
                producer.returns = len(node.targets[0].elts)
            owner = use(network.value) if isinstance(network, ast.Attribute) else None
            if owner is not None:
                owner.method_returns[network.attr] = len(node.targets[0].elts)
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and _path_prefix(node.value) is not None \
                and use(_path_prefix(node.value)) is not None and _key(node.targets[0]):
            added.append((use(_path_prefix(node.value)), node.targets[0]))  # `model_path = f"{save_path}_{n}"`
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], (ast.Tuple, ast.List)) \
                and not any(isinstance(element, ast.Starred) for element in node.targets[0].elts):
            measured = node.value.func if isinstance(node.value, ast.Call) and not node.value.args else node.value
            if isinstance(measured, ast.Attribute) and measured.attr in ("size", "shape") and \
                    (measured.attr == "shape") != isinstance(node.value, ast.Call) and use(measured.value) is not None:
                use(measured.value).dims = len(node.targets[0].elts)
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], (ast.Tuple, ast.List)) \
                and _key(node.value) and all(isinstance(element, ast.Name) for element in node.targets[0].elts):
            unpacked_from = use(node.value)
            if unpacked_from is not None:
                unpacked_from.assigned_unpacked = len(node.targets[0].elts)  # `condition, real_data = batch`
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            use(node)  # read, if only returned or passed along: a value is needed, of no known kind
    # `x.requires_grad = True` says what the caller passes only when `x` is still the argument: after
    # `x = x.clone().detach()` it is the code's own copy.
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id in found \
                and node.lineno <= found[node.id].switched_at:
            found[node.id].grad_switched = False
    for operand, other in added:
        if use(other).path_like:
            operand.path_like = True  # `self.folder = path + self.folder`, `os.makedirs(self.folder)`: text
    for mapping, name in mapped:
        value = found.get(name)
        owner = use(mapping)
        if owner is not None and value is not None and value.methods & TENSOR_METHODS:
            owner.tensor_values = True  # `for n, p in self.params.items(): p.clone().detach()`
    for loaded, name in reversed(batch_names):  # inner loops first: an outer one reads how they unpack
        # `for real in batches: real.size(0)`: each batch is one tensor, not an (inputs, targets) pair.
        batch = found.get(name)
        if batch is not None and batch.methods & {"requires_grad", "grad"}:
            loaded.parameter_elements = True  # `[p.clone().detach() for p in parameters if p.requires_grad]`
        if batch is not None and batch.called and not batch.methods:
            loaded.called_items = True
        if batch is not None and batch.iterated and not batch.methods & TENSOR_METHODS:
            # A list of loaders (one per task, a continual-learning method's): each item's batches are
            # unpacked as the inner loop unpacks them.
            loaded.loader_items = True
            loaded.unpacked, loaded.views = batch.batch_keys or batch.unpacked, batch.views
            continue
        if batch is not None and not loaded.unpacked and batch.methods & TENSOR_METHODS and not batch.indexed:
            loaded.unpacked = 1
        elif batch is not None and not loaded.unpacked and batch.string_keys:
            loaded.batch_keys = tuple(batch.string_keys)  # `for sample in loader: sample["images"]`: dicts
    for node in ast.walk(function):
        # `train_data, val_data = data`, then `for batch in train_data`: a pair of loaders, not a batch.
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], (ast.Tuple, ast.List)) \
                and _key(node.value) in found:
            parts = [found.get(element.id) for element in node.targets[0].elts if isinstance(element, ast.Name)]
            inner = next((part for part in parts if part is not None and part.iterated), None)
            if inner is not None:
                found[_key(node.value)].unpacks_loaders = True
                found[_key(node.value)].unpacked, found[_key(node.value)].views = inner.unpacked, inner.views
    for node in ast.walk(function):
        # `X_real, _ = next(it)`: an iterator over a loader's batches, unpacked as a loop over it would.
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "next" \
                and len(node.args) == 1 and _key(node.args[0]):
            use(node.args[0]).iterated = True
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], (ast.Tuple, ast.List)) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Name) and node.value.func.id == "next" \
                and len(node.value.args) == 1 and _key(node.value.args[0]):
            use(node.value.args[0]).unpacked = len(node.targets[0].elts)
        # `loss = criterion(logits, labels)`, then `loss[i]`: a loss of one value per sample
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) and found.get(node.targets[0].id, Use()).indexed \
                and _key(node.value.func):
            use(node.value.func).results_indexed = True
        # `elbo = model(x)`, then `elbo.backward()`: a network that computes its own loss, one value.
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) and _key(node.value.func) and any(
                    isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "backward"
                    and not call.args and not call.keywords and isinstance(call.func.value, ast.Name)
                    and call.func.value.id == node.targets[0].id for call in ast.walk(function)):
            use(node.value.func).returns_loss = True
    for display in (node for node in ast.walk(function) if isinstance(node, ast.Tuple)):
        for element in display.elts:
            unpacked = use(element.value) if isinstance(element, ast.Starred) and _key(element.value) else None
            if unpacked is not None:
                unpacked.shape = True  # `torch.zeros((capacity, *obs_shape))`: the sizes of a shape
    _mark_tensor_operands(function, found)
    _mark_moved_tensors(function, found)
    _mark_copied(function, found)
    _mark_numpy_inputs(function, found)
    _mark_reconstructions(function, found)
    _mark_compared_with_data(function, found)
    _mark_typed_alike(function, found)
    for test in _tests(function):
        flag = use(test) if _key(test) else None
        if flag is not None:
            flag.truth = True
        if isinstance(test, ast.Compare) and all(isinstance(op, (ast.Lt, ast.Gt, ast.LtE, ast.GtE)) for op in test.ops):
            # `if clip_min > eps:` needs a Python bool: a tensor of several values would raise.
            for side in (test.left, *test.comparators):
                ordered = use(side) if _key(side) else None
                if ordered is not None:
                    ordered.ordered = True
    for compare in (node for node in ast.walk(function) if isinstance(node, ast.Compare)):
        # `logits.argmax(1) != labels`, `out.max(1)[1] == y`: what a prediction is compared with is class indices.
        sides = [compare.left, *compare.comparators]
        if all(isinstance(op, (ast.Eq, ast.NotEq)) for op in compare.ops) and any(map(_is_prediction, sides)):
            for side in sides:
                target = use(side) if _key(side) and not _is_prediction(side) else None
                if target is not None:
                    target.class_target = True
    _uses_through_locals(function, found)
    return found


def _uses_through_locals(function: ast.AST, found: dict) -> None:
    """A value whose only use is to be bound to a local the code rebinds later (`current_ids =
    initial_ids`, then `current_ids = diagnose(model)` in the loop; `_renames` takes a name bound once):
    the code uses it as it uses that local (`if tid in current_ids`, `len(current_ids)`)."""
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Name) and node.value.id != node.targets[0].id:
            source, local = found.get(node.value.id), found.get(node.targets[0].id)
            if local is not None and local.seen and (source is None or not source.seen):
                found[node.value.id] = replace(local)


def _mark_numpy_inputs(function: ast.AST, found: dict[str, Use]) -> None:
    """What the code gives `torch.from_numpy`, itself or through a slice bound to a name (`batch_data =
    train_data[i * n:(i + 1) * n]`, then `torch.from_numpy(batch_data)`): a NumPy array, which a
    tensor stand-in is not (`expected np.ndarray (got Tensor)`)."""
    given = {_key(node.args[0]) for node in ast.walk(function) if isinstance(node, ast.Call) and node.args
             and ast.unparse(node.func) in ("torch.from_numpy", "from_numpy") and _key(node.args[0])}
    sliced = {(node.targets[0].id, _key(node.value.value)) for node in ast.walk(function)
              if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
              and isinstance(node.value, ast.Subscript) and _key(node.value.value)}
    given |= {whole for part, whole in sliced if part in given}
    for key in given:
        found.setdefault(key, Use()).numpy_input = True


# A callee that compares two tensors as a loss does (`criterion(recon, x)`, `F.mse_loss`, `self.l1`, `bce`).
LOSS_CALLEE = re.compile(r"(?i)loss|criterion|crit\b|mse|l1|l2|bce|entropy|dist")


def _mark_reconstructions(function: ast.AST, found: dict[str, Use]) -> None:
    """`recon, mu, logvar = model(x)` (or `recon = model(x)`), then a loss of `recon` against `x`: the
    network reconstructs its input (a VAE's, an autoencoder's), so a stand-in's output takes its shape;
    a stand-in of class scores fails the loss (`Target size ... must be the same as input size`)."""
    calls = [node for node in ast.walk(function) if isinstance(node, ast.Call) and LOSS_CALLEE.search(ast.unparse(node.func))]
    for node in ast.walk(function):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call)
                and node.value.args and _key(node.value.func) in found):
            continue
        target = node.targets[0]
        first = target.elts[0] if isinstance(target, (ast.Tuple, ast.List)) and target.elts else target
        given = _key(node.value.args[0])
        if isinstance(first, ast.Name) and given and any(
                {first.id, given} <= {_key(argument) for argument in call.args[:2]} for call in calls):
            found[_key(node.value.func)].reconstructs_its_input = True


def _mark_compared_with_data(function: ast.AST, found: dict[str, Use]) -> None:
    """`(gan(zhat) - targets) ** 2`, or `out = net(z)` and then `out - x`: what the network gives is
    compared with values of the data (a generator fitted to images, a regression), so a stand-in's
    output is shaped like a sample; one of class scores fails the subtraction. So is one multiplied by
    the rows of a tensor (`out @ text_features.T`)."""
    results = {}  # a name bound to a network's result -> the network
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Call) and _key(node.value.func) in found:
            results[node.targets[0].id] = _key(node.value.func)

    def network_of(operand: ast.AST) -> Optional[str]:
        if isinstance(operand, ast.BinOp) and isinstance(operand.op, (ast.Mult, ast.Div)):
            return network_of(operand.left) or network_of(operand.right)  # `scale * features`
        if isinstance(operand, ast.Subscript):
            return network_of(operand.value)  # `features[0]`, one sample's
        if isinstance(operand, ast.Call) and _key(operand.func) in found and found[_key(operand.func)].called:
            return _key(operand.func)
        return results.get(operand.id) if isinstance(operand, ast.Name) else None

    for node in ast.walk(function):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
            for operand, other in ((node.left, node.right), (node.right, node.left)):
                network = network_of(operand)
                if network is not None and not isinstance(other, ast.Constant) and network_of(other) is None:
                    found[network].compared_with_data = True
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult) and _transposed(node.right):
            # `features @ text_features.T` (CLIP's logits): the output has the width of the rows it meets.
            network = network_of(node.left)
            if network is not None and network_of(node.right) is None:
                found[network].compared_with_data = True


def _mark_typed_alike(function: ast.AST, found: dict) -> None:
    """`assert type(eps) == type(alpha)` beside `isinstance(eps, float)`: both are Python numbers."""
    for compare in (node for node in ast.walk(function) if isinstance(node, ast.Compare)):
        sides = [compare.left, *compare.comparators]
        if len(sides) != 2 or not isinstance(compare.ops[0], (ast.Eq, ast.Is)):
            continue
        keys = [_key(side.args[0]) if isinstance(side, ast.Call) and ast.unparse(side.func) == "type"
                and len(side.args) == 1 else None for side in sides]
        if None in keys or not any(key in found and found[key].number_checked for key in keys):
            continue
        for key in keys:
            found.setdefault(key, Use()).number_checked = True


def _transposed(node: ast.AST) -> bool:
    """`w.T`, `w.t()`, `w.transpose(0, 1)`: a matrix turned over."""
    return isinstance(node, ast.Attribute) and node.attr in ("T", "mT") or isinstance(node, ast.Call) \
        and isinstance(node.func, ast.Attribute) and node.func.attr in ("t", "transpose")


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


MOVING_METHODS = frozenset({"to", "cuda", "cpu", "float", "double", "half", "type", "detach", "clone"})


def _mark_moved_tensors(function: ast.AST, found: dict[str, Use]) -> None:
    """`x = X.to(device)` where `x` is used as a tensor (`torch.cat([y, x])`, `x.size(0)`): `X` is one too,
    through chains of such moves (a module's `.to(device)` is called, never used so)."""
    moves = [(node.targets[0].id, _key(node.value.func.value)) for node in ast.walk(function)
             if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
             and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute)
             and node.value.func.attr in MOVING_METHODS and _key(node.value.func.value)]
    changed = True
    while changed:
        changed = False
        for name, source in moves:
            result, moved = found.get(name), found.get(source)
            if result is None or moved is None or moved.moved or name == source:
                continue
            if result.methods & TENSOR_METHODS or result.tensor_like or result.moved or result.makes_a_tensor:
                moved.moved = changed = True


COPYING_CALLS = frozenset({"copy.deepcopy", "deepcopy", "copy.copy"})


def _mark_copied(function: ast.AST, found: dict[str, Use]) -> None:
    """`new_model = copy.deepcopy(model)`, then `new_model.named_modules()`: the copy is used as what
    it copies is (a pruning function that only copies its `model` takes a network)."""
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Call) and ast.unparse(node.value.func) in COPYING_CALLS \
                and len(node.value.args) == 1 and _key(node.value.args[0]) and node.targets[0].id in found:
            copied = found[node.targets[0].id]
            original = found.setdefault(_key(node.value.args[0]), Use())
            original.methods |= copied.methods
            original.called = original.called or copied.called


def _mark_tensor_operands(function: ast.AST, found: dict[str, Use]) -> None:
    """`diff = out - original` where `diff.clone()` follows: the names the result is computed from
    with + - * / are tensors (a number would do for one of them, a tensor for both), through chains
    of such assignments."""
    computed = [(node.targets[0].id, node.value) for node in ast.walk(function)
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, (ast.BinOp, ast.UnaryOp))]
    changed = True
    while changed:
        changed = False
        for name, value in computed:
            result = found.get(name)
            if result is None or not (result.methods & TENSOR_METHODS or result.indexed or result.makes_a_tensor):
                continue
            operands = arithmetic_operands(value) if isinstance(value, ast.BinOp) else [value.operand]
            for operand in operands:
                used = found.get(_key(operand)) if _key(operand) else None
                if used is not None and not used.makes_a_tensor:
                    used.makes_a_tensor = changed = True


def _optimizer_parameters(call: ast.Call, callee: str) -> Optional[ast.expr]:
    """What a call hands an optimizer as the parameters it trains: `torch.optim.Adam(params, lr)`, or an
    optimizer of the file handing its own on, `super().__init__(params, defaults)` or
    `Optimizer.__init__(self, params, defaults)` (torch.optim's `Optimizer(params, defaults)`: a
    Lookahead or a Ranger written by hand)."""
    if _is_optimizer_class(callee):
        return call.args[0] if call.args else None
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "__init__"):
        return None
    receiver = call.func.value
    if isinstance(receiver, ast.Call) and ast.unparse(receiver.func) == "super":
        arguments = call.args
    elif ast.unparse(receiver).endswith("Optimizer"):
        arguments = call.args[1:]  # after `self`
    else:
        return None
    if len(arguments) != 2:
        return None
    defaults = arguments[1]
    named = isinstance(defaults, ast.Dict) or isinstance(defaults, ast.Name) and defaults.id == "defaults" \
        or isinstance(defaults, ast.Call) and ast.unparse(defaults.func) == "dict"
    return arguments[0] if named else None


def _is_optimizer_class(callee: str) -> bool:
    """`optim.Adam`, `torch.optim.SGD`, `Adam` (a class of torch.optim, by its name)."""
    found = getattr(torch.optim, callee.rsplit(".", 1)[-1], None)
    return isinstance(found, type) and issubclass(found, torch.optim.Optimizer)


def _batch_size_of(node: ast.AST) -> Optional[ast.AST]:
    """`x` of `x.size(0)`, `x.shape[0]`, `len(x)`, where `x` is a name or a `self.` attribute."""
    measured = None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size" \
            and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and node.args[0].value == 0:
        measured = node.func.value
    elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
            and isinstance(node.slice, ast.Constant) and node.slice.value == 0:
        measured = node.value.value
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1:
        measured = node.args[0]
    return measured if measured is not None and _key(measured) else None


def _takes_sizes(callee: str) -> bool:
    last = callee.split(".")[-1]
    return callee in SIZE_TAKERS or last in ("view", "reshape", "expand", "repeat", "resize_", "new_zeros",
                                             "new_ones", "new_empty") or last in SIZED_LAYERS


def _path_prefix(node: ast.AST) -> Optional[ast.AST]:
    """What an f-string starts with, where it starts with a value: `save_path` in `f"{save_path}_{n}"`
    (the folder a path is made under; later values, `{epoch}`, may be numbers)."""
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.FormattedValue) \
            and node.values[0].format_spec is None:
        return node.values[0].value
    return None


def arithmetic_operands(node: ast.AST) -> list:
    """The operands of nested arithmetic: `a * b**2 // c` -> a, b, 2, c."""
    if isinstance(node, ast.BinOp):
        return arithmetic_operands(node.left) + arithmetic_operands(node.right)
    return [node]


def _is_prediction(node: ast.AST) -> bool:
    """`x.argmax(...)`, `torch.argmax(x, ...)`, `x.max(1)[1]`: the predicted class of each sample."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "argmax":
        return True
    return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == 1 \
        and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute) \
        and node.value.func.attr == "max" and bool(node.value.args or node.value.keywords)


def _mark_targets(call: ast.Call, callee: str, use: Callable) -> None:
    """Class-index targets and indices among a call's arguments: the target of a classification loss
    (or of a loss object called with a label-named target), what is one-hot encoded or embedded; and the
    targets of losses of values, which are not indices."""
    last = callee.split(".")[-1]
    target = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "target"), None)
    first = call.args[0] if call.args else None
    marked = None
    if last in CLASS_LOSSES:
        marked = (target, "class")
    elif last in VALUE_LOSSES:
        marked = (target, "value")
    elif LOSS_NAME.search(last) and target is not None and _key(target) \
            and LABEL_NAMES.match(_key(target).split(".")[-1]):
        marked = (target, "class")  # `criterion(out, labels)`: an object of unknown kind, a label-named target
    elif last == "one_hot" or re.search(r"(?i)emb", last):
        marked = (first, "class")  # `F.one_hot(y, 10)`, `self.label_emb(labels)`
    elif last in INDEX_TAKERS:
        # `torch.index_select(bank, 0, idx.view(-1))`, `bank.index_copy_(0, y, rows)`: indices.
        position = 2 if callee.startswith("torch.") else 1
        index = call.args[position] if len(call.args) > position else \
            next((k.value for k in call.keywords if k.arg == "index"), None)
        while isinstance(index, ast.Call) and isinstance(index.func, ast.Attribute) and index.func.attr in INDEX_VIEWS:
            index = index.func.value
        marked = (index, "position")
    if marked is None or marked[0] is None or _key(marked[0]) is None:
        return
    found = use(marked[0])
    if marked[1] == "class":
        found.class_target = True
    elif marked[1] == "position":
        found.position_index = True
    else:
        found.value_target = True


# ------------------------------------------------------------------------ the stand-ins


# Attributes that name the network a wrapper holds (DataParallel's `module`, a continual learner's
# `model.model`, a detector's `backbone`): on a stand-in network, the stand-in itself.
WRAPPED_NETWORK_NAMES = frozenset({"module", "model", "net", "network", "backbone", "base_model"})
# A size a network keeps of its input (`G.latent_size`, `G.z_dim`, `netG.nz`, `model.input_dim`): the
# code makes the network's input with it (`torch.randn(b, G.latent_size)`), which a stand-in reads at any width.
SIZE_ATTRIBUTE = re.compile(r"(?i)^(num_|n_)?(n?z|latent|noise|code|input|in|hidden|embed(ding)?|feature)s?_?"
                            r"(dim|dims|size|length|features|channels|dimension)$|^nz$")


class StandInNet(nn.Module):
    """A small network that reads any input: each tensor of the first one's batch, pooled to FEATURES
    values and summed, then a Linear. Every input reaches the output, so a gradient can flow back
    through any of them (`D(x, E(x))`: a stand-in that read only `x` would hide the encoder's graph
    and refute a true claim)."""

    def __init__(self, out_shape: tuple, returns: int = 0, loss: bool = False, like_input: bool = False,
                 forwarded: tuple = ()):
        super().__init__()
        # Methods of the project's network the code calls on its input (`model.get_embedding(x)`,
        # `net.encode(x)`): answered by `forward`.
        self.forwarded = frozenset(forwarded)
        self.out_shape = (1,) if like_input else tuple(out_shape)
        self.like_input = like_input  # an output of its input's shape (a score network's, a denoiser's)
        self.returns = returns  # the code unpacks its result into this many values (0: a single tensor)
        self.loss = loss  # the code backpropagates its result as it is: one value, the mean over the batch
        self.linear = nn.Linear(FEATURES, math.prod(self.out_shape))

    def forward(self, *inputs, **keywords):
        tensor = _first_tensor([*inputs, *keywords.values()])  # a batch of (inputs, targets) too
        if tensor is None:
            raise TypeError("the stand-in network got no tensor")
        pooled = _pooled(tensor)
        for other in _tensors([*inputs, *keywords.values()])[1:]:
            if other.dim() > 0 and other.shape[0] == tensor.shape[0] and other.is_floating_point():
                pooled = pooled + _pooled(other)
        # Squashed into (0, 1): a made-up network may stand for a discriminator whose scores a
        # `BCELoss` takes as probabilities ("all elements of input should be between 0 and 1"), and
        # values in (0, 1) serve as logits, images or regressions as well. The sigmoid is written as
        # a tanh, scaled and shifted: its last operations keep nothing of their result for the
        # backward, as a real network's last Linear does, so the code may change the output in place
        # (`output.pow_(2)`); `torch.sigmoid` keeps its output, and such a write would fail on the
        # stand-in alone.
        logits = self.linear(pooled)
        output = (0.5 * torch.tanh(0.5 * logits) + 0.5).reshape(tensor.shape[0], *self.out_shape)
        if self.like_input:
            output = output.reshape(tensor.shape[0], *([1] * (tensor.dim() - 1))) * torch.ones_like(tensor)
        if self.returns > 1:
            # The extra values (features, class logits, attention maps): as wide as the features or the
            # classes, whichever is more, computed from the same input and weights, so that a loss on
            # them (a class target < CLASSES) backpropagates too.
            width = max(FEATURES, CLASSES)
            features = pooled.repeat(1, -(-width // FEATURES))[:, :width] \
                + output.reshape(tensor.shape[0], -1).mean(dim=-1, keepdim=True)
            return (output, *(features for _ in range(self.returns - 1)))
        return output.mean() if self.loss else output

    @property
    def device(self) -> torch.device:
        # Many networks keep their device (Hugging Face's models, a project's base class), and the code
        # moves its inputs there: `input_ids.to(model.device)`.
        return self.linear.weight.device

    @property
    def dtype(self) -> torch.dtype:
        return self.linear.weight.dtype

    def get_input_embeddings(self) -> nn.Module:
        """A language model's token embeddings (Hugging Face's API), which attacks on text read and
        perturb: `model.get_input_embeddings()(input_ids)`. Made at the first call, on the network's device."""
        if "token_embeddings" not in self._modules:
            from torchcopylint.verify import script

            script.note(f"the stand-in network's `get_input_embeddings()` was an Embedding({VOCABULARY}, {FEATURES}) "
                        f"taking any id (modulo {VOCABULARY})")
            self.token_embeddings = _StandInEmbedding(VOCABULARY, FEATURES).to(self.device)
        return self.token_embeddings

    def __getattr__(self, name: str):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name not in WRAPPED_NETWORK_NAMES and not SIZE_ATTRIBUTE.match(name) and \
                    name not in self.__dict__.get("forwarded", ()):
                raise
        from torchcopylint.verify import script

        if name in self.forwarded:
            script.note(f"the stand-in network's `{name}()` (a method of the project's network) was its forward")
            return self.forward
        if SIZE_ATTRIBUTE.match(name):
            script.note(f"the stand-in network's `.{name}` (a size of its input) was {FEATURES}: it reads any width")
            return FEATURES
        # `model.module` (DataParallel), `self.model.model` (a wrapper's backbone): the network wrapped
        # is the stand-in itself.
        script.note(f"the stand-in network's `.{name}` (a wrapped network) was the stand-in itself")
        return self

    def describe(self) -> str:
        shown = f"StandInNet(any -> {FEATURES} -> Linear -> sigmoid -> " + \
            ("mean, a loss" if self.loss else "its input's shape" if self.like_input
             else 'x'.join(map(str, self.out_shape)) or '1, flat')
        return shown + (f", {self.returns} outputs)" if self.returns > 1 else ")")


class _StandInEmbedding(nn.Embedding):
    """Token embeddings that take any ids: made-up ids are not bounded by a vocabulary the code never said."""

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return super().forward(ids.long() % self.num_embeddings)


def _pooled(tensor: torch.Tensor) -> torch.Tensor:
    flat = tensor.float().reshape(tensor.shape[0], -1) if tensor.dim() > 1 else tensor.float().unsqueeze(1)
    return F.adaptive_avg_pool1d(flat.unsqueeze(1), FEATURES).squeeze(1)


def _tensors(values: Any) -> list:
    """Every tensor among the values, in order, inside tuples and lists too."""
    found = []
    for value in values:
        if isinstance(value, torch.Tensor):
            found.append(value)
        elif isinstance(value, (tuple, list)):
            found += _tensors(value)
    return found


def _first_tensor(values: Any) -> Optional[torch.Tensor]:
    for value in values:
        if isinstance(value, torch.Tensor):
            return value
        if isinstance(value, (tuple, list)):
            found = _first_tensor(value)
            if found is not None:
                return found
    return None


class StandInLoss:
    """A loss stand-in: the mean squared difference of its first two tensors (broadcast), or the mean of
    one, plus the mean square of every further floating-point tensor; `per_sample`, one value per sample
    (`reduction="none"`). Called, or through `forward` (`criterion.forward(out, target)`), as a loss
    module is; indexed, as a list of losses is."""

    def __init__(self, per_sample: bool = False) -> None:
        self.per_sample = per_sample

    def __call__(self, *inputs, **keywords):
        tensors = [t for t in [*inputs, *keywords.values()] if isinstance(t, torch.Tensor)]
        if not tensors:
            raise TypeError("the stand-in loss got no tensor")
        squared, rest = tensors[0].float().pow(2), tensors[1:]
        if len(tensors) > 1:
            try:
                squared, rest = (tensors[0].float() - tensors[1].float()).pow(2), tensors[2:]
            except RuntimeError:
                pass
        # Every input reaches the value, as in a real loss of them all (`loss_d(real, wrong, fake)`): a
        # stand-in that read only two would hide the graph behind a third and refute a true claim.
        further = [t.float().pow(2) for t in rest if t.is_floating_point()]
        if not self.per_sample:
            return squared.mean() + sum(term.mean() for term in further)
        per_sample = squared.flatten(1).mean(1) if squared.dim() > 1 else squared
        for term in further:
            same_batch = term.dim() > 0 and per_sample.dim() == 1 and term.shape[0] == per_sample.shape[0]
            per_sample = per_sample + (term.flatten(1).mean(1) if same_batch and term.dim() > 1
                                       else term if same_batch else term.mean())
        return per_sample

    forward = __call__

    def __getitem__(self, index) -> "StandInLoss":
        return self  # `criterion[0](out, y)`: a list of losses, each the stand-in

    def to(self, *args, **keywords) -> "StandInLoss":
        return self  # `self.bce_loss.to(device)`, as a loss module is moved: it holds no tensor

    cuda = cpu = float = double = half = train = eval = to


class DoNothing:
    """Stands in for an attribute whose use says nothing (a logger, a writer): every call does nothing."""

    def __getattr__(self, name):
        return self

    def __call__(self, *args, **kwargs):
        return None

    def __repr__(self):
        return "a do-nothing object"


class TensorsByMethod:
    """Stands in for an object the code only calls methods of that no library has (`posteriors.kl()`, a
    distribution of the project's): each of those methods gives a tensor of stand-in values, the same
    at every call and in both versions of the code (seeded by its name), plus the mean of each tensor
    it is given: what the code hands it reaches what it gives (its changes, its graph), so that the
    stand-in can hide no effect of the code (an alias read through `config.lookup(alias)`)."""

    def __init__(self, methods: tuple, shape: tuple, device: str, unpacked: Optional[dict] = None):
        self._methods, self._shape, self._device = frozenset(methods), tuple(shape), device
        self._unpacked = unpacked or {}  # method -> how many values the code takes its result apart into

    def __getattr__(self, name: str):
        if name == "device":  # `torch.zeros(n, device=ctx.device)`
            return torch.device(self._device)
        if name == "dtype":
            return torch.float32
        if name.startswith("_") or name not in self._methods:
            raise AttributeError(name)

        def method(*args, **kwargs):
            generator = torch.Generator().manual_seed(zlib.crc32(name.encode()))
            tensors = [t for t in _tensors([*args, *kwargs.values()]) if t.numel()]
            given = sum(t.float().mean() for t in tensors)
            # Given tensors, a value of the first one's shape: what a schedule or a process of the project
            # computes elementwise (`sde.sigma_t(t).item()` of a one-element `t`, `drift(x, t)` of `x`).
            shape = tensors[0].shape if tensors else self._shape
            count = self._unpacked.get(name, 0)
            if count:  # `s, a, r, s_, done = buffer.numpy_to_tensor()`: that many tensors
                return tuple(torch.rand(shape, generator=generator).to(self._device) + given for _ in range(count))
            return torch.rand(shape, generator=generator).to(self._device) + given
        return method

    def __repr__(self):
        shown = ", ".join(f"`{method}()`" for method in sorted(self._methods))
        return f"an object whose {shown} give{'s' if len(self._methods) == 1 else ''} stand-in values, a " \
               f"tensor of the shape of the first tensor given, else {self._shape}"


class StandInSGD:
    """Plain SGD over the given parameters, without torch.optim (whose first use imports seconds of
    torch._dynamo): `zero_grad`, `step`, `param_groups` as the code calls them."""

    def __init__(self, parameters, lr: float = 0.01, stands_for: str = ""):
        self.param_groups = [{"params": list(parameters), "lr": lr}]
        self.state: dict = {}
        self.stands_for = stands_for

    def zero_grad(self, set_to_none: bool = True):
        for parameter in self.param_groups[0]["params"]:
            if set_to_none:
                parameter.grad = None
            elif parameter.grad is not None:
                parameter.grad.zero_()

    def step(self, closure=None):
        loss = closure() if closure is not None else None
        with torch.no_grad():
            for group in self.param_groups:
                for parameter in group["params"]:
                    if parameter.grad is not None:
                        parameter.add_(parameter.grad, alpha=-group["lr"])
        return loss

    def state_dict(self):
        return {"state": {}, "param_groups": [{"lr": g["lr"]} for g in self.param_groups]}

    def load_state_dict(self, state):
        return None


class StandInScaler:
    """A GradScaler stand-in with scale 1: `scale(loss)` is the loss, `step(opt)` steps it."""

    def scale(self, value):
        return value

    def step(self, optimizer, *args, **kwargs):
        return optimizer.step(*args, **kwargs)

    def update(self, *args, **kwargs):
        return None

    def unscale_(self, optimizer):
        return None

    def get_scale(self):
        return 1.0


def stand_in_tensor(device: str, shape: tuple = (BATCH, FEATURES), name: str = "") -> torch.Tensor:
    """A non-leaf that requires grad, as a tensor inside a model would be. Its leaf is marked: a
    value that requires grad only through it rests on that assumption (see `assumed_through`)."""
    leaf = torch.randn(*shape, device=device, requires_grad=True)
    mark_stand_in(leaf, f"`{name}`, a stand-in" if name else "a stand-in")
    # `leaf + 0.0` saves nothing for its backward (`leaf * 1.0` saves the 1.0): code that backpropagates
    # through the same input at each of its steps (an attack's, an inner loop's) can, as with real data.
    return leaf + 0.0


# How a stand-in for what the code hands an optimizer to train is named in the evidence: a network's
# parameters, which require grad by what torch.optim is for, not by a guess of the verifier.
OPTIMIZED_PARAMETER = "a stand-in parameter, which the code hands an optimizer to train"


def mark_stand_in(leaf: torch.Tensor, what: str) -> None:
    setattr(leaf, STAND_IN_MARK, what)


def assumed_through(tensor: Any) -> list[str]:
    """What made-up tensors a value requires grad through, when it requires grad through nothing
    else (no parameter, no leaf of the code's own): a claim that needs it to require grad then rests
    on how the stand-in was made, and the evidence must say so. [] when nothing is assumed."""
    if not isinstance(tensor, torch.Tensor) or not tensor.requires_grad:
        return []
    if tensor.grad_fn is None:
        mark = getattr(tensor, STAND_IN_MARK, None)
        return [mark] if mark else []
    marks = []
    for leaf in walk_graph([tensor], limit=100_000)[1]:
        mark = getattr(leaf, STAND_IN_MARK, None)
        if mark is None:
            return []  # a leaf of the code's own (a parameter) requires grad: no assumption
        if mark not in marks:
            marks.append(mark)
    return marks


class StandInLoader(list):
    """A short list of batches that also answers `len(loader.dataset)` and `loader.batch_size`."""

    batch_size = BATCH

    def __iter__(self):
        # As a DataLoader's iterator, it has the loader's length (`n = min(len(iter_a), len(iter_b))`).
        return Batches(lambda index: list.__getitem__(self, index), list.__len__(self))

    def __len__(self) -> int:
        # A real loader's length where an earlier try divided by a part of it (verify/script.py).
        from torchcopylint.verify import script  # (script's own imports never reach this module)

        return script.argument_loader_length(list.__len__(self))

    @property
    def dataset(self) -> list:
        return [sample for batch in self for sample in zip(*batch)] if self and isinstance(self[0], tuple) \
            else [sample for batch in self for sample in batch]

    def __next__(self):
        # `X_real, _ = next(it)`, where the code is handed an iterator over a loader's batches.
        if "_batches" not in self.__dict__:
            self._batches = iter(self)
        return next(self._batches)


# A loop that unpacks each batch into one name (`for (x,) in loader`, a TensorDataset of one tensor):
# batches are lists of one tensor (1 stands for batches that are the tensor itself).
ONE_ITEM = -1

# A loader, or a list of them.
LOADER_KINDS = frozenset({"loader", "loaders", "loader batch"})  # a loader, a list of them, or one of its batches


def stand_in_loader(unpacked: Any, labels: str, device: str, sample: tuple = (FEATURES,),
                    views: int = 0, tokens: Optional[int] = None, batch: int = BATCH) -> StandInLoader:
    """Batches as the loop unpacks them: (inputs, targets, ...) for a count, the inputs a list of
    `views` tensors where the loop unpacks them (`for (x1, x2), y in loader`); a dict of the keys
    the code reads for a tuple of string keys (class indices under a key named like labels). With
    `tokens`, the inputs are FEATURES token indices below it per sample (for a network that embeds them).
    `batch` samples each."""
    batches = StandInLoader()
    if isinstance(unpacked, tuple):
        for _ in range(BATCHES):
            batches.append({key: _batch_part(class_indices(batch, CLASSES, device)) if LABEL_NAMES.match(key)
                            else _batch_part(torch.randn(batch, *sample, device=device)) for key in unpacked})
        return batches
    for _ in range(BATCHES):
        inputs = torch.randn(batch, *sample, device=device) if tokens is None else \
            torch.randint(0, tokens, (batch, FEATURES), device=device)
        if labels == "classes":
            targets = class_indices(batch, CLASSES, device)
        else:
            targets = torch.randn(batch, CLASSES, device=device)
        inputs, targets = _batch_part(inputs), _batch_part(targets)
        extra = [_batch_part(torch.arange(batch, device=device)) for _ in range(max(0, unpacked - 2))]
        if views > 1:
            inputs = [inputs, *(_batch_part(torch.randn(batch, *sample, device=device)) for _ in range(views - 1))]
        batches.append(inputs if unpacked == 1 else [inputs] if unpacked == ONE_ITEM else (inputs, targets, *extra))
    return batches


def _batch_part(tensor: torch.Tensor) -> torch.Tensor:
    setattr(tensor, BATCH_PART_MARK, True)
    return tensor


def made_up_batch_part(value: Any) -> bool:
    """Is the value a tensor of a made-up loader's batch, or a view of one (`batch["X"].squeeze()`), not
    what the code computed from one?"""
    return isinstance(value, torch.Tensor) and any(getattr(tensor, BATCH_PART_MARK, False)
                                                   for tensor in (value, value._base) if tensor is not None)


# ------------------------------------------------------------------------ kinds and plans


def may_be_namespace(name: str) -> bool:
    """A name whose attributes can be options: a plain name (`args`) or an attribute of the object
    (`self.params`, a trainer's hyperparameters)."""
    return "." not in name or (name.startswith("self.") and name.count(".") == 1)


def option_uses(function: ast.AST, name: str) -> dict[str, Use]:
    """The uses of `name`'s attributes (`args.lr`, `opt.n_iter`, `self.params.max_epoch`), keyed
    "name.attr", when the function reads `name` as a namespace of options: it reads attributes of it
    that no tensor, module or optimizer has, calls none of them, and otherwise only passes it on.
    Empty otherwise."""
    parents = {id(child): parent for parent in ast.walk(function) for child in ast.iter_child_nodes(parent)}
    called = {id(node.func) for node in ast.walk(function) if isinstance(node, ast.Call)}
    attributes: set[str] = set()
    for node in ast.walk(function):
        if not (isinstance(node, (ast.Name, ast.Attribute)) and _key(node) == name and isinstance(node.ctx, ast.Load)):
            continue
        parent = parents.get(id(node))
        if isinstance(parent, ast.Attribute):
            above = parents.get(id(parent))
            if _special(parent.attr):
                continue  # `args.__dict__` (to save the options): what any namespace has, no option
            if id(parent) in called or isinstance(above, ast.Attribute) or not isinstance(parent.ctx, ast.Load):
                return {}  # `x.method()`, `model.fc.weight`, `x.attr = v`: an object of its own
            attributes.add(parent.attr)
        elif not (isinstance(parent, ast.Call) and node in parent.args or isinstance(parent, ast.keyword)
                  or isinstance(parent, ast.Assign) and parent.value is node):
            return {}  # indexed, iterated, computed with: not a namespace (kept, `self.config = config`, it may be)
        elif isinstance(parent, ast.Call) and ast.unparse(parent.func) in ITERATING_CALLS:
            return {}  # `enumerate(test_loader)`, then `test_loader.dataset`: a loader, iterated
    if not attributes - (TENSOR_METHODS | MODULE_METHODS | OPTIMIZER_METHODS | HOOK_METHODS | LAYER_ATTRIBUTES
                         | DEVICE_ATTRIBUTES):
        return {}  # `x.shape`, `device.type`: what a tensor or a device has

    class AsNames(ast.NodeTransformer):
        def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
            if isinstance(node.value, (ast.Name, ast.Attribute)) and _key(node.value) == name and not _special(node.attr):
                return ast.copy_location(ast.Name(f"{name}.{node.attr}", node.ctx), node)
            return self.generic_visit(node)

    found = uses(AsNames().visit(ast.parse(ast.unparse(function))))
    # `use_rs = config.use_rs`, then `if not use_rs:`: the option is used as the local it is copied to.
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Attribute) and _key(node.value.value) == name:
            key, local = f"{name}.{node.value.attr}", found.get(node.targets[0].id)
            if local is not None and local.seen and not found.get(key, Use()).seen:
                found[key] = local
    return {key: use for key, use in found.items() if key.startswith(f"{name}.")}


def _special(attribute: str) -> bool:
    """`__dict__`, `__class__`: an attribute every object has, which Python itself defines."""
    return attribute.startswith("__") and attribute.endswith("__")


def _unpacked_as_a_batch(use: Use) -> bool:
    """`x, _ = batch` and nothing else done with it: a loader's batch, whatever its annotation says
    (`batch: torch.Tensor` in a Lightning step that unpacks images and labels)."""
    return use.assigned_unpacked > 1 and not (use.methods or use.indexed or use.arithmetic or use.called)


def _a_schedule(use: Use) -> bool:
    """Numbers read one position at a time (`sigmas[-1] ** 2`), iterated or not (`for sigma in sigmas:`),
    and used no other way: a schedule of noise levels or step sizes. (Iterated only, it may as well be a
    loader whose batches the code computes with; a loader is not read at a position.)"""
    return use.number_entries and not (use.sliced or use.methods or use.called or use.unpacked or use.views
                                       or use.fed_to or use.torch_argument or use.per_class)


def _half_everywhere(*arguments: Any, **keywords: Any) -> float:
    """An item of a list of functions the code calls (an input signal of time): the same number always."""
    return 0.5


def ints_annotated(annotation: Any) -> bool:
    """`list[int]`, `List[int]`, `Sequence[int]`, `tuple[int, ...]`: whole numbers, several (the annotation as
    written, or as `typing` evaluated it)."""
    text = annotation if isinstance(annotation, str) else str(annotation)
    return bool(re.fullmatch(r"(typing\.)?(list|List|Sequence|tuple|Tuple|Iterable)\[int(, \.\.\.)?\]", text))


def kind_of(name: str, use: Use, annotation: Any = inspect.Parameter.empty) -> Optional[str]:
    """module | layer | loss | path | optimizer | optimizer class | scaler | parameters | loader | loaders | functions | loader batch | labels | dict | tensors | tensor | schedule | int | count | start | float |
    bool | device | torch.device | dtype | batch | choice | index | indices | sizes, or None.

    What the code does with the value decides, the strongest evidence first: the objects it calls
    methods of (a module, an optimizer, a loader); a tensor where tensor methods are used or it is
    indexed; a device where `.type` is read or it is passed as `device=`; a number where Python
    needs one (`if clip_min > eps`, `range(n)`, arithmetic with numbers); a choice compared with
    strings; a flag where it is only branched on; a tensor, last, where it is only passed to torch.
    Labels (class indices `0, 1, 2, 3`) where the value is the target of a classification loss, is
    one-hot encoded, embedded or indexes with a label's name, or is named like labels (`labels`, `y`,
    `targets`) with no use that says it holds values (the target of a loss of values, arithmetic)."""
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    bare = name.split(".")[-1]
    if _a_schedule(use) and text not in ("int", "float", "bool", "str"):
        return "schedule"  # `for sigma in sigmas: eps * sigma ** 2 / sigmas[-1] ** 2`: numbers, one per step
    if "Tensor" in str(text) and not _unpacked_as_a_batch(use):
        # A tensor of class indices, where the code picks or embeds with it (`y_target: torch.Tensor`).
        return "labels" if use.class_target else "tensor"
    if text in ("int", "float", "bool"):
        if text == "int" and INDEX_NAMES.match(bare):
            return "index"
        return "count" if text == "int" and COUNT_NAMES.match(bare) else text
    if ints_annotated(annotation):
        return "sizes" if SIZE_LIST_WORDS.search(bare) else "indices"
    if str(text).endswith("device"):
        return "device"
    if use.methods & SCALER_ONLY_METHODS and not use.methods & MODULE_METHODS:
        return "scaler"
    if use.shape and not (use.methods & TENSOR_METHODS or use.called):
        return "shape"  # the shape of one sample: the stand-in batches' own
    if (use.methods & HOOK_METHODS or use.layer_attributes) and not use.called and not use.methods & MODULE_METHODS:
        return "layer"
    # An optimizer has a `state_dict()` too: `.step()` and `.param_groups`, and nothing only a module has, say which.
    optimizer_only = bool(use.methods & (OPTIMIZER_METHODS - SHARED_METHODS)) and not use.called \
        and use.methods <= SHARED_METHODS | OPTIMIZER_METHODS
    # `img.requires_grad_(True)` beside `img.clone()`: a tensor's method as much as a module's.
    # So is one otherwise used as a tensor: given to a torch function, computed with (`torch.zeros_like(obs)`,
    # `delta + obs` beside `obs.requires_grad_(True)`).
    tensor_only = bool(use.methods & TENSOR_METHODS or use.torch_input or use.arithmetic) \
        and use.methods & MODULE_METHODS <= TENSORS_TOO and not use.called
    if LOSS_NAME.search(bare) and use.methods == {"forward"}:
        return "loss"  # `loss = criterion.forward(out, target)`: a loss module called through its method
    if use.methods & MODULE_METHODS and not optimizer_only and not tensor_only:
        return "module"
    if bare in WRAPPED_NETWORK_NAMES and use.methods and not use.methods & KNOWN_METHODS and not (
            use.indexed or use.iterated or use.arithmetic):
        return "module"  # `model.get_embedding(x)`: a network, through a method of the project's class
    if use.called and use.makes_optimizer:
        return "optimizer class"
    if use.called:
        return "loss" if LOSS_NAME.search(bare) else "module"
    if use.methods & OPTIMIZER_METHODS:
        return "optimizer"
    if use.iterated and use.parameter_elements and not use.methods & (TENSOR_METHODS | MODULE_METHODS):
        return "parameters"  # what `model.parameters()` gives: data batches never have `requires_grad` read
    if use.joined and not (use.methods & TENSOR_METHODS or use.indexed or use.arithmetic):
        return "tensor sequence"  # `torch.cat(batch.state)`: a tuple of tensors, one per sample
    if use.iterated and use.called_items and not use.methods & TENSOR_METHODS:
        return "functions"  # `[sig(t) for sig in signal]`: functions of time, each giving a number
    if use.iterated and use.loader_items and not use.methods & TENSOR_METHODS:
        return "loaders"  # `for loader in loaders: for x, y in loader`
    if use.iterated and not use.methods & TENSOR_METHODS and not use.fed_to & OWN_FORWARD:
        # (Also handed whole to the module's own forward, `y = self.forward(x_pde)` beside `for t in x_pde`:
        # an input tensor, iterated by rows.)
        return "loader"  # iterated and sized (`zeros(x.size())`, `for row in x`): a tensor, by rows
    if use.assigned_unpacked > 1 and use.unpacks_loaders:
        return "loaders"  # `train_data, val_data = data`, each iterated
    if _unpacked_as_a_batch(use):
        return "loader batch"  # `condition, real_data = batch` (a Lightning module's `training_step(batch)`)
    if use.dict_key:
        return "choice"  # `self.count[mode]` where `self.count = {"train": 0, "test": 0}`
    if use.class_target or use.position_index or (LABEL_NAMES.match(bare) and use.seen and not (
            use.value_target or use.arithmetic or use.torch_argument or use.indexed or use.ordered or use.in_range
            or use.sizes)):
        # class indices: a loss target, an index, one-hot encoded or embedded; as a dataset's array where
        # the code makes tensors of it (`torch.from_numpy(label)`)
        return "label array" if use.numpy_input and not use.methods & (TENSOR_METHODS - ARRAY_METHODS) else "labels"
    if use.string_keys and not (use.methods & TENSOR_METHODS or use.arithmetic or use.torch_argument):
        return "dict"  # `batch["images"]`, `batch["labels"]`: a dict of the keys the code reads
    if use.path_like and not (use.methods & TENSOR_METHODS or use.indexed or use.ordered or use.in_range):
        return "path"  # where the code saves or reads: a folder of the project, where writes go nowhere
    if use.tensor_values and not use.methods & TENSOR_METHODS:
        return "tensors"  # `for n, p in params.items(): p.clone()`: a dict of tensors
    if use.via_callee is not None and not (use.methods & TENSOR_METHODS or use.tensor_like) and not (
            use.via_callee in ("float", "number tensor") and (use.in_range or use.range_start or use.sizes)):
        # (A bound of the function's own `range(steps)` is a whole number, whatever the callee does with
        # it: `_checkpoints(steps)` computing `int(round(0.22 * steps))`.)
        return use.via_callee  # `adopt_weight(w, global_step)`, where `if global_step < threshold:`
    if use.dtype_like and not (use.methods & TENSOR_METHODS or use.indexed or use.arithmetic):
        return "dtype"  # `torch.randn(n, dtype=dtype)`, `x.to(dtype=dtype)`
    if use.numpy_input and not use.methods & (TENSOR_METHODS - ARRAY_METHODS) and not use.moved:
        return "array"  # `torch.from_numpy(x[i:j])`: random values of a sample's shape, as a NumPy array
    own_methods = use.methods - KNOWN_METHODS
    if own_methods and use.methods - own_methods <= {"device", "dtype"} and not name.startswith("self.") and not (
            use.indexed or use.iterated or use.called or use.arithmetic or use.torch_argument or use.moved):
        # `posteriors.kl()`, `ctx.inc_iter()` beside `device=ctx.device`: an object of the project's,
        # whose methods give tensors.
        return "tensor methods"
    if use.number_checked and not use.called:
        # `isinstance(eps, float)` beside `eps.view(-1, 1, 1, 1)` in the branch for a tensor: the number is
        # the code's first case, and what its callers pass (an attack's `eps=8/255`).
        return "float"
    if use.methods & TENSOR_METHODS or use.indexed or use.moved:
        return "tensor"
    if use.makes_a_tensor and not (use.ordered or use.in_range or use.range_start or use.sizes or use.truth
                                   or FLOAT_NAMES.match(bare)):
        return "tensor"
    if use.listed and use.compared and not use.called:
        return "choice"  # `assert target_size in [64, 128, 256]` beside `if target_size >= 128:`: one of them
    if use.type_read:
        return "torch.device"
    if use.device_like or bare in DEVICE_NAMES:
        return "device"
    if BATCH_NAMES.match(bare):
        return "batch"
    if use.range_start:
        return "start"  # `range(start_epoch, epochs)`: 0, where a run that resumes nothing starts
    if COUNT_NAMES.match(bare) or use.in_range:
        return "count"
    if use.sizes or use.seed:
        return "int"
    if use.position:
        return "position"  # 1, which every dim of two or more has, counted from either end
    if len(use.compared) > 1 and all(type(value) is int for value in use.compared) and not (
            use.arithmetic or use.ordered or use.sizes or use.in_range or use.indexed or FLOAT_NAMES.match(bare)):
        # An index told apart by `==` only (`optimizer_idx == 0`, `== 1`): each of them. (Compared with
        # one only, `if n == 0: return`, it is a number past that guard.)
        return "choice"
    if FLOAT_NAMES.match(bare) or use.ordered or use.numbers or use.learning_rate:
        # A number that is also the input of a torch function (`torch.frexp(m)`): a 0-dim tensor, which
        # compares and computes as the number does.
        return "number tensor" if use.torch_input else "float"
    if use.compared:
        return "choice"
    if use.truth and not use.arithmetic:
        return "bool"  # False also counts as 0 where the code adds to it
    if use.truth and use.number_arithmetic and not use.float_arithmetic and not use.fed_to:
        # Tested, and added to an int only: `if self.resume: start = self.resume + 1`, then
        # `range(start, n)`, where a float would not do; False counts as 0 (the path without it).
        return "bool"
    if use.fed_to - {callee for callee in use.fed_to if callee.startswith(("torch.", "F."))}:
        return "tensor"  # fed to a network or a helper of the file: `self.conv(x) * 0.5 + x`
    if use.number_arithmetic:
        return "float"
    if use.torch_argument:
        return "tensor"
    if use.truth:
        return "bool"
    if use.arithmetic:
        return "float"
    return None


@dataclass
class Plan:
    """What each missing name becomes: name -> kind, with modules' roles decided."""

    kinds: dict
    outputs: dict = field(default_factory=dict)   # module name -> its stand-in's output shape
    unpacked: dict = field(default_factory=dict)  # loader name -> how the loop unpacks a batch (or its dict keys)
    views: dict = field(default_factory=dict)     # loader name -> the tensors each batch's first item holds
    joined: dict = field(default_factory=dict)    # tensor sequence name -> "cat" or "stack", how the code joins it
    labels: str = "classes"                       # a batch's targets: class indices, or values
    gradients: bool = False                       # the code reads `.grad`: give modules gradients first
    returns: dict = field(default_factory=dict)   # module name -> how many values the code unpacks from it
    like_input: frozenset = frozenset()  # modules whose output the code adds to their input (`x += score(x)`)
    like_data: frozenset = frozenset()  # modules whose output the code subtracts from data: a sample's shape
    options: dict = field(default_factory=dict)   # flag or choice name -> its value in this setting
    choices: dict = field(default_factory=dict)   # choice name -> the literals the code compares it with
    defaults: dict = field(default_factory=dict)  # name -> the value its constructor gives it by default
    sample: tuple = (FEATURES,)                   # the shape of one sample of a stand-in tensor
    tokens: Optional[int] = None                  # the vocabulary a network of the file embeds its input
    #                                               from: a loader's inputs are token indices below it
    leaves: tuple = ()                            # tensors the code makes require grad itself: plain leaves
    per_class: tuple = ()                         # tensors the code indexes by labels: a row per class
    trained: tuple = ()                           # parameters the code hands an optimizer to train
    positions: tuple = ()                         # indices along a dim that are never a class (`index_select`)
    per_sample: tuple = ()                        # losses whose values the code indexes: one per sample
    losses: tuple = ()                            # modules whose result the code backpropagates as it is
    loader_counts: dict = field(default_factory=dict)  # loaders name -> how many the code unpacks from it
    keys: dict = field(default_factory=dict)      # dict name -> the string keys the code reads of it
    networks: dict = field(default_factory=dict)  # module name -> the file's own network built for it
    batch: int = BATCH                            # samples in each stand-in tensor's batch
    count: int = 2                                # a count (epochs, steps): loops that end soon
    predicted_labels: bool = False                # labels are the classes the network predicts for the inputs
    loader_batch: int = BATCH                     # samples in each batch a stand-in loader yields
    dims: dict = field(default_factory=dict)      # tensor name -> the number of dims the code unpacks its shape into
    # module or object name -> the methods of the project's class the code calls on it (a network's: its forward)
    own_methods: dict = field(default_factory=dict)
    # object name -> {method: how many values the code unpacks its result into}
    method_returns: dict = field(default_factory=dict)

    def varied(self, name: str, value: Any, labels: Optional[str] = None, sample: Optional[tuple] = None) -> "Plan":
        return replace(self, options={**self.options, name: value} if name else dict(self.options),
                       labels=labels or self.labels, sample=sample or self.sample)

    def describe(self, made: dict, only: Optional[tuple] = None) -> str:
        """The stand-ins the claim rests on (networks, optimizers, loaders, losses, arguments), then a
        count of the other attributes (numbers, flags, paths); `only` these names, when given."""
        parts = []
        others = 0
        modules = [n for n, k in self.kinds.items() if k == "module"]
        for name, kind in self.kinds.items():
            if only is not None and name not in only:
                continue
            owner = name.rsplit(".", 1)[0]
            if owner != name and self.kinds.get(owner) == "options":
                continue  # said with the namespace
            listed = kind in ("module", "optimizer", *LOADER_KINDS, "scaler", "loss", "options") \
                or made.get(name) is TRANSFORM
            if name.startswith("self.") and not listed:
                others += 1
                continue
            value = made.get(name)
            if value is None and name in self.options:
                parts.append(f"{name} = None")
            elif isinstance(value, StandInNet):
                parts.append(f"{name} = {value.describe()}")
            elif name in self.networks:
                parts.append(f"{name} = {self.networks[name].description}")
            elif kind == "optimizer":
                parts.append(f"{name} = SGD({value.stands_for})")
            elif kind == "loader batch":
                parts.append(f"{name} = a batch of {_shape_text(value)}")
            elif kind == "loader":
                sample = value[0] if value else None
                shown = _shape_text(sample)
                parts.append(f"{name} = {len(value)} batches of {shown}")
            elif kind == "loaders":
                shown = _shape_text(value[0][0] if value[0] else None)
                parts.append(f"{name} = {len(value)} loaders of {len(value[0])} batches of {shown}")
            elif kind == "tensor" and name in self.leaves:
                parts.append(f"{name} = tensor{tuple(value.shape)} (data: a leaf that requires no grad)")
            elif kind == "tensor":
                parts.append(f"{name} = tensor{tuple(value.shape)}")
            elif kind == "array":
                parts.append(f"{name} = a NumPy array {tuple(value.shape)} (the code gives it to `torch.from_numpy`)")
            elif kind == "labels" and name in self.positions:
                parts.append(f"{name} = indices {value.tolist()}")
            elif kind == "labels" and self.predicted_labels:
                parts.append(f"{name} = class indices {value.tolist()}, as the network predicts them")
            elif kind == "labels":
                parts.append(f"{name} = class indices {value.tolist()}")
            elif kind in ("dict", "tensors", "parameters"):
                parts.append(f"{name} = {_shape_text(value)}")
            elif kind == "schedule":
                parts.append(f"{name} = a schedule of {len(value)} values, {value[0].item():g} down to "
                             f"{value[-1].item():g}")
            elif kind == "tensor sequence":
                parts.append(f"{name} = {len(value)} tensors of {_shape_text(value[0])}")
            elif kind == "functions":
                parts.append(f"{name} = {len(value)} functions, each giving 0.5")
            elif kind == "scaler":
                parts.append(f"{name} = GradScaler stand-in (scale 1)")
            elif kind == "optimizer class":
                parts.append(f"{name} = torch.optim.SGD")
            elif kind == "layer":
                parts.append(f"{name} = the linear layer of the stand-in `{modules[0]}`" if modules else
                             f"{name} = nn.Linear({FEATURES}, {FEATURES})")
            elif kind == "loss":
                each = " of each sample" if name in self.per_sample else ""
                parts.append(f"{name} = mean squared difference{each} (and squares of any further input)")
            elif kind == "options":
                shown = ", ".join(f"{key} = {_option_text(value)}" for key, value in vars(value).items())
                parts.append(f"{name} = a namespace of the options the code reads ({shown})")
            else:
                parts.append(f"{name} = {value!r}")
        if others:
            parts.append(f"{others} other attribute{'s' if others > 1 else ''} (numbers, flags, tensors)")
        return "stand-ins: " + ", ".join(parts)


def _option_text(value: Any) -> str:
    if isinstance(value, (bool, int, float, str)) or value is None:
        return repr(value)
    return "a tensor" if isinstance(value, torch.Tensor) else "a stand-in"


def _shape_text(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return f"{tuple(value.shape)} {str(value.dtype).replace('torch.', '')}"
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(_shape_text(v) for v in value) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key!r}: {_shape_text(v)}" for key, v in value.items()) + "}"
    return type(value).__name__


# Kinds an entry of a dict of settings takes from its use (`config["learning_rate"]`): numbers, flags, choices.
ENTRY_KINDS = frozenset({"float", "count", "start", "int", "position", "shape", "batch", "bool", "choice", "device",
                         "torch.device", "dtype", "path"})
# Kinds a constructor's default (a number, a flag, a string) may give the value of: never a
# structural one, nor a device (`device="cuda"` as a default must not leave the verification device).
DEFAULTED_KINDS = {"float", "count", "start", "int", "position", "shape", "batch", "bool", "choice", "anything", None}
# A number the constructor gives where the code's use reads like a tensor's (`torch.manual_seed(self.seed)`,
# `x + self.eps`): what the class is built with is the number, and a tensor there may not run.


# Kinds an option takes its parser's default for (`action="store_true"`, `choices=`, `default=0.01`).
PARSER_DEFAULTED_KINDS = {"bool", "choice", "float", None}


def _is_number_value(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def plan(names: list[str], found: dict[str, Use], annotations: dict, roles: dict,
         defaults: Optional[dict] = None) -> Plan:
    """Decide each name's kind ("unknown" where nothing says: absent.unknown_argument). `defaults` are the
    values the constructor gives `self.x` attributes (signature defaults, literals): they come first."""
    kinds = {}
    known = {}
    for name in names:
        kind = "module" if name in roles else kind_of(name, found.get(name, Use()), annotations.get(name, inspect.Parameter.empty))
        if defaults and defaults.get(name) is TRANSFORM:
            kind = "anything"  # made as the constructor's default below: the transform stand-in
        if may_be_namespace(name) and any(key.startswith(f"{name}.") for key in names):
            kind = "options"  # `args.lr`, `self.params.lr`: a namespace of the options read (option_uses)
        if defaults and name in defaults and (kind in DEFAULTED_KINDS or kind == "tensor" and (
                _is_number_value(defaults[name]) or isinstance(defaults[name], str) and "." in name)):
            value = defaults[name]
            known[name] = value
            kind = "bool" if isinstance(value, bool) else kind or "anything"
        if kind is None and name.startswith("self."):
            kind = "anything"  # an attribute the code only passes along or logs with: a do-nothing object
        if kind is None and name not in found:
            kind = "unused"  # a parameter the code never reads: any value does, None says so
        if kind is None:
            kind = "unknown"  # the run may reach the flagged line before the code uses it
        kinds[name] = kind
    for name in [name for name, kind in kinds.items() if kind == "dict"]:
        for key in found[name].string_keys:
            entry = f"{name}[{key!r}]"
            # docopt's keys name options as written (`args["--epochs"]`, `args["<path>"]`): read as names.
            bare_key = re.sub(r"\W+", "_", key).strip("_")
            entry_kind = kind_of(bare_key, found[entry]) if entry in found and bare_key.isidentifier() else None
            if entry_kind in ENTRY_KINDS:
                kinds[entry] = entry_kind  # `config["epoch"]` in `range(...)`: a count, not a tensor
    outputs = {}
    for name, kind in kinds.items():
        if kind != "module":
            continue
        role = roles.get(name)
        if role == "discriminator":
            outputs[name] = (1,)
        elif role == "generator":
            outputs[name] = (FEATURES,)   # its output is a sample the discriminator reads, like real data
        else:
            outputs[name] = (CLASSES,)
    unpacked = {name: found.get(name, Use()).batch_keys or found.get(name, Use()).unpacked
                or found.get(name, Use()).assigned_unpacked for name, kind in kinds.items() if kind in LOADER_KINDS}
    returns = {name: found.get(name, Use()).returns for name, kind in kinds.items() if kind == "module"}
    own_methods = {name: tuple(sorted(method for method in found[name].methods if not hasattr(StandInNet, method)))
                   for name, kind in kinds.items() if kind in ("module", "tensor methods") and name in found}
    method_returns = {name: dict(found[name].method_returns) for name, kind in kinds.items()
                      if kind == "tensor methods" and name in found and found[name].method_returns}
    views = {name: found[name].views for name, kind in kinds.items() if kind in LOADER_KINDS and name in found
             and found[name].views}
    joined = {name: found[name].joined for name, kind in kinds.items() if kind == "tensor sequence"}
    choices = {name: found[name].compared for name, kind in kinds.items() if kind == "choice"}
    leaves = tuple(name for name, kind in kinds.items() if kind == "tensor" and found.get(name, Use()).grad_switched)
    keys = {name: tuple(found[name].string_keys) for name, kind in kinds.items() if kind == "dict"}
    per_class = tuple(name for name, kind in kinds.items() if kind == "tensor" and found.get(name, Use()).per_class)
    trained = tuple(name for name, kind in kinds.items() if kind == "parameters" and found.get(name, Use()).trained)
    per_sample = tuple(name for name, kind in kinds.items() if kind == "loss" and found.get(name, Use()).results_indexed)
    losses = tuple(name for name, kind in kinds.items() if kind == "module" and found.get(name, Use()).returns_loss)
    like_input = frozenset(name for name, kind in kinds.items()
                           if kind == "module" and (found.get(name, Use()).updates_its_input
                                                    or found.get(name, Use()).reconstructs_its_input))
    like_data = frozenset(name for name, kind in kinds.items() if kind == "module" and name not in like_input
                          and name not in roles and found.get(name, Use()).compared_with_data)
    loader_counts = {name: found[name].assigned_unpacked for name, kind in kinds.items()
                     if kind == "loaders" and found.get(name, Use()).assigned_unpacked}
    dims = {name: found[name].dims for name, kind in kinds.items() if kind == "tensor" and found.get(name, Use()).dims}
    positions = tuple(name for name, kind in kinds.items() if kind == "labels" and found.get(name, Use()).position_index
                      and not found[name].class_target)
    # Code that takes one sample at a time (`assert image.size(0) == 1`): every batch holds one.
    batch = 1 if any(found.get(name, Use()).one_sample for name in kinds) else BATCH
    return Plan(kinds, outputs, unpacked, views=views, joined=joined, returns=returns, choices=choices, defaults=known,
                leaves=leaves, keys=keys, batch=batch, per_class=per_class, trained=trained, per_sample=per_sample,
                positions=positions, losses=losses, loader_counts=loader_counts, like_input=like_input,
                like_data=like_data, dims=dims, own_methods=own_methods, method_returns=method_returns)


# The size of each dim a stand-in gains between its batch and its sample (a clip's frames).
EXTRA_DIM = 3


def with_dims(shape: tuple, dims: int) -> tuple:
    """`shape` (a batch, then a sample) with `dims` dims: the batch kept, then as many further dims of
    EXTRA_DIM as it lacks (`(4, 3, 16, 16)` as 5 dims: 4 clips of 3 frames of the sample), or only the
    sample's last dims where it has too many."""
    if dims < 1 or dims == len(shape):
        return shape
    if dims > len(shape):
        return (shape[0], *(EXTRA_DIM,) * (dims - len(shape)), *shape[1:])
    return (shape[0], *shape[len(shape) - dims + 1:])


def pair_optimizer(optimizer: str, modules: list[str]) -> list[str]:
    """The module(s) an optimizer steps: by name stem (`optD` -> `netD`, `opt_gen` -> `self.gen`), else all."""
    if len(modules) <= 1:
        return modules
    stem = _stem(optimizer, ("optimizer", "optim", "opt", "solver"))
    matches = [m for m in modules if stem and (_stem(m, ("network", "model", "net")) == stem
                                               or _stem(m, ("network", "model", "net")).startswith(stem)
                                               or stem.startswith(_stem(m, ("network", "model", "net")) or "\0"))]
    return matches or modules


def _stem(name: str, words: tuple) -> str:
    bare = name.split(".")[-1].lower()
    for word in words:
        bare = bare.replace(word, "")
    return bare.strip("_")


def make(plan_: Plan, device: str, seed: int = 0) -> dict:
    """The stand-ins, fresh (the same for the same seed)."""
    torch.manual_seed(seed)
    made: dict[str, Any] = {}
    modules = [n for n, k in plan_.kinds.items() if k == "module"]
    for name in modules:
        made[name] = plan_.networks[name].build().to(device) if name in plan_.networks else \
            StandInNet(plan_.sample if name in plan_.like_data else plan_.outputs[name], plan_.returns.get(name, 0),
                       name in plan_.losses,
                       name in plan_.like_input, plan_.own_methods.get(name, ())).to(device)
    for name, kind in plan_.kinds.items():
        if kind == "module":
            continue
        if name in plan_.defaults:
            value = plan_.options.get(name, plan_.defaults[name])
            made[name] = copy.copy(value) if isinstance(value, (list, dict)) else value  # each run its own
            continue
        if kind == "optimizer":
            owners = pair_optimizer(name, modules)
            parameters = [p for owner in owners for p in made[owner].parameters()] or [nn.Parameter(torch.zeros(1))]
            made[name] = StandInSGD(parameters, stands_for=", ".join(owners) or "a parameter")
        elif kind == "scaler":
            made[name] = StandInScaler()
        elif kind == "optimizer class":
            made[name] = torch.optim.SGD
        elif kind == "layer":  # the layer of the stand-in network the code runs, or a layer of its own
            made[name] = made[modules[0]].linear if modules else nn.Linear(FEATURES, FEATURES).to(device)
        elif kind in LOADER_KINDS:
            made[name] = stand_in_loader(plan_.unpacked.get(name) or 2, plan_.labels, device, plan_.sample,
                                         plan_.views.get(name, 0), plan_.tokens, plan_.loader_batch)
            if kind == "loaders":  # as many as the code unpacks (`train, val, test = loaders`), or two
                made[name] = [made[name], *(stand_in_loader(plan_.unpacked.get(name) or 2, plan_.labels, device,
                                                            plan_.sample, plan_.views.get(name, 0), plan_.tokens,
                                                            plan_.loader_batch)
                                            for _ in range(max(plan_.loader_counts.get(name, 2), 2) - 1))]
            elif kind == "loader batch":
                made[name] = made[name][0]
        elif kind == "tensor" and name in plan_.leaves:
            # `x.requires_grad = True` needs a leaf: data as a caller passes it, the code's own grad after.
            made[name] = torch.rand(*((CLASSES,) if name in plan_.per_class else (plan_.batch, *plan_.sample)),
                                    device=device)
            setattr(made[name], PLAIN_LEAF_MARK, f"`{name}`, a stand-in made as a leaf that does not require grad")
        elif kind == "tensor" and name in plan_.per_class:  # `cw_eps[y]`: one value per class the labels name
            made[name] = stand_in_tensor(device, (CLASSES,), name=name)
        elif kind == "tensor" and name in plan_.dims:  # `b, k, c, h, w = img.size()`: that many dims
            made[name] = stand_in_tensor(device, with_dims((plan_.batch, *plan_.sample), plan_.dims[name]), name=name)
        elif kind == "tensor":
            made[name] = stand_in_tensor(device, (plan_.batch, 16) if name.split(".")[-1] in ("z", "noise", "latent")
                                         else (plan_.batch, *plan_.sample), name=name)
        elif kind == "array":
            # A dataset held as an array, which the code cuts into batches of its own size (`data[i * 40:(i + 1) *
            # 40]`): rows enough for three batches of 64.
            made[name] = stand_in_tensor("cpu", (ARRAY_ROWS, *plan_.sample), name=name).detach().numpy()
        elif kind == "label array":  # the labels of a dataset held as an array: one per row of its samples
            made[name] = class_indices(ARRAY_ROWS, CLASSES, "cpu").numpy()
        elif kind == "labels" and name in plan_.positions:
            # Positions along a dim of another stand-in (a layer's rows, a sample's features): FEATURES
            # long, so in range of every dim a stand-in has; ten classes would not be.
            made[name] = class_indices(plan_.batch, FEATURES, device)
        elif kind == "labels":
            made[name] = class_indices(plan_.batch, CLASSES, device)
        elif kind == "parameters":  # leaves that require grad, as a network's parameters are
            made[name] = []
            for index in range(2):
                parameter = torch.randn(plan_.batch, *plan_.sample, device=device, requires_grad=True)
                made_as = OPTIMIZED_PARAMETER if name in plan_.trained else "a stand-in parameter"
                mark_stand_in(parameter, f"`{name}[{index}]`, {made_as}")
                made[name].append(parameter)
        elif kind == "tensor sequence":  # one tensor per sample, as `torch.cat` (rows) or `torch.stack` joins them
            shape = (1, *plan_.sample) if plan_.joined.get(name) == "cat" else plan_.sample
            made[name] = tuple(stand_in_tensor(device, shape, name=f"{name}[{index}]") for index in range(plan_.batch))
        elif kind == "tensors":  # named like a module's parameters: `params["layer.weight"]`
            made[name] = {f"layer{index}.weight": stand_in_tensor(device, (plan_.batch, *plan_.sample),
                                                                  name=f"{name}['layer{index}.weight']")
                          for index in range(2)}
        elif kind == "dict":  # class indices under a key named like labels, tensors under the others
            made[name] = {key: class_indices(plan_.batch, CLASSES, device) if LABEL_NAMES.match(key) else
                          stand_in_tensor(device, (plan_.batch, *plan_.sample), name=f"{name}[{key!r}]")
                          for key in plan_.keys[name]}
        elif kind == "loss":
            made[name] = StandInLoss(per_sample=name in plan_.per_sample)
        elif kind == "device":
            made[name] = device
        elif kind == "torch.device":
            made[name] = torch.device(device)
        elif kind == "dtype":
            made[name] = torch.float32
        elif kind == "float":
            made[name] = 0.1
        elif kind == "number tensor":
            made[name] = torch.tensor(0.1, device=device)
        elif kind == "functions":
            made[name] = [_half_everywhere, _half_everywhere]
        elif kind == "schedule":
            first, last, steps = SCHEDULE
            made[name] = torch.logspace(math.log10(first), math.log10(last), steps, device=device)
        elif kind == "count":
            made[name] = plan_.count
        elif kind == "start":
            made[name] = 0
        elif kind == "batch":
            made[name] = plan_.batch  # the stand-in batches' size, which `x.view(batch_size, -1)` relies on
        elif kind == "int":
            made[name] = 16
        elif kind == "position":
            made[name] = 1
        elif kind == "index":
            made[name] = 0
        elif kind == "indices":
            made[name] = [0, 1]  # positions any dim of two or more has
        elif kind == "sizes":
            made[name] = [16, 16]
        elif kind == "shape":
            made[name] = tuple(plan_.sample)
        elif kind == "bool":
            made[name] = plan_.options.get(name, False)
        elif kind == "choice":
            made[name] = plan_.options.get(name, plan_.choices[name][0])
        elif kind == "path":
            made[name] = STAND_IN_FOLDER
        elif kind == "anything":
            made[name] = DoNothing()
        elif kind == "tensor methods":
            made[name] = TensorsByMethod(plan_.own_methods.get(name, ()), (plan_.batch, *plan_.sample), device,
                                         plan_.method_returns.get(name, {}))
        elif kind == "unused":
            made[name] = None
        elif kind == "unknown":
            made[name] = unknown_argument(name)
    if plan_.predicted_labels:
        _label_as_predicted(plan_, made, modules)
    for name, value in plan_.options.items():
        if value is None and name in made:
            made[name] = None  # a setting where the code's `if x is None:` path runs
    for name, kind in plan_.kinds.items():
        if kind == "options":
            made[name] = argparse.Namespace(**{key[len(name) + 1:]: made[key] for key in plan_.kinds
                                               if key.startswith(f"{name}.") and not _special(key[len(name) + 1:])})
        if kind == "dict":
            made[name].update({key: made[f"{name}[{key!r}]"] for key in plan_.keys[name]
                               if f"{name}[{key!r}]" in made})
    if plan_.gradients:
        for name in modules:  # as after a backward: `p.grad` is there to read
            if name in plan_.networks:
                continue  # the file's own network takes its own input shape, not a stand-in's
            output = made[name](stand_in_tensor(device))
            (output[0] if isinstance(output, tuple) else output).float().pow(2).mean().backward()
    return made


@dataclass(frozen=True)
class ProjectNetwork:
    """A network of the file's own class, for an argument whose methods only it has
    (verify/projectnets.py)."""

    build: Callable[[], nn.Module]
    description: str


@dataclass
class StandIns:
    """One setting of a function's missing arguments (or a method's `self.x` attributes), made from use."""

    description: str
    plan: Plan
    device: str

    def make(self, seed: int = 0) -> tuple[dict, str]:
        made = make(self.plan, self.device, seed)
        return made, self.plan.describe(made)


# Kinds a value passed to a function of the file takes from that function's use of it: scalars, which
# the caller's own use (passing it along) cannot tell from a tensor.
SCALAR_KINDS = frozenset({"float", "count", "start", "int", "position", "shape", "bool", "choice", "device",
                          "torch.device", "dtype"})
CALLED_KINDS = frozenset({"module", "loss", "layer"})  # objects, not tensors: `prune_layer(layer, index)` passes a layer on


def _kinds_through_callees(found: dict, tree: ast.Module, imported_classes: Optional[dict] = None) -> None:
    """A value the code only passes to a function of the file or one it imports from the project (`adopt_weight(factor, global_step,
    threshold=start)`), to a method of the class (`self.get_infinite_batches(train_loader)`, a
    method of that name in one class of the file) or to a class of the file (its `__init__`:
    `Generator(signal_length, latent_dim)`), is what that function uses its parameter as (`if
    global_step < threshold:`: a number; `for i, (images, _) in enumerate(data_loader)`: a loader of
    batches of two), one call deep. `imported_classes`: the `__init__` of classes the module imports
    from the project (`from .generator import Generator`), by the name it uses."""
    functions = _imported_functions(tree)
    functions.update({node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))})
    methods: dict = {name: [init] for name, init in (imported_classes or {}).items()}
    for owner in (node for node in tree.body if isinstance(node, ast.ClassDef)):
        for method in owner.body:
            if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                methods.setdefault(f"self.{method.name}", []).append(method)
                if method.name == "__init__":
                    methods[owner.name] = [method]  # `Generator(signal_length, latent_dim)`
    bound = {name for name, found_in in methods.items() if len(found_in) == 1}  # their first parameter is `self`
    functions.update({name: methods[name][0] for name in bound})
    for use_of_name in found.values():
        handed = [used for used in (_parameter_use(functions, bound, callee, where)
                                    for callee, where in use_of_name.passed_as) if used is not None]
        # One callee giving it to torch as a tensor (`torch.min(delta, eps)`, where a float fails) beside
        # another that scales by it (`noise * eps`): a number as a 0-dim tensor, which does for both.
        a_tensor_somewhere = any(inner.torch_argument and kind == "tensor" for inner, kind in handed)
        for inner, kind in handed:
            if kind == "loader" and not use_of_name.iterated:
                use_of_name.iterated, use_of_name.unpacked, use_of_name.views = True, inner.unpacked, inner.views
                use_of_name.batch_keys = use_of_name.batch_keys or inner.batch_keys
                break
            if kind == "labels" and inner.class_target:
                # `guidance(model, x, y_target)`, which picks `log_probs[rows, y_target]`
                use_of_name.class_target = True
                break
            if kind == "labels" and inner.position_index and not inner.class_target:
                use_of_name.position_index = True  # `prune_layer(layer, index)`, which does `index_select(0, index)`
                break
            if kind in SCALAR_KINDS or kind in CALLED_KINDS and not use_of_name.methods:
                # `adv_attack(model, images, eps, labels, criterion)`, which calls `criterion(out, labels)`:
                # a loss, not the tensor a value passed along would otherwise stand for.
                use_of_name.via_callee = "number tensor" if kind == "float" and a_tensor_somewhere else kind
                if kind == "module":
                    use_of_name.returns = use_of_name.returns or inner.returns
                if kind == "choice":
                    use_of_name.compared.extend(c for c in inner.compared if c not in use_of_name.compared)
                break


def _picked_per_row(index: ast.expr) -> list:
    """The names an index picks one element per row with, beside a range of the rows: `y` of
    `out[torch.arange(n), y]` or `out[range(len(y)), y]` (class indices, one per sample)."""
    if not isinstance(index, ast.Tuple) or len(index.elts) != 2:
        return []
    rows, picked = index.elts
    ranged = isinstance(rows, ast.Call) and ast.unparse(rows.func).split(".")[-1] in ("arange", "range")
    return [picked] if ranged and _key(picked) is not None else []


def _parameter_use(functions: dict, bound: set, callee: str, where: Any) -> Optional[tuple]:
    """(the use, its kind) of the parameter of the file's function `callee` that a call hands a value
    at `where` (a position or a keyword); None where the callee or the parameter is not the file's."""
    definition = functions.get(callee)
    if definition is None:
        return None
    parameters = [a.arg for a in (*definition.args.posonlyargs, *definition.args.args)]
    if callee in bound and parameters:
        parameters = parameters[1:]
    parameter = parameters[where] if isinstance(where, int) and where < len(parameters) else where
    inner = uses(definition).get(parameter) if isinstance(parameter, str) else None
    return None if inner is None else (inner, kind_of(parameter, inner))


def _imported_functions(tree: ast.Module) -> dict:
    """The functions the file imports by name from a module of the project (`from utils import
    get_one_hot_labels`), read from its source, under the name the file uses."""
    found = {}
    for node in tree.body:
        if not (isinstance(node, ast.ImportFrom) and node.module and not node.level):
            continue
        for alias in node.names:
            function = samples.project_function(node.module, alias.name)
            if function is not None:
                found[alias.asname or alias.name] = function
    return found


def string_keyed_dicts(tree: ast.Module) -> dict[str, list]:
    """`self.count` or `STEPS` -> the keys of the dict literal of string keys the file assigns it
    (`self.count = {"train": 0, "test": 0}`); a name assigned two such dicts differently is left out."""
    found: dict = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Dict)):
            continue
        key = _key(node.targets[0])
        keys = node.value.keys
        if key is None or not keys or not all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in keys):
            continue
        values = [k.value for k in keys]
        found[key] = values if found.get(key, values) == values else None
    return {key: values for key, values in found.items() if values}


def settings_for(node: ast.AST, names: list[str], annotations: dict, device: str,
                 roles: Optional[dict] = None, defaults: Optional[dict] = None,
                 tree: Optional[ast.Module] = None, found: Optional[dict] = None,
                 numbers: Optional[dict] = None) -> list[StandIns]:
    """The stand-in settings for `names` as `node` (a function) uses them: batches of class labels, then
    of values. `tree`, the file: the dicts of string keys it builds, whose keys the names may be.
    `numbers`: the whole numbers the loaded module binds (`mnist_dim = data.size(1) * data.size(2)`),
    which the code may reshape its inputs with.
    `found`: the uses of the names, when they are not (all) in `node`."""
    found = uses(node) if found is None else found
    if tree is not None:
        _kinds_through_callees(found, tree)
    parsed = parser_defaults(tree) if tree is not None else {}
    for name in list(names):
        if may_be_namespace(name) and name not in (roles or {}):
            options = option_uses(node, name)
            found.update(options)
            names = [*names, *options]
            # A namespace of the script's own options: what its parser gives them by default, for a
            # flag, a mode or a rate; counts and sizes stay small and agree with the stand-in batches.
            # A string default (`--checkpoint_path ./model/`) says more than a use that reads like a
            # tensor's (passed to `os.path.join`).
            defaults = {**{key: parsed[key.split(".", 1)[1]] for key, use in options.items()
                           if key.split(".", 1)[1] in parsed and (
                               kind_of(key, use) in PARSER_DEFAULTED_KINDS
                               or kind_of(key, use) == "tensor" and isinstance(parsed[key.split(".", 1)[1]], str))},
                        **(defaults or {})}
    dicts = string_keyed_dicts(tree) if tree is not None else {}
    for keyed in found.values():
        keys = [key for container in sorted(keyed.keys_of) for key in dicts.get(container, [])]
        if keys:
            keyed.dict_key = True
            keyed.compared.extend(key for key in dict.fromkeys(keys) if key not in keyed.compared)
    base = plan(names, found, annotations, roles or {}, defaults)
    base.gradients = any(isinstance(n, ast.Attribute) and n.attr == "grad" for n in ast.walk(node))
    variants = [StandIns("stand-ins", base, device)]
    if "labels" in base.kinds.values() and _compares_predictions(node):
        variants.append(StandIns("stand-ins (labels the network predicts)", replace(base, predicted_labels=True),
                                 device))
    if LOADER_KINDS & set(base.kinds.values()):
        variants.append(StandIns("stand-ins (batches with value targets)", base.varied("", None, "values"), device))
        alone = {name: 1 for name, kind in base.kinds.items() if kind in LOADER_KINDS and base.unpacked.get(name) == 0}
        if alone:
            # `for x in dataloader: model(x.to(device))`: a dataset of images alone (a VAE's, an
            # autoencoder's) yields batches of one tensor, not (inputs, labels) pairs; with no labels
            # to predict, the networks reconstruct what they are given.
            variants.append(StandIns("stand-ins (batches of inputs alone, networks reconstructing them)",
                                     replace(base, unpacked={**base.unpacked, **alone},
                                             outputs={name: base.sample for name in base.outputs}), device))
    # A flag or a mode the code branches on: each other value, one at a time.
    for name, kind in base.kinds.items():
        if kind == "bool":
            others = [not base.defaults.get(name, False)]
        else:
            others = [c for c in base.choices.get(name, []) if c != base.defaults.get(name, base.choices.get(name, [""])[0])] \
                if kind == "choice" else []
        for value in others:
            variants.append(StandIns(f"stand-ins with {name} = {value!r}", base.varied(name, value), device))
    for name, kind in base.kinds.items():
        if found.get(name, Use()).none_tested and kind in ("tensor", "labels", "float", "int", "count") \
                and not name.startswith("self."):
            # `if best_loss is None:` (the first call of a helper that keeps a best value): None itself.
            variants.append(StandIns(f"stand-ins with {name} = None", base.varied(name, None), device))
    if any(role == "discriminator" for role in (roles or {}).values()):
        # A discriminator that returns one score per sample flat (`.view(-1)`), for losses against
        # `torch.ones(batch)`.
        flat = replace(base, outputs={name: () if (roles or {}).get(name) == "discriminator" else shape
                                      for name, shape in base.outputs.items()})
        variants.append(StandIns("stand-ins (a discriminator of one flat score per sample)", flat, device))
    if any(base.returns.values()):
        # A network whose result one branch unpacks (`_, label = D(fake)` under `if improved:`) and the
        # other uses whole (`label = D(fake)`, then `label.mean()`): each, as the path taken needs.
        variants.append(StandIns("stand-ins (networks returning one tensor)", replace(base, returns={}), device))
    # Last, the samples' structure, which the code says only by failing on another: one sample a batch
    # (`label.item()`, `int(pred)`, `outputs[0, k].backward()`), small RGB images (`c, h, w = x.shape[1:]`,
    # a crop, `sum(dim=[1, 2, 3])`), and both (a C&W attack's `cost.item()` on images).
    fallbacks = []
    one = base.batch != 1 and bool({"tensor", "labels"} & set(base.kinds.values()))
    images = bool({"tensor", "dict", "tensors"} & set(base.kinds.values()))
    if one:
        fallbacks.append(StandIns("stand-ins (batches of one sample)", replace(base, batch=1), device))
    if any(kind == "count" and name not in base.defaults for name, kind in base.kinds.items()):
        # A count the code divides (`epoch % int(num_epochs / 10)`, a log every tenth of the run): ten.
        fallbacks.append(StandIns("stand-ins (counts of ten)", replace(base, count=10), device))
    if images:
        fallbacks.append(StandIns("stand-ins (image batches)", base.varied("", None, sample=IMAGE), device))
    sized = {name: value for name, value in (defaults or {}).items() if BATCH_NAMES.match(name.split(".")[-1])
             and type(value) is int and 1 < value <= MAX_NAMED_BATCH and value != base.batch}
    if len(set(sized.values())) == 1 and LOADER_KINDS & set(base.kinds.values()):
        # `self.batch_size = 32` beside `if images.size()[0] != self.batch_size: continue`: a loop that
        # skips every batch of another size runs on batches of that one.
        name, size = next(iter(sized.items()))
        fallbacks.append(StandIns(f"stand-ins (batches of {size}, as `{name}` says)",
                                  replace(base, batch=size, loader_batch=size), device))
    loaders = {name for name, kind in base.kinds.items() if kind in LOADER_KINDS}
    constants = {**(numbers or {}), **(datasites.top_level_whole_numbers(tree) if tree is not None else {})}
    reshaped = _samples_as_reshaped(datasites.batch_reshapes(node, loaders, loose=True), constants) if loaders else None
    if reshaped is not None and reshaped[0] not in (base.sample, IMAGE):
        # `batch.view(-1, 28*28)`: samples of as many values as the code reads each one as.
        fallbacks.append(StandIns(f"stand-ins (samples of shape {reshaped[0]}, as the code reshapes a batch to "
                                  f"{reshaped[1]})", base.varied("", None, sample=reshaped[0]), device))
    tensors = {name for name, kind in base.kinds.items() if kind == "tensor"}
    reshaped = _samples_as_reshaped(datasites.reshapes_of(node, tensors), constants) if tensors and not loaders \
        else None
    if reshaped is not None and reshaped[0] not in (base.sample, IMAGE):
        # `ims = ims.view(-1, 784)` of an argument (a defence's images, flattened for its generator).
        fallbacks.append(StandIns(f"stand-ins (samples of shape {reshaped[0]}, as the code reshapes its input to "
                                  f"{reshaped[1]})", base.varied("", None, sample=reshaped[0]), device))
        read = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        named = {name: size for name, size in (numbers or {}).items() if name in read and BATCH_NAMES.match(name)
                 and 1 < size <= MAX_NAMED_BATCH and size != base.batch}
        if len(set(named.values())) == 1:
            # `x.view(-1, mnist_dim)` beside `torch.ones(batch_size, 1)` of the script's `batch_size = 32`:
            # the targets the code makes have that many rows, and so must the input.
            name, size = next(iter(named.items()))
            fallbacks.append(StandIns(f"stand-ins (batches of {size} samples of shape {reshaped[0]}, as `{name}` "
                                      f"and the code's reshape to {reshaped[1]} say)",
                                      replace(base.varied("", None, sample=reshaped[0]), batch=size), device))
    if one and images:
        fallbacks.append(StandIns("stand-ins (image batches of one sample)",
                                  replace(base.varied("", None, sample=IMAGE), batch=1), device))
    data = tuple(name for name, kind in base.kinds.items() if kind == "tensor" and name not in base.leaves)
    if data:
        # Inputs as a loader gives them, requiring no grad: code that makes its own leaf from them
        # (`delta = torch.clamp(delta, 0 - x, 1 - x)`, then `delta.requires_grad = True`) fails on any
        # other ("you can only change requires_grad flags of leaf variables").
        fallbacks.append(StandIns("stand-ins (image batches as data, requiring no grad)" if images else
                                  "stand-ins (tensors as data, requiring no grad)",
                                  replace(base.varied("", None, sample=IMAGE) if images else base,
                                          leaves=base.leaves + data), device))
    return variants[:MAX_SETTINGS - len(fallbacks)] + fallbacks


def _label_as_predicted(plan_: Plan, made: dict, modules: list) -> None:
    """Each class-index stand-in replaced by the classes the one network predicts for a tensor
    stand-in of the same batch (attacks run only on the samples the network classifies right)."""
    labels = [name for name, kind in plan_.kinds.items() if kind == "labels" and name not in plan_.positions]
    inputs = [name for name, kind in plan_.kinds.items() if kind == "tensor" and torch.is_tensor(made.get(name))]
    if len(modules) != 1 or not labels or not inputs:
        return
    for name in labels:
        for source in inputs:
            try:
                with torch.no_grad():
                    scores = made[modules[0]](made[source])
            except Exception:  # noqa: BLE001 - a network that takes another input: the made-up classes stay
                continue
            if torch.is_tensor(scores) and scores.dim() == 2 and scores.shape[0] == made[name].shape[0]:
                made[name] = scores.argmax(1).to(made[name].device)
                break


def _compares_predictions(function: ast.AST) -> bool:
    """Whether the code tells the samples classified right (`model(x).max(1)[1] == y`,
    `pred.argmax(1).eq(y)`, `y_pred == y` where `y_pred = self._get_predicted_label(x)` returns an
    argmax), which an attack often runs on alone. `function` may be a method's closure."""
    predicting_methods = {node.name for node in ast.walk(function) if isinstance(node, ast.FunctionDef)
                          and any(isinstance(inner, ast.Return) and inner.value is not None
                                  and _argmax_in(inner.value, set()) for inner in ast.walk(node))}
    predicted_names: set = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and _argmax_in(node.value, predicting_methods):
            predicted_names.update(target.id for target in node.targets if isinstance(target, ast.Name))

    def predicted(node: ast.AST) -> bool:
        return _argmax_in(node, predicting_methods) or any(
            isinstance(inner, ast.Name) and inner.id in predicted_names for inner in ast.walk(node))
    for node in ast.walk(function):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq)) \
                and (predicted(node.left) or predicted(node.comparators[0])):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "eq" \
                and predicted(node.func.value):
            return True
    return False


def _argmax_in(node: ast.AST, predicting_methods: set) -> bool:
    """Whether `node` computes the predicted classes: a prediction (`_is_prediction`), the values and
    indices of a max along a dim (`_, y = torch.max(out, dim=1)`), or a call of a method returning one."""
    return any(_is_prediction(inner) or isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and (
        inner.func.attr == "max" and bool(inner.args or inner.keywords) or inner.func.attr in predicting_methods)
        for inner in ast.walk(node))


def _samples_as_reshaped(reshapes: list, constants: dict[str, int]) -> Optional[tuple[tuple, str]]:
    """(sample shape, the reshape as written) where the code's reshapes of batches (`datasites.reshapes_of`)
    read them as samples of one fixed shape (`x.view(-1, 28*28)`, `imgs.reshape(-1, 1, 28, 28)`, or with
    `constants`, the whole numbers the module binds: `x.view(-1, IMAGE_DIM)`); None where it reads none,
    several, or one whose sizes are not whole numbers written out."""
    shapes = {}
    for dimensions in reshapes:
        sizes = [_whole_number(datasites.with_constants(text, constants) if text else text) for text in dimensions[1:]]
        if dimensions[0] == "-1" and sizes and all(size is not None and size > 0 for size in sizes):
            shapes.setdefault(tuple(sizes), f"({', '.join(dimensions)})")
    return next(iter(shapes.items())) if len(shapes) == 1 else None


def _whole_number(text: Optional[str]) -> Optional[int]:
    """A whole number written as one (`784`, `28 * 28`); None for anything else."""
    try:
        node = ast.parse(text, mode="eval").body if text else None
    except SyntaxError:
        return None
    def value(node: ast.AST) -> Optional[int]:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            left, right = value(node.left), value(node.right)
            return left * right if left is not None and right is not None else None
        return None
    return value(node) if node is not None else None


def method_closure(tree: ast.Module, class_name: str, *method: str) -> ast.Module:
    """The methods and every method of their class they call through `self.m(...)`, transitively: the
    code whose use of `self.x` the stand-ins must satisfy (also those it inherits from a class of the file)."""
    methods = methods_with_inherited(tree, class_name)
    pending, kept = list(method), []
    while pending:
        name = pending.pop()
        node = methods.get(name)
        if node is None or node in kept or name == "__init__":
            continue
        kept.append(node)
        called = [call.func.attr for call in ast.walk(node) if isinstance(call, ast.Call)
                  and isinstance(call.func, ast.Attribute) and _key(call.func)]
        pending.extend(name for name in called if name in methods)
        pending.extend(IMPLIED_METHODS[name] for name in called if IMPLIED_METHODS.get(name) in methods)
    return ast.Module(body=kept, type_ignores=[])


# Methods a framework calls for the one the code calls: Lightning's `self.optimizers()` returns what the
# class's `configure_optimizers()` made.
IMPLIED_METHODS = {"optimizers": "configure_optimizers", "lr_schedulers": "configure_optimizers"}


def preparations(tree: ast.Module, class_name: str, method: str) -> list[tuple[str, str]]:
    """(preparation, why) for each method of the class that another of its methods runs on `self`
    before it calls `method`, and that sets attributes of `self` (`perturb` runs
    `self.init_hyperparam(x)`, which sets `self.ndims`, then `self.attack_single_run(x, y)`): what
    `method` reads may exist only once it ran. One caller's, the first that has any; where no caller
    shows the order, the methods that fill a container `__init__` leaves empty and `method` reads."""
    methods = methods_of(tree, class_name)
    setters = {name for name, node in methods.items() if any(
        isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and _key(n) for n in ast.walk(node))}
    for caller in methods.values():
        if caller.name in (method, "__init__"):
            continue
        calls = sorted((n for n in ast.walk(caller) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                        and _key(n.func) and n.func.attr in methods), key=lambda n: (n.lineno, n.col_offset))
        first = next((n for n in calls if n.func.attr == method), None)
        if first is None:
            continue
        found = []
        for call in calls[:calls.index(first)]:
            name = call.func.attr
            if name in setters and name not in (method, caller.name, "__init__") and name not in found:
                found.append(name)
        if found:
            return [(name, f"as `{caller.name}` runs it before") for name in found]
    return _run_first_by_the_script(tree, class_name, method, setters) or _fillers(tree, class_name, methods, method)


def _run_first_by_the_script(tree: ast.Module, class_name: str, method: str, setters: set) -> list[tuple[str, str]]:
    """(preparation, why) for the methods that set attributes of `self` which the script (its top level,
    or a function such as `main()`) runs on the object it builds before it calls `method` there:
    `T = Trainer()`, `T.load_mnist()`, `T.train()` (the loader `train` iterates is made by `load_mnist`)."""
    programs = [node.body for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for body in [tree.body, *programs]:
        instance, found = None, []
        for statement in body:
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                    and isinstance(statement.targets[0], ast.Name) and isinstance(statement.value, ast.Call) \
                    and isinstance(statement.value.func, ast.Name) and statement.value.func.id == class_name:
                instance, found = statement.targets[0].id, []
                continue
            call = statement.value if isinstance(statement, (ast.Expr, ast.Assign)) else None
            if instance is None or not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                                        and isinstance(call.func.value, ast.Name) and call.func.value.id == instance):
                continue
            if call.func.attr == method:
                if found:
                    where = "the script" if body is tree.body else "the program function"
                    return [(name, f"as {where} runs `{instance}.{name}()` before `{instance}.{method}()`")
                            for name in found]
                break
            if call.func.attr in setters and call.func.attr not in found:
                found.append(call.func.attr)
    return []


# What a value stored into a buffer's rows may be wrapped in on the way: it keeps the value's shape.
_SHAPE_KEEPING = MOVING_METHODS | {"long", "int", "tensor", "as_tensor", "from_numpy", "FloatTensor", "Tensor"}


def _stored_value(value: ast.AST) -> ast.AST:
    """What is stored, through what keeps its shape: `obs` of `obs[i:].clone()`, `torch.as_tensor(obs)`,
    `1.0 - done`."""
    while True:
        if isinstance(value, ast.Subscript):
            value = value.value
        elif isinstance(value, ast.BinOp) and isinstance(value.left, ast.Constant):
            value = value.right  # `1.0 - done`
        elif isinstance(value, ast.BinOp) and isinstance(value.right, ast.Constant):
            value = value.left
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _SHAPE_KEEPING:
            module = isinstance(value.func.value, ast.Name) and value.func.value.id in ("torch", "np", "numpy")
            if module and not value.args:
                return value
            value = value.args[0] if module else value.func.value
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _SHAPE_KEEPING \
                and value.args:
            value = value.args[0]
        else:
            return value


def stored_rows(function: ast.AST) -> tuple:
    """(parameter, attribute, several) for each parameter of `function` stored into rows of a `self`
    attribute (`self.obses[self.idx] = obs.clone()`; several for a slice, `self.obses[a:b] = obs`)."""
    parameters = {argument.arg for argument in function.args.args}
    found = {}
    for node in ast.walk(function):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript)):
            continue
        key, value = _key(node.targets[0].value), _stored_value(node.value)
        if key and key.startswith("self.") and isinstance(value, ast.Name) and value.id in parameters:
            found.setdefault(value.id, (value.id, key[len("self."):], isinstance(node.targets[0].slice, ast.Slice)))
    return tuple(found.values())


# Calls that read a container's size or truth, never its items.
_SIZING = frozenset({"len", "bool", "print"})
_FILLING_METHODS = {"append", "extend", "insert", "update", "add", "setdefault", "appendleft"}


def _starts_empty(value: ast.AST) -> bool:
    """`[]`, `{}`, `list()`, `deque(maxlen=n)`: a container with nothing in it; `0` or `False`: a count
    of what was stored (a replay buffer's `self.idx = 0`, `self.full = False`)."""
    if isinstance(value, (ast.List, ast.Dict, ast.Set)):
        return not (getattr(value, "elts", None) or getattr(value, "keys", None))
    if isinstance(value, ast.Call):
        name = value.func.id if isinstance(value.func, ast.Name) else getattr(value.func, "attr", None)
        return name in ("list", "dict", "set", "deque") and not value.args
    return isinstance(value, ast.Constant) and value.value in (0, False) and not isinstance(value.value, str)


def _fillers(tree: ast.Module, class_name: str, methods: dict, method: str) -> list[tuple[str, str]]:
    """(filler, why) for the methods that fill a container `__init__` starts empty (`self.anchors = []`,
    then `self.anchors.append(...)` in `train_teacher`), or count what was stored in one (`self.idx = 0`,
    then `self.idx = end` in `add`), which `method` reads (`self.anchors[i]`,
    `np.random.randint(0, self.idx)`) and nothing it runs fills: a user calls the filler first (RCO trains
    its teacher, then its student; an agent adds transitions, then samples them), and the read fails on
    the empty container without it. A filler that runs `method` itself is its caller, not its preparation."""
    init = methods.get("__init__")
    if init is None:
        return []
    starts = [node for node in ast.walk(init) if isinstance(node, ast.Assign)
              and len(node.targets) == 1 and _key(node.targets[0]) and _starts_empty(node.value)]
    empty = {_key(node.targets[0]) for node in starts}
    counts = {_key(node.targets[0]) for node in starts if isinstance(node.value, ast.Constant)}

    def filled_by(node: ast.AST) -> set:
        filled = set()
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr in _FILLING_METHODS:
                filled.add(_key(inner.func.value))
            elif isinstance(inner, ast.Subscript) and isinstance(inner.ctx, ast.Store):
                filled.add(_key(inner.value))
            elif isinstance(inner, ast.AugAssign) or isinstance(inner, ast.Assign) and not _starts_empty(inner.value):
                filled.update(_key(target) for target in getattr(inner, "targets", [getattr(inner, "target", None)]))
        return filled & empty

    def read_by(node: ast.AST) -> set:
        """Containers read by index or handed to a call (`random.sample(self.memory, n)`; their size
        alone, `len(self.log)`, is no read), counts read as a value (`randint(0, self.idx)`; only
        compared, as a schedule compares its step count, they need nothing filled)."""
        read = {_key(inner.value) for inner in ast.walk(node) if isinstance(inner, ast.Subscript)
                and isinstance(inner.ctx, ast.Load)}
        compared = {id(side) for inner in ast.walk(node) if isinstance(inner, ast.Compare)
                    for side in (inner.left, *inner.comparators)}
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call) and not (isinstance(inner.func, ast.Name) and inner.func.id in _SIZING):
                read.update(_key(argument) for argument in inner.args)
            elif isinstance(inner, ast.Attribute) and isinstance(inner.ctx, ast.Load) and _key(inner) in counts \
                    and id(inner) not in compared:
                read.add(_key(inner))
        return read

    reached = {node.name for node in method_closure(tree, class_name, method).body} & set(methods)  # its own
    read = {key for name in reached for key in read_by(methods[name])} & empty
    read -= {key for name in reached for key in filled_by(methods[name])}
    found = []
    for name, node in methods.items():
        if name in reached or name == "__init__" or any(
                inner.name == method for inner in method_closure(tree, class_name, name).body):
            continue
        for key in sorted(filled_by(node) & read):
            found.append((name, f"as it fills `{key}`, which `{method}` reads, and nothing `{method}` runs does"))
            break
    return found[:1]


def signature_of(function: Callable) -> inspect.Signature:
    """The function's signature; for a decorator's wrapper that takes only `*args, **kwargs` and holds
    the function it wraps in its closure (`@epoch_time` written without `functools.wraps`), the wrapped
    function's: the wrapper hands on what it is given, so that is what a call must give it."""
    signature = inspect.signature(function)
    if not signature.parameters or any(parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)
                                       for parameter in signature.parameters.values()):
        return signature
    for cell in getattr(function, "__closure__", None) or ():
        try:
            inner = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if inspect.isfunction(inner) and inner is not function:
            return signature_of(inner)
    return signature


def missing_parameters(function: Callable, node: Optional[ast.AST] = None) -> tuple[list[str], dict]:
    """The parameters without a default (they need stand-ins), and their annotations. With the
    function's `node`, also those whose default is None where the code uses the value as it comes
    (`def __call__(self, images=None): images.shape[0]`): None would fail there, a caller passes one."""
    names, annotations = [], {}
    found = uses(node) if node is not None else {}
    for parameter in signature_of(function).parameters.values():
        if parameter.kind == parameter.VAR_KEYWORD and node is not None:
            names += _counts_read_from(node, parameter.name, found)
            # `if kwargs["epoch"] > 1:`: a keyword every caller passes (without it, a KeyError)
            names += [key for key in dict.fromkeys(_entry_read(read, frozenset({parameter.name}))
                                                   for read in ast.walk(node)) if key and key.isidentifier()
                      and key not in names]
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if parameter.default is not parameter.empty and not (
                parameter.default is None and _used_unguarded(found.get(parameter.name))):
            continue
        names.append(parameter.name)
        annotations[parameter.name] = parameter.annotation
    return names, annotations


def _counts_read_from(node: ast.AST, keywords: str, found: dict) -> list[str]:
    """`num_epochs = kwargs.get("num_epochs", 0)`, then `range(num_epochs)`: counts a caller passes by
    keyword whose default runs no loop at all; a stand-in is passed for each (by keyword)."""
    counts = []
    for statement in ast.walk(node):
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name) and isinstance(statement.value, ast.Call)):
            continue
        call, name = statement.value, statement.targets[0].id
        if ast.unparse(call.func) == f"{keywords}.get" and call.args and isinstance(call.args[0], ast.Constant) \
                and call.args[0].value == name and (len(call.args) < 2 or (
                    isinstance(call.args[1], ast.Constant) and call.args[1].value in (0, None))) \
                and name in found and found[name].in_range and name not in counts:
            counts.append(name)
    return counts


def _used_unguarded(use: Optional[Use]) -> bool:
    """Used in a way None cannot serve (a method, an index, arithmetic, a call, a loop), never tested
    for None or for its truth on the way."""
    return use is not None and bool(use.methods or use.indexed or use.arithmetic or use.iterated or use.called) \
        and not (use.none_tested or use.truth)


# The value a parameter that defaults to None and is tested against it is given instead, by the kind its
# use says (a bound, a scale, a count: a tensor-like use of a number works in arithmetic too).
NUMBER_FOR_NONE = {"float": 0.1, "tensor": 0.1, "int": 2, "count": 2}


def other_defaults(function: Callable, node: Optional[ast.AST] = None) -> list[tuple[str, Any]]:
    """(name, value) for each parameter default the function can be called with the other way: a
    boolean flipped (`rand_init=False`); a string or whole-number default as each other one `node`, the
    function, compares it with (`distance="l_inf"` and `if distance == "l_2":`; `dim=0` and `if dim == 1:`);
    a None default the function tests (`if a is not None:`) as a number, where its use allows one."""
    try:
        parameters = signature_of(function).parameters.values()
    except (TypeError, ValueError):
        return []
    found = uses(node) if node is not None else {}
    others = []
    for parameter in parameters:
        if parameter.kind not in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY):
            continue
        if isinstance(parameter.default, bool):
            others.append((parameter.name, not parameter.default))
        elif parameter.default is None and parameter.name in found and found[parameter.name].none_tested:
            # `a=None` with `if a is not None:` around a noise of bound `a`: the branch runs given a number.
            kind = kind_of(parameter.name, found[parameter.name])
            if kind in NUMBER_FOR_NONE:
                others.append((parameter.name, NUMBER_FOR_NONE[kind]))
        elif isinstance(parameter.default, (str, int)) and parameter.name in found:
            # `distance="l_inf"` with `if distance == "l_2":`; `dim=0` with `if dim == 1:`.
            others += [(parameter.name, value) for value in found[parameter.name].compared
                       if type(value) is type(parameter.default) and value != parameter.default]
    return others[:MAX_SETTINGS - 1]


def self_attributes(cls: type, node: ast.AST) -> list[str]:
    """The `self.x` the method reads that the class does not define (set by an `__init__` not run).
    Those the method assigns too get a value first: it may read them before (`self.k += ...`)."""
    return [key for key in uses(node) if key.startswith("self.") and not hasattr(cls, mangled(cls, key[len("self."):]))]


def mangled(cls: type, attribute: str) -> str:
    """The name Python gives `self.__x` written in the class's body (`_Attack__x`): a private method
    of the class, or what its `__init__` would have set."""
    if attribute.startswith("__") and not attribute.endswith("__"):
        return f"_{cls.__name__.lstrip('_')}{attribute}"
    return attribute


def factories_of(tree: ast.Module, class_name: str) -> list[str]:
    """The static and class methods of the class that build one of it from nothing: no parameter
    without a default, and a `return ClassName(...)` or `return cls(...)` (`GANTrainer.makenew()`)."""
    found = []
    for name, method in methods_of(tree, class_name).items():
        decorators = {ast.unparse(decorator) for decorator in method.decorator_list}
        if not decorators & {"staticmethod", "classmethod"}:
            continue
        arguments = method.args
        positional = [*arguments.posonlyargs, *arguments.args][1 if "classmethod" in decorators else 0:]
        required = len(positional) - len(arguments.defaults) + sum(
            default is None for default in arguments.kw_defaults)
        returned = [node.value for node in ast.walk(method) if isinstance(node, ast.Return) and node.value is not None]
        if required == 0 and returned and all(
                isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                and value.func.id in (class_name, "cls") for value in returned):
            found.append(name)
    return found


def constructor_defaults(tree: ast.Module, class_name: str) -> dict:
    """What `__init__` gives each `self.x` by default, where it says so plainly: `self.eps = 1e-8`,
    or `self.clip = clip` with `clip=0.01` in its signature (numbers, flags, strings, an empty list or
    dict; not None)."""
    init = function_node(tree, class_name, "__init__")
    if init is None:
        return {}
    parameters = init.args.args + init.args.kwonlyargs
    positional_defaults = dict(zip([a.arg for a in init.args.args][-len(init.args.defaults):], init.args.defaults)) \
        if init.args.defaults else {}
    keyword_defaults = {a.arg: d for a, d in zip(init.args.kwonlyargs, init.args.kw_defaults) if d is not None}
    signature = {**positional_defaults, **keyword_defaults}
    names = {a.arg for a in parameters}
    found: dict = {}
    for node in ast.walk(init):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        key = _key(node.targets[0])
        if key is None or not key.startswith("self."):
            continue
        value = node.value
        if isinstance(value, ast.Name) and value.id in names:
            value = signature.get(value.id)
        literal = TRANSFORM if _builds_a_transform(value) else _literal(value)
        if literal is not None and key not in found:
            found[key] = literal
        elif key in found and literal != found[key]:
            found.pop(key)  # assigned twice, differently: no plain default
    return found


class Transform:
    """What stands in for an image transform the constructor builds (`self.preprocess =
    transforms.Compose([...])`): it hands back what it is given, the stand-in data being a tensor
    already. Never a network: a made-up network there would make data require grad."""

    def __call__(self, value: Any, *args, **kwargs) -> Any:
        return value

    def __repr__(self) -> str:
        return "a transform handing back what it is given (the constructor builds a torchvision transform)"


TRANSFORM = Transform()


def _builds_a_transform(value: Optional[ast.expr]) -> bool:
    """`transforms.Compose([...])`, `T.Normalize(mean, std)`: a call of torchvision's transforms."""
    if not isinstance(value, ast.Call):
        return False
    dotted = ast.unparse(value.func)
    return dotted.rpartition(".")[2] == "Compose" or dotted.startswith(("transforms.", "torchvision.transforms."))


def parser_defaults(tree: ast.Module) -> dict:
    """What the file's argparse parser gives each option by default, where it says so plainly
    (`add_argument("--lr", default=0.1)`, `action="store_true"`): option name -> value (numbers,
    flags, strings; not None). An option defined twice differently has none."""
    found: dict = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"):
            continue
        flags = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        dest = _literal(keywords.get("dest")) or next(
            (flag.lstrip("-") for flag in flags if flag.startswith("--")), flags[0].lstrip("-") if flags else None)
        if not dest:
            continue
        action = _literal(keywords.get("action"))
        value = {"store_true": False, "store_false": True}.get(action) if "default" not in keywords \
            else _literal(keywords["default"])
        key = dest.replace("-", "_")
        if value is None:
            continue
        if key in found and found[key] != value:
            found[key] = None
        else:
            found[key] = value
    return {key: value for key, value in found.items() if value is not None}


def _literal(node: Optional[ast.AST]) -> Any:
    if node is None:
        return None
    try:
        value = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return None
    if isinstance(value, (list, dict)) and not value:
        return value  # `self.costs = []`: a container the methods fill (TCL007's accumulator, a replay buffer)
    return value if isinstance(value, (bool, int, float, str)) else None


# Modules whose classes are never an imported base worth initialising: their `__init__` sets
# nothing a method of the user's class reads (and `nn.Module`'s is run already).
_PLAIN_BASES = ("builtins", "abc", "typing", "torch", "collections", "enum")
NETWORK_WORDS = ("model", "net", "classifier", "predict")  # a parameter so named takes a network


def names_a_network(name: str, use: Optional[Use] = None) -> bool:
    """Is a parameter so named a network: named so (`model`, `encoder_net`), and not used as a number
    (`d_model`, a transformer's width: `torch.zeros(d_model, h, w)`, `d_model // 2`)?"""
    return any(word in name.lower() for word in NETWORK_WORDS) and not (
        use is not None and (use.sizes or use.number_arithmetic or use.in_range or use.ordered))


def initialise_imported_bases(instance: Any, cls: type, made: dict) -> list[str]:
    """Run the `__init__` of each base class of `cls` that another module defines, on a stand-in
    instance: the attributes it sets are read by its own methods, which the user's class calls
    (`self.get_logits(x)` reading `self._normalization_applied`) and which the stand-ins from the
    file's code cannot know. Its parameters get the stand-in of the attribute of the same name, a
    stand-in network for one named like a network, their default, else None. A base whose
    `__init__` fails keeps what it set before failing. The names of the bases that ran."""
    ran = []
    network = next((value for value in made.values() if isinstance(value, nn.Module)), None)
    for base in cls.__mro__[1:]:
        module = getattr(base, "__module__", "") or ""
        if module == cls.__module__ or module.split(".")[0] in _PLAIN_BASES or "__init__" not in vars(base) \
                or vars(base).get(absent.ABSENT_BASE):
            continue  # (a stand-in for a base of an absent package has nothing to set: its `__init__` is a use)
        try:
            parameters = list(inspect.signature(base.__init__).parameters.values())[1:]
        except (TypeError, ValueError):
            continue
        arguments = {}
        for parameter in parameters:
            if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                continue
            if f"self.{parameter.name}" in made:
                arguments[parameter.name] = made[f"self.{parameter.name}"]
            elif names_a_network(parameter.name):
                arguments[parameter.name] = network if network is not None else StandInNet((CLASSES,), 0)
            elif parameter.default is parameter.empty:
                arguments[parameter.name] = None
        try:
            base.__init__(instance, **arguments)
        except Exception:  # noqa: BLE001 - what it set before failing stays; the stand-ins come after
            pass
        ran.append(base.__name__)
    return ran


def constructor_standins(cls: type, tree: ast.Module, class_name: str, device: str) -> Optional[tuple]:
    """(stand-ins, names) for the parameters of the class's own `__init__` that have no default: a
    network for one named like a network (`model`), the others from how `__init__` uses them. None
    when the class shows no `__init__` of its own, or a parameter's use says nothing of its kind."""
    node = function_node(tree, class_name, "__init__")
    if node is None:
        return None
    names, annotations = missing_parameters(cls.__init__)
    # A parameter whose default is None that the constructor computes with (`self.eps_orig = eps + 0.`):
    # its callers always pass one; a number stands in.
    found = uses(node)
    _kinds_of_what_is_kept(found, cls, tree, class_name, node)
    # `self.generator = Generator(target_size, ...)` of a sibling module, whose `__init__` asserts
    # `target_size in [64, 128, 256]`: what that class uses it as.
    _kinds_through_callees(found, tree, _project_class_inits(cls, found))
    computed_by_base = _computed_with_by_the_base(tree, class_name, node)
    numbers = [parameter.name for parameter in inspect.signature(cls.__init__).parameters.values()
               if parameter.default is None and parameter.name in found
               and (found[parameter.name].number_arithmetic or found[parameter.name].ordered
                    or parameter.name in computed_by_base)]
    names = names[1:] + numbers + [name for name in _handed_to_the_base(cls, node) if name not in names]
    roles = {name: "network" for name in names if names_a_network(name, found.get(name))}
    made = settings_for(node, names, annotations, device, roles, found=found)[0]
    if any(kind == "unknown" and not _only_stored(node, name) or kind == "options"
           for name, kind in made.plan.kinds.items()):
        # `Generator(config.model)`: what the object is built from is not known (a namespace of options
        # made up for the constructor builds it from guesses; its methods' stand-ins come from use)
        return None
    return made, tuple(names)


def _project_class_inits(cls: type, found: dict) -> dict:
    """The `__init__` (parsed) of each class of the project that the module of `cls` binds and that the
    uses in `found` pass values to (`Generator(target_size, ...)`); none of an installed package's."""
    module = sys.modules.get(getattr(cls, "__module__", ""))
    names = {callee for use in found.values() for callee, _ in use.passed_as}
    inits = {}
    for name in sorted(names):
        other = getattr(module, name, None)
        if not isinstance(other, type) or "__init__" not in vars(other):
            continue
        try:
            file = inspect.getsourcefile(other) or ""
            source = textwrap.dedent(inspect.getsource(other.__init__))
        except (OSError, TypeError):
            continue
        if any(part in ("site-packages", "dist-packages") for part in file.split(os.sep)) or \
                file.startswith(os.path.dirname(os.__file__)):
            continue
        try:
            definition = ast.parse(source).body[0]
        except (SyntaxError, IndexError):
            continue
        if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inits[name] = definition
    return inits


def _handed_to_the_base(cls: type, init: ast.AST) -> list[str]:
    """The parameters without a default of the base class's `__init__` when the class's own takes
    `**kwargs` and hands them on whole (`def __init__(self, **kwargs): super().__init__(**kwargs)`, a
    trainer of a family that shares its base's `model, dataset, optimizer`): its callers pass them by
    keyword."""
    keywords = init.args.kwarg.arg if isinstance(init, ast.FunctionDef) and init.args.kwarg else None
    handed_on = keywords is not None and any(
        isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "__init__"
        and any(keyword.arg is None and isinstance(keyword.value, ast.Name) and keyword.value.id == keywords
                for keyword in call.keywords) for call in ast.walk(init))
    base = next((klass for klass in cls.__mro__[1:] if "__init__" in vars(klass)), object) if handed_on else object
    if base is object:
        return []
    try:
        parameters = list(inspect.signature(base.__init__).parameters.values())[1:]
    except (TypeError, ValueError):
        return []
    return [parameter.name for parameter in parameters if parameter.default is parameter.empty
            and parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY)]


def _computed_with_by_the_base(tree: ast.Module, class_name: str, init: ast.AST) -> set[str]:
    """The parameters the constructor hands to the `__init__` of a base class of the file that computes
    with them as numbers (AutoAttack's `APGDAttack_targeted(..., eps=None)` passes `eps=eps` on, and the
    base's `self.eps_orig = eps + 0.` needs a number)."""
    owner = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name), None)
    bases = [base.id for base in (owner.bases if owner else []) if isinstance(base, ast.Name)]
    found: set[str] = set()
    for call in ast.walk(init):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "__init__"):
            continue
        for base in bases:
            base_init = function_node(tree, base, "__init__")
            if base_init is None:
                continue
            base_uses = uses(base_init)
            parameters = [a.arg for a in (*base_init.args.posonlyargs, *base_init.args.args)][1:]
            # `super().__init__(a, b)` passes after `self`; `Base.__init__(self, a, b)` passes `self` first.
            positional = call.args[1:] if isinstance(call.func.value, ast.Name) and call.func.value.id == base \
                else call.args
            given = [(parameter, value) for parameter, value in zip(parameters, positional)]
            given += [(keyword.arg, keyword.value) for keyword in call.keywords if keyword.arg]
            for parameter, value in given:
                use = base_uses.get(parameter)
                if isinstance(value, ast.Name) and use is not None and (use.number_arithmetic or use.ordered):
                    found.add(value.id)
    return found


def _kinds_of_what_is_kept(found: dict, cls: type, tree: ast.Module, class_name: str, init: ast.AST) -> None:
    """A parameter the constructor only keeps, under its own name or another (`self.optimizer =
    optimizer`), or only hands to its base class's `__init__` (`super().__init__(model, train_loader)`),
    which keeps it under its own name: what the methods of the class and of its bases do with
    `self.<name>` (`self.optimizer.param_groups` in `find_lr`, `for x, y in self.val_loader` in the
    base's `evaluate`, a layer size in `__init__` itself) says what it is."""
    # `__init__` itself counts: `self.latent_depth = latent_depth` and then `nn.Linear(self.latent_depth, 128)`.
    methods = list(methods_of(tree, class_name).values())
    in_methods = uses(ast.Module(body=methods + _base_methods(cls), type_ignores=[]))
    stored_as = {}  # parameter -> the attribute `self.<attribute> = parameter` keeps it under
    for node in ast.walk(init):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and len(node.targets) == 1 \
                and _key(node.targets[0]) and isinstance(node.targets[0], ast.Attribute):
            stored_as.setdefault(node.value.id, _key(node.targets[0]))
    for name, use in list(found.items()):
        if use.called or use.methods or use.iterated or use.indexed or use.arithmetic or use.torch_argument:
            continue
        handed_on = use.fed_to and all(callee.startswith("super") or callee.endswith("__init__")
                                       for callee in use.fed_to)
        kept = stored_as.get(name) if not use.fed_to and _only_stored(init, name) else \
            f"self.{name}" if handed_on else None
        if kept is not None and in_methods.get(kept, Use()).seen:
            found[name] = in_methods[kept]
            for key, entry in in_methods.items():  # `self.config["lr"]` is the entry `config["lr"]`
                if key.startswith(f"{kept}["):
                    found.setdefault(name + key[len(kept):], entry)


def _base_methods(cls: type) -> list:
    """The methods (but `__init__`) of the class's bases that the project defines, parsed from their source."""
    found = []
    for base in cls.__mro__[1:]:
        if (getattr(base, "__module__", "") or "").split(".")[0] in _PLAIN_BASES:
            continue
        try:
            node = ast.parse(textwrap.dedent(inspect.getsource(base))).body[0]
        except (OSError, TypeError, SyntaxError, IndexError):
            continue
        found += [item for item in getattr(node, "body", []) if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                  and item.name != "__init__"]
    return found


def _only_stored(function: ast.AST, name: str) -> bool:
    """Is every read of `name` in the function a plain `self.x = name`? (A constructor that keeps what
    it is given, for methods it does not run, can be built with a placeholder for it.)"""
    stored = {id(node.value) for node in ast.walk(function) if isinstance(node, ast.Assign)
              and all(isinstance(t, ast.Attribute) and _key(t) for t in node.targets)}
    reads = [node for node in ast.walk(function) if isinstance(node, ast.Name) and node.id == name
             and isinstance(node.ctx, ast.Load)]
    return all(id(read) in stored for read in reads)


def device_defaults(function: Callable, device: str) -> dict:
    """The parameters whose default names a GPU (`device="cuda"`), or that are named for a device and
    whose default names none torch knows (`device="gpu"`, which every caller replaces): the verification
    device instead."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return {}
    return {p.name: device for p in parameters if isinstance(p.default, (str, torch.device))
            and (str(p.default).startswith("cuda") or p.name in DEVICE_NAMES and not _names_a_device(p.default))
            and device != str(p.default)}


def iteration_caps(function: Callable) -> dict:
    """The parameters named for an iteration count whose default is more than ITERATION_CAP (Square's
    `n_queries=5000`, a Carlini-Wagner `steps=1000`): ITERATION_CAP instead, as a script's epochs are cut.
    An attack built with its defaults otherwise runs past the experiment's time limit on the CPU."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return {}
    return {p.name: ITERATION_CAP for p in parameters
            if type(p.default) is int and p.default > ITERATION_CAP and ITERATION_COUNT.match(p.name)}


ITERATION_CAP = 100
ITERATION_COUNT = re.compile(r"(?i)^(n_|num_|nb_|max_)?(queries|query|iter|iters|iterations|steps|epochs)$")


def _names_a_device(value: Any) -> bool:
    try:
        torch.device(value)
    except (RuntimeError, TypeError, ValueError):
        return False
    return True
