"""Pre-0.4 PyTorch idioms on the way to a claim, read as today's torch reads them (in the experiment only).

Runs in the verification child process. Old scripts log their loss with
`loss.data[0]` (`print(epoch, loss.data[0])`, `running_loss += loss.data[0]`):
before torch 0.4 a loss was a one-element tensor; since then it has no dimension,
and indexing it raises `IndexError: invalid index of a 0-dim tensor`. That error
says nothing about the claim under test (an in-place write, a missing detach),
yet it stops the run before the claim is decided. So the experiment runs
`x.data[0]` anywhere, and `x[0]` inside a print, a log call or a format, through
`__tcl_item0__`, which is `x[0]` except on a 0-dim tensor, where it is
`x.item()`, the value the old code meant. Each use is named in the evidence. The
user's file is not changed.

More old spellings fail today where they once ran, and `install_old_apis`
gives them back their old meaning in the child process (each named in the
evidence when the code uses it): `binary_cross_entropy` of a (N, 1) output and
an (N,) target (a deprecation warning before torch 1.0, which then read both as
their N elements: every GAN tutorial of 2017 does it), with an integer
target (`torch.full((n,), 1)` was a float tensor before torch 1.7), and with soft labels past 1
(`targets.uniform_(0.8, 1.2)`, which torch once computed the formula for and now refuses), the removed
`torch.autograd.gradcheck.zero_gradients`, Python 2's `itertools.izip`, `xrange` and a DataLoader
iterator's `.next()`, `torch.utils.data.dataset.T_co` (a type variable torch 2.2 stopped exporting), `torch._six` (removed in
torch 2.0, imported by vendored apex), an autograd Function called as an instance with a forward of
its own (before torch 1.3), and
NumPy's removed aliases (`np.float`, `np.int`, `np.Inf`, `np.product`, ...:
gone in NumPy 1.24 and 2.0, everywhere in older code) and its `numpy.lib` modules made private (`numpy.lib.polynomial`,
`numpy.lib.type_check`, ...), and a Python 2 module of
the project that mixes tabs and spaces in its indentation (a tab advanced to the
next multiple of eight, as Python 2 read it; Python 3 raises TabError); an imported module that passes
`async=True` to `.cuda()` (torch 0.4 renamed it `non_blocking`; Python 3.7 made `async` a keyword, so
the module no longer parses) is read with `non_blocking=`; SciPy's removed image writers
(`scipy.misc.imsave`) write nothing, and its removed reader (`scipy.misc.imread`) imports, to refuse
the read as the sandbox would; Adam's `betas=(0, 0.9)` (WGAN-GP's, an int among floats, refused by
today's torch) is read as floats; a batch norm given a (N, C) batch where it asks for images
(`nn.BatchNorm2d` after an `nn.Linear`, which torch before 0.4 normalised over its features) normalises
it so; a layer given a size as a whole-number float (`d/2`, Python 2's integer division) reads it as an int;
`collections.Iterable` and the other aliases of `collections.abc` that Python 3.10 removed are given back,
and so is `time.clock()` (Python 3.8: `time.perf_counter()`);
matplotlib settings it has removed and styles it cannot read (a URL) are ignored, and so is a pandas plot
of values it cannot draw (stand-ins); pandas' `.as_matrix()`
(removed in 1.0) gives the values; `yaml.load(f)` without a `Loader` (required since PyYAML 6) reads with
`FullLoader`, as PyYAML 5 did. Code that runs today meets none of them.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import os
import re
from typing import Any, Callable

ITEM_HELPER = "__tcl_item0__"
# Calls (by their last name) and formats whose arguments are printed or logged, not computed with.
LOGGING_CALLS = frozenset({"print", "log", "info", "debug", "warning", "write", "add_scalar", "add_scalars",
                           "append", "format", "set_postfix", "set_description", "extend"})
_MAY_INDEX_ZERO = re.compile(r"\[\s*0\s*\]")


@functools.lru_cache(maxsize=64)
def futures_in_place(text: str) -> str:
    """`text` with each `from __future__ import ...` that does not open the module made `pass` (line
    numbers kept). A notebook's later cell may hold one (IPython compiles cells one by one); its cells
    joined into one module would not compile. Python 3 has every such feature on already, but for
    `annotations`, whose absence only evaluates annotations."""
    if "__future__" not in text:
        return text
    return _statements_as_pass(text, _futures_after_the_opening)


def _futures_after_the_opening(tree: ast.Module):
    opening = True
    for node in tree.body:
        is_future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
        docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and \
            isinstance(node.value.value, str) and node is tree.body[0]
        if opening and (is_future or docstring):
            continue
        opening = False
        if is_future:
            yield node


GPU_QUERIES = frozenset({"is_available", "device_count"})


@functools.lru_cache(maxsize=64)
def gpu_requirements_in_place(text: str) -> str:
    """`text` with each check that a GPU is present made to pass, line numbers kept: an `assert` on it
    (`assert torch.cuda.is_available(), "You need an Nvidia GPU"`, as StyleGAN2 ports open their module)
    made `pass`, and an `if` on it whose branch without a GPU stops the program (`else: print("CPU");
    exit()`) made to take the other branch (its test `True` or `False`). The experiment runs code written
    for a GPU on the CPU (script.cuda_on_cpu), and the check says nothing of the claim. Unchanged when it
    has none."""
    if ".cuda." not in text or not re.search(r"\b(assert|exit|quit|raise)\b", text):
        return text
    return _checks_made_to_pass(text, _asks_for_gpu, answered=True)


@functools.lru_cache(maxsize=64)
def gpu_branches_taken(text: str, lines: frozenset) -> str:
    """`text` with each `if` on whether a GPU is present (`if train_on_gpu:` with `train_on_gpu =
    torch.cuda.is_available()`, `if torch.cuda.is_available():`) whose body holds one of `lines` made to take
    that body (its test `True`), line numbers kept: a notebook whose whole training loop sits under `if
    train_on_gpu:` runs it on a GPU only, and the experiment runs code written for a GPU on the CPU
    (script.cuda_on_cpu). The other such tests stay as the verification device answers them. Unchanged when
    it has none."""
    if ".cuda." not in text or not lines:
        return text
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    answers = _names_bound_to(tree, _asks_for_gpu)
    taken = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.If) or node.test.lineno != node.test.end_lineno or not node.body:
            continue
        negated, query = _truth_of(node.test)
        body = range(node.body[0].lineno, (node.body[-1].end_lineno or node.body[-1].lineno) + 1)
        if not negated and _asked(query, _asks_for_gpu, answers) and any(line in body for line in lines):
            taken[node.test] = "True"
    return _tests_replaced(text, taken)


@functools.lru_cache(maxsize=64)
def data_checks_in_place(text: str) -> str:
    """`text` with each check that a file or folder is there made to pass, where its failing stops the
    program (`if os.path.exists("faces"): pass else: print("download the dataset"); exit()`, `if not
    os.path.isdir(root): raise FileNotFoundError(root)`, `assert os.path.exists(root)`), line numbers
    kept: --verify never reads the user's data and stands in for it, so the data is there as far as the
    run goes. A check whose other branch goes on (`if not os.path.exists(out): os.makedirs(out)`) stays.
    Unchanged when it has none."""
    if not re.search(r"\b(exists|isdir|isfile|is_dir|is_file)\b", text) or \
            not re.search(r"\b(assert|exit|quit|raise)\b", text):
        return text
    from torchcopylint.verify.script import asks_whether_a_file_exists

    return _checks_made_to_pass(text, asks_whether_a_file_exists)


def _checks_made_to_pass(text: str, asks: Callable[[ast.expr], bool], answered: bool = False) -> str:
    """`text` with each `if` on what `asks` recognises (or, with `answered`, on a name bound to it: `use_cuda
    = torch.cuda.is_available()`, then `if use_cuda == False: exit(0)`) whose failing branch stops the
    program made to take the other branch (its test `True` or `False`), and each `assert` of it made
    `pass`; line numbers kept. As it is when it does not parse."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    answers = _names_bound_to(tree, asks) if answered else set()
    passing = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.If) or node.test.lineno != node.test.end_lineno:
            continue
        negated, query = _truth_of(node.test)
        failing = node.body if negated else node.orelse
        if _asked(query, asks, answers) and failing and _stops(failing[-1]):
            passing[node.test] = "False" if negated else "True"
    text = _tests_replaced(text, passing)
    return _statements_as_pass(text, lambda tree: (
        node for node in ast.walk(tree) if isinstance(node, ast.Assert) and asks(node.test)))


def _truth_of(test: ast.expr) -> tuple[bool, ast.expr]:
    """(negated, what is tested): `not x` and `x == False` (or `is False`) test `x` negated; `x == True`
    and `x` itself test it as it is."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return True, test.operand
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.Is)) \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value in (True, False) \
            and type(test.comparators[0].value) is bool:
        return not test.comparators[0].value, test.left
    return False, test


def _names_bound_to(tree: ast.Module, asks: Callable[[ast.expr], bool]) -> set:
    """The names bound once to what `asks` recognises (`use_cuda = torch.cuda.is_available()`)."""
    return {node.targets[0].id for node in ast.walk(tree) if isinstance(node, ast.Assign) and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name) and asks(node.value)}


def _asked(query: ast.expr, asks: Callable[[ast.expr], bool], answers: set) -> bool:
    """Does the test ask what `asks` recognises, itself or through a name bound to it?"""
    return asks(query) or isinstance(query, ast.Name) and query.id in answers


def _tests_replaced(text: str, replacements: dict) -> str:
    """`text` with each single-line test of `replacements` (an `ast.expr` -> its new text) replaced, line
    numbers and the rest of each line kept (right to left, so that two on one line stay in place)."""
    lines = text.splitlines(keepends=True)
    for test in sorted(replacements, key=lambda test: (test.lineno, test.col_offset), reverse=True):
        line = lines[test.lineno - 1]
        lines[test.lineno - 1] = line[:test.col_offset] + replacements[test] + line[test.end_col_offset:]
    return "".join(lines)


def _asks_for_gpu(test: ast.expr) -> bool:
    return any(isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr in GPU_QUERIES
               and isinstance(sub.func.value, ast.Attribute) and sub.func.value.attr == "cuda"
               for sub in ast.walk(test))


def _stops(statement: ast.stmt) -> bool:
    """`raise ...`, `exit()`, `quit()`, `sys.exit(1)`, `os._exit(1)`."""
    if isinstance(statement, ast.Raise):
        return True
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) and \
        (ast.unparse(statement.value.func) in ("exit", "quit", "sys.exit", "os._exit"))


def _statements_as_pass(text: str, chosen) -> str:
    """`text` with the statements `chosen(tree)` yields each made one `pass` at its indentation and blank
    lines (line numbers kept); as it is when it does not parse."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    lines = text.splitlines(keepends=True)
    for node in list(chosen(tree)):
        first = lines[node.lineno - 1]
        indent = first[:len(first) - len(first.lstrip())]
        lines[node.lineno - 1] = f"{indent}pass\n"
        for index in range(node.lineno, node.end_lineno or node.lineno):
            lines[index] = "\n"
    return "".join(lines)


def read_as_today(text: str) -> str:
    """`text` with `x.data[0]`, and `x[0]` where it is printed or logged, made `__tcl_item0__(x, ...)`, and
    `backward(retain_variables=v)` made `backward(retain_graph=__tcl_retain_variables__(v, ...))`; line
    numbers kept."""
    if not _MAY_INDEX_ZERO.search(text) and "retain_variables" not in text:
        return text
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    from torchcopylint.verify.datasites import replace_nodes

    text = _retain_graph_spelled_today(text, tree, replace_nodes)
    if not _MAY_INDEX_ZERO.search(text):
        return text
    tree = ast.parse(text)

    formatted = {id(sub) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for sub in ast.walk(node)}
    logged: set = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _last_name(node.func) in LOGGING_CALLS or isinstance(node, ast.JoinedStr) \
                or isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) \
                and isinstance(node.left.value, str):
            logged |= {id(sub) for sub in ast.walk(node)}
    edits = []
    taken: list = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and _is_zero(node.slice)):
            continue
        if not ((isinstance(node.value, ast.Attribute) and node.value.attr == "data") or id(node) in logged):
            continue
        span = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
        if any(_inside(span, other) for other in taken):
            continue  # within one already rewritten (ast.walk meets the outer first): edits must not overlap
        value = ast.get_source_segment(text, node.value)
        written = ast.get_source_segment(text, node)
        if value is None or written is None or "\n" in written:
            continue
        taken.append(span)
        edits.append((node, f"{ITEM_HELPER}(({value}), {written!r}, {node.lineno})"))
    for attempt in (edits, [(node, new) for node, new in edits if id(node) not in formatted]):
        if not attempt:
            break
        rewritten = replace_nodes(text, attempt)
        try:  # inside an f-string of the same quotes (before Python 3.12) the text may not parse
            ast.parse(rewritten)
        except SyntaxError:
            continue
        return rewritten
    return text


RETAIN_HELPER = "__tcl_retain_variables__"


def _retain_graph_spelled_today(text: str, tree: ast.Module, replace_nodes) -> str:
    """`loss.backward(retain_variables=True)` (before 0.4; an error since): the same flag as
    `retain_graph`, named in the evidence when it runs."""
    edits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _last_name(node.func) in ("backward", "grad"):
            for keyword in node.keywords:
                value = ast.get_source_segment(text, keyword.value)
                if keyword.arg == "retain_variables" and value is not None and "\n" not in value:
                    edits.append((keyword, f"retain_graph={RETAIN_HELPER}(({value}), {node.lineno})"))
    if not edits:
        return text
    rewritten = replace_nodes(text, edits)
    try:
        ast.parse(rewritten)
    except SyntaxError:
        return text
    return rewritten


def retain_variables(value: Any, line: int) -> Any:
    from torchcopylint.verify import script

    script.note(f"`retain_variables=` (line {line}) was read as `retain_graph=`, its name since PyTorch 0.4")
    return value


def install_old_apis() -> None:
    """Old APIs the verification child answers as the old torch and Python did (see the module's text)."""
    import importlib
    import itertools

    import torch
    import torch.nn.functional

    gradcheck = importlib.import_module("torch.autograd.gradcheck")  # the module: its name is also a function
    for name in ("binary_cross_entropy", "binary_cross_entropy_with_logits"):
        today = getattr(torch.nn.functional, name)
        if not getattr(today, "reads_old_targets", False):
            setattr(torch.nn.functional, name, _old_binary_targets(today, name))
    if not hasattr(gradcheck, "zero_gradients"):
        gradcheck.zero_gradients = _noted(_zero_gradients, "`torch.autograd.gradcheck.zero_gradients` (removed in "
                                                           "torch 1.9) zeroed the gradients as it did")
    for old, new in (("izip", zip), ("imap", map), ("ifilter", filter), ("izip_longest", itertools.zip_longest)):
        if not hasattr(itertools, old):
            setattr(itertools, old, _noted(new, f"Python 2's `itertools.{old}` ran as `{new.__name__}`"))
    iterator = torch.utils.data.dataloader._BaseDataLoaderIter
    if not hasattr(iterator, "next"):
        # `iter(loader).next()`: Python 2's spelling, which DataLoader's iterator kept until torch 1.13.
        iterator.next = _noted(iterator.__next__, "`.next()` of a DataLoader's iterator (removed in torch 1.13) "
                                                  "ran as `next(...)`")
    _python_2_builtins()
    dataset = importlib.import_module("torch.utils.data.dataset")
    if not hasattr(dataset, "T_co"):
        # `from torch.utils.data.dataset import T_co` (a type variable the module exported until torch 2.2,
        # copied into many datasets' annotations): a type variable still, which changes nothing at run time.
        import typing

        dataset.T_co = typing.TypeVar("T_co", covariant=True)
    _torch_six()
    _legacy_autograd_functions(torch)
    _numpy_aliases()
    _collections_aliases()
    _time_clock()
    _project_modules_compiled_for_today()
    _scipy_image_writers()
    _integer_betas(torch.optim)
    _batch_norms_of_any_rank(torch.nn)
    _layer_sizes_of_python_2(torch.nn)
    _schedulers_without_verbose(torch.optim.lr_scheduler)
    _after_import("matplotlib", _tolerant_figure_settings)
    _after_import("matplotlib.pyplot", _tolerant_pyplot_panels)
    _after_import("pandas", _old_pandas)
    _after_import("yaml", _yaml_load_without_loader)


def _legacy_autograd_functions(torch) -> None:
    """`MyFunction()(x)`, an autograd Function with a forward of its own instance (torch before 1.3; old
    Kaggle kernels' custom layers): run as it ran, its methods called on the new-style context (which
    has `save_for_backward` and `saved_tensors`, and gets the instance's attributes). Today's torch
    only raises there, so code written today meets none of it."""
    function = torch.autograd.function.Function
    if getattr(function.__call__, "runs_legacy_functions", False):
        return

    class LegacyCall(torch.autograd.Function):
        @staticmethod
        def forward(ctx, instance, *inputs):
            vars(ctx).update(vars(instance))
            ctx.legacy_class = type(instance)
            return type(instance).forward(ctx, *inputs)

        @staticmethod
        def backward(ctx, *grads):
            given = ctx.legacy_class.backward(ctx, *grads)
            return (None, *(given if isinstance(given, tuple) else (given,)))

    def legacy_call(self, *inputs):
        from torchcopylint.verify import script

        script.note(f"the legacy autograd Function `{type(self).__name__}` (an instance with its own forward, "
                    f"as before torch 1.3) ran as it did")
        return LegacyCall.apply(self, *inputs)

    legacy_call.runs_legacy_functions = True
    function.__call__ = legacy_call


def _torch_six() -> None:
    """`from torch._six import string_classes, container_abcs` (removed in torch 2.0; vendored apex and
    old torchvision utilities import it): its names as torch 1.x defined them, said when read."""
    import importlib.util
    import math
    import sys
    import types
    from collections import abc

    try:
        if importlib.util.find_spec("torch._six") is not None:
            return
    except (ImportError, ValueError):
        pass
    values = {"string_classes": (str, bytes), "int_classes": int, "container_abcs": abc, "inf": math.inf,
              "nan": math.nan, "PY2": False, "PY3": True, "PY37": True}

    class Six(types.ModuleType):
        def __getattr__(self, name):
            if name not in values:
                raise AttributeError(name)
            from torchcopylint.verify import script

            script.note(f"`torch._six.{name}` (removed in torch 2.0) was read as torch 1.x defined it")
            return values[name]

    import torch

    six = Six("torch._six")
    sys.modules["torch._six"] = six
    torch._six = six


def _python_2_builtins() -> None:
    """`xrange(n)`, Python 2's `range`, in a script's loops (said in the evidence when it runs)."""
    import builtins

    if not hasattr(builtins, "xrange"):
        builtins.xrange = _noted(range, "Python 2's `xrange` ran as `range`")


def _integer_betas(optim) -> None:
    """`Adam(params, lr, betas=(0, 0.9))`: WGAN-GP's betas, written with an integer zero in code of every
    year, which torch took as the floats they mean until Adam learned tensor betas and began refusing
    a mix ("betas must be either both floats or both Tensors"). Read as floats (named in the evidence)."""
    for optimizer in (optim.Adam, optim.AdamW):
        today = optimizer.__init__
        if getattr(today, "reads_integer_betas", False):
            continue

        def reads_integer_betas(self, *args, today=today, name=optimizer.__name__, **kwargs):
            # `betas=(0, 0.9)`, or third positionally: `Adam(params, 0.0002, [0, 0.9])`.
            positional = "betas" not in kwargs and len(args) > 2
            betas = args[2] if positional else kwargs.get("betas")
            if isinstance(betas, (tuple, list)) and any(type(beta) is int for beta in betas):
                from torchcopylint.verify import script

                script.note(f"`{name}(..., betas={tuple(betas)})` read its integer betas as floats, as torch did "
                            f"before it refused a mix of ints and floats")
                floats = tuple(float(beta) if type(beta) is int else beta for beta in betas)
                if positional:
                    args = (*args[:2], floats, *args[3:])
                else:
                    kwargs["betas"] = floats
            today(self, *args, **kwargs)

        reads_integer_betas.reads_integer_betas = True
        optimizer.__init__ = functools.wraps(today)(reads_integer_betas)


def _batch_norms_of_any_rank(nn) -> None:
    """`nn.BatchNorm2d(1024)` after an `nn.Linear` (an InfoGAN of 2017): before torch 0.4 the batch norms
    did not check the rank of their input, and normalised a (N, C) batch over its C features as
    `F.batch_norm` still does; today's check raises. Inputs of the rank asked for are checked as today."""
    for batch_norm in (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d):
        today = batch_norm._check_input_dim
        if getattr(today, "any_rank", False):
            continue

        def check(self, input, today=today, name=batch_norm.__name__):
            try:
                today(self, input)
            except ValueError:
                if input.dim() < 2:
                    raise
                from torchcopylint.verify import script

                script.note(f"`{name}` normalised an input of {input.dim()} dimensions over its features, as "
                            f"torch did before 0.4 (an error since)")

        check.any_rank = True
        batch_norm._check_input_dim = check


def _layer_sizes_of_python_2(nn) -> None:
    """`nn.Conv2d(3, d/2, 4, 2, 1)` (znxlwm's conditional DCGANs, copied widely): Python 2's `/` of two
    ints was an int; Python 3's is a float, which a layer refuses as a size. A layer whose construction
    fails so is built again with each whole-number float it was given read as an int; any other is
    built as today."""
    for layer in (nn.Linear, nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.ConvTranspose1d, nn.ConvTranspose2d,
                  nn.ConvTranspose3d, nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.InstanceNorm1d,
                  nn.InstanceNorm2d, nn.Embedding):
        today = layer.__init__
        if getattr(today, "whole_floats", False):
            continue

        def build(self, *args, today=today, name=layer.__name__, **kwargs):
            try:
                return today(self, *args, **kwargs)
            except TypeError:
                if not any(type(value) is float and value.is_integer() for value in (*args, *kwargs.values())):
                    raise
                read = [_whole(value) for value in args]
                read_keywords = {key: _whole(value) for key, value in kwargs.items()}
                from torchcopylint.verify import script

                script.note(f"`nn.{name}` given a size as a whole-number float (Python 2's `/` of two ints, an "
                            f"int there) read it as an int")
                return today(self, *read, **read_keywords)

        build.whole_floats = True
        layer.__init__ = build


def _whole(value: Any) -> Any:
    return int(value) if type(value) is float and value.is_integer() else value


def _schedulers_without_verbose(schedulers) -> None:
    """`ReduceLROnPlateau(optimizer, "min", verbose=True)`: the learning-rate schedulers took `verbose=`
    (printing each change) until torch removed it; code of those years passes it. Dropped (named in
    the evidence): it printed, and changed nothing else."""
    for scheduler in vars(schedulers).values():
        if not (isinstance(scheduler, type) and "__init__" in vars(scheduler)
                and issubclass(scheduler, (schedulers.LRScheduler, schedulers.ReduceLROnPlateau))):
            continue
        today = scheduler.__init__
        if getattr(today, "drops_verbose", False) or "verbose" in inspect.signature(today).parameters:
            continue

        def drops_verbose(self, *args, today=today, name=scheduler.__name__, **kwargs):
            if "verbose" in kwargs:
                from torchcopylint.verify import script

                script.note(f"`{name}(..., verbose=...)` (an argument torch removed) was dropped: it only printed")
                kwargs.pop("verbose")
            today(self, *args, **kwargs)

        drops_verbose.drops_verbose = True
        scheduler.__init__ = functools.wraps(today)(drops_verbose)


def _time_clock() -> None:
    """`time.clock()` (removed in Python 3.8), which course code times its epochs with: the
    processor-independent clock that replaced it, `time.perf_counter()`, said when read."""
    import time

    if not hasattr(time, "clock"):
        time.clock = _noted(time.perf_counter, "`time.clock()` (removed in Python 3.8) ran as `time.perf_counter()`")


def _collections_aliases() -> None:
    """`from collections import Iterable` (and `Mapping`, `Sequence`, `Callable`...): aliases of
    `collections.abc` that Python 3.10 removed, everywhere in code written before; given back, each
    named in the evidence when the code reads it."""
    import collections
    import collections.abc

    if getattr(type(collections), "gives_old_aliases", False):
        return

    class Collections(type(collections)):
        gives_old_aliases = True

        def __getattr__(self, name):
            if name in collections.abc.__all__:
                from torchcopylint.verify import script

                script.note(f"`collections.{name}` (removed in Python 3.10) was `collections.abc.{name}`")
                return getattr(collections.abc, name)
            raise AttributeError(f"module 'collections' has no attribute {name!r}")

    collections.__class__ = Collections


def _old_binary_targets(today, name: str):
    """`binary_cross_entropy` (with or without logits) reading its target as the old torch did, where
    today's raises: a (N,) target for a (N, 1) output value by value (before torch 1.0; without
    logits only), and an integer target as floats (`torch.full((n,), 1)` made a float tensor before torch 1.7: every GAN
    of a 2019 book labels its batches so)."""
    import torch

    @functools.wraps(today)
    def reads_old_targets(input, target, *args, **kwargs):
        if isinstance(input, torch.Tensor) and isinstance(target, torch.Tensor):
            from torchcopylint.verify import script

            if name == "binary_cross_entropy" and input.shape != target.shape and input.numel() == target.numel():
                # (the version with logits refused other shapes from its start)
                script.note(f"`{name}` of an output and a target of other shapes but as many values read "
                            f"them value by value, as torch did before 1.0 (an error since)")
                target = target.reshape(input.shape)
            if input.is_floating_point() and not (target.is_floating_point() or target.is_complex()):
                script.note(f"`{name}` read its integer target as floats, as the float tensor `torch.full(size, 1)` "
                            f"made before torch 1.7 (an integer tensor since, which it refuses)")
                target = target.to(input.dtype)
            if name == "binary_cross_entropy" and target.is_floating_point() and target.numel() \
                    and bool(((target < 0) | (target > 1)).any()):
                # Soft labels past 1 (`uniform_(0.8, 1.2)`, a GAN trick of 2016): refused today, computed before.
                script.note(f"`{name}` of targets outside [0, 1] (soft labels up to "
                            f"{float(target.max()):.2g}) computed its formula as torch did before it refused them")
                return _binary_cross_entropy_formula(input, target, *args, **kwargs)
        return today(input, target, *args, **kwargs)

    reads_old_targets.reads_old_targets = True
    return reads_old_targets


def _binary_cross_entropy_formula(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """`-w (t log(x) + (1 - t) log(1 - x))`, each log clamped at -100, reduced as asked: what
    `binary_cross_entropy` computes, for any target."""
    import torch

    if size_average is not None or reduce is not None:
        reduction = torch.nn._reduction.legacy_get_string(size_average, reduce)
    losses = -(target * torch.clamp(torch.log(input), min=-100)
               + (1 - target) * torch.clamp(torch.log(1 - input), min=-100))
    if weight is not None:
        losses = losses * weight
    if reduction == "none":
        return losses
    return losses.sum() if reduction == "sum" else losses.mean()


def _after_import(name: str, patch) -> None:
    """Run `patch(module)` once the code imports the package `name` (now, if it did already): the
    child does not pay for importing a package the code never uses."""
    import importlib.abc
    import importlib.machinery
    import sys

    if name in sys.modules:
        patch(sys.modules[name])
        return

    class AfterImport(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path, target=None):
            if fullname != name:
                return None
            spec = importlib.machinery.PathFinder.find_spec(fullname, path)
            if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
                return spec
            execute = spec.loader.exec_module

            def exec_module(module):
                execute(module)
                patch(module)

            spec.loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, AfterImport())


def _yaml_load_without_loader(yaml) -> None:
    """`yaml.load(f)` with no `Loader` (every config-reading script before PyYAML 6, which made it
    required; 5.1 to 5.4 warned and used `FullLoader`): read with `FullLoader`, as those did."""
    load = yaml.load
    if getattr(load, "reads_without_loader", False):
        return

    def load_as_before(stream, Loader=None, **kwargs):
        if Loader is None:
            from torchcopylint.verify import script

            script.note("`yaml.load` without a `Loader` (required since PyYAML 6) read with `FullLoader`, as "
                        "PyYAML 5 did")
            Loader = yaml.FullLoader
        return load(stream, Loader=Loader, **kwargs)

    load_as_before.reads_without_loader = True
    yaml.load = load_as_before


def _old_pandas(pandas) -> None:
    _writes_into_missing_folders(pandas)
    _as_matrix(pandas)
    _tolerant_pandas_plots(pandas)


def _tolerant_pandas_plots(pandas) -> None:
    """`results.plot(kind="bar")` of a table whose values the run made of stand-ins (a no-op metric's
    accuracy): a plot pandas cannot draw ("no numeric data to plot") is not drawn (said), as a plot
    never decides a claim; the current axes stand for what it would return."""
    from torchcopylint.verify import script

    accessor = getattr(getattr(pandas, "plotting", None), "PlotAccessor", None)
    if accessor is None or getattr(accessor.__call__, "tolerant", False):
        return
    plot = accessor.__call__

    def tolerant(self, *args, **kwargs):
        try:
            return plot(self, *args, **kwargs)
        except (TypeError, ValueError) as error:
            script.note(f"a plot pandas could not draw ({str(error)[:80]}) was not drawn")
            try:
                import matplotlib.pyplot as pyplot
            except ImportError:  # a plotting backend of another maker
                return None
            return pyplot.gca()

    tolerant.tolerant = True
    accessor.__call__ = tolerant


def _as_matrix(pandas) -> None:
    """`df["Smiling"].as_matrix()` (removed in pandas 1.0, in every course script of 2018): the values,
    as it gave them."""
    def as_matrix(self, columns=None):
        return (self if columns is None else self[columns]).values

    for kind in (pandas.DataFrame, pandas.Series):
        if not hasattr(kind, "as_matrix"):
            kind.as_matrix = _noted(as_matrix, "pandas' `.as_matrix()` (removed in pandas 1.0) gave the values, as "
                                               "`.values` does")


def _writes_into_missing_folders(pandas) -> None:
    """`df.to_csv("CIFAR10_loss/losses.csv")` into a folder the run did not make (the sandbox's
    `os.makedirs` makes none: writes go to memory): pandas checks the folder before it opens the
    file, and refuses; the check is left to the sandbox's `open`, which takes the write."""
    common = importlib.import_module("pandas.io.common")
    if hasattr(common, "check_parent_directory") and not getattr(common.check_parent_directory, "left_to_open", False):
        def left_to_open(path) -> None:
            return None

        left_to_open.left_to_open = True
        common.check_parent_directory = left_to_open


def _tolerant_figure_settings(matplotlib) -> None:
    """Figure settings never decide a claim: an rcParam that matplotlib has since removed
    (`plt.rcParams["mpl_toolkits.legacy_colorbar"] = False`, in every Neuromatch-derived notebook)
    is ignored instead of raising KeyError, and a style that cannot be read (a URL the sandbox
    refuses, a file not there) leaves the default look. Each is named in the evidence."""
    from torchcopylint.verify import script

    params = getattr(matplotlib, "RcParams", None)
    if params is not None and not getattr(params.__setitem__, "tolerant", False):
        today = params.__setitem__

        def __setitem__(self, key, value):
            try:
                today(self, key, value)
            except KeyError:
                script.note(f"matplotlib's setting `{key}`, which it no longer has, was ignored")

        __setitem__.tolerant = True
        params.__setitem__ = __setitem__
    try:
        import matplotlib.axes as axes
        import matplotlib.figure as figure
        import matplotlib.style as style
    except Exception:  # noqa: BLE001 - a broken install: the code's own use of it reports that
        return
    if not getattr(axes.Axes.imshow, "tolerant", False):
        axes.Axes.imshow = _tolerant_image(axes.Axes.imshow)
    for name in ("subplots", "add_subplot"):
        layout = getattr(figure.Figure, name, None)
        if layout is not None and not getattr(layout, "tolerant", False):
            setattr(figure.Figure, name, _whole_grid_counts(layout))
    if not getattr(style.use, "tolerant", False):
        use = style.use

        def tolerant_use(*args, **kwargs):
            try:
                return use(*args, **kwargs)
            except OSError:
                script.note("a matplotlib style that could not be read (a download, a missing file) was not applied")
                return None

        tolerant_use.tolerant = True
        style.use = tolerant_use


def _tolerant_image(imshow):
    """`plt.imshow(samples[0])` of a stand-in sample (a flat row of 784 where the data held 28x28
    images): an image matplotlib cannot draw is one pixel instead (said), as a picture never decides
    a claim."""
    from torchcopylint.verify import script

    def tolerant(self, image, *args, **kwargs):
        try:
            return imshow(self, image, *args, **kwargs)
        except (TypeError, ValueError) as error:
            script.note(f"an image matplotlib could not draw ({str(error)[:80]}) was not drawn")
            return imshow(self, [[0.0]])

    tolerant.tolerant = True
    return tolerant


def _tolerant_pyplot_panels(pyplot) -> None:
    """`plt.subplot(5, 10, task * 10 + target + 1)` places its panel itself, before the figure's
    `add_subplot` (_whole_grid_counts) is called."""
    subplot = getattr(pyplot, "subplot", None)
    if subplot is None or getattr(subplot, "tolerant", False):
        return
    placed = _whole_grid_counts(lambda _, *args, **kwargs: subplot(*args, **kwargs))  # (no figure of its own)

    def tolerant(*args, **kwargs):
        return placed(None, *args, **kwargs)

    tolerant.tolerant = True
    pyplot.subplot = tolerant


def _whole_grid_counts(layout):
    """`plt.subplots(2, batch_size / 2)`, written when `/` of integers gave an integer: matplotlib now
    refuses the float a grid count has become; the whole number it is, where it is one (said)."""
    from torchcopylint.verify import script

    def whole(value):
        return int(value) if isinstance(value, float) and value.is_integer() else value

    def tolerant(self, *args, **kwargs):
        from torchcopylint.verify.noops import NoOp

        try:
            return layout(self, *args, **kwargs)
        except (ValueError, TypeError):
            if any(isinstance(value, NoOp) for value in (*args, *kwargs.values())):
                # `plt.subplot(5, 10, task * 10 + target + 1)` of a stand-in dataset's label: one panel.
                script.note("a figure's panel placed by a stand-in value (a label of data that stood in) was "
                            "laid out as the figure's only panel")
                return layout(self)
            counts = [*args, *(kwargs.get(key) for key in ("nrows", "ncols"))]
            if not any(isinstance(value, float) and value.is_integer() for value in counts):
                raise
            script.note("a figure's grid counted in floats (`/` of Python 2) was laid out with the whole numbers "
                        "they are")
            counts_made_whole = {key: whole(value) if key in ("nrows", "ncols") else value
                                 for key, value in kwargs.items()}
            return layout(self, *(whole(value) for value in args), **counts_made_whole)

    tolerant.tolerant = True
    return tolerant


def _scipy_image_writers() -> None:
    """`scipy.misc.imsave(path, image)` and `scipy.misc.toimage(...)` (removed in SciPy 1.2) saved a
    sample grid: they write nothing here, as the sandbox would not let them (named in the evidence)."""
    try:
        import scipy.misc
    except Exception:  # noqa: BLE001 - SciPy not installed, or without `misc`: its absence is reported as such
        return
    from torchcopylint.verify.noops import NoOp

    for name in ("imsave", "toimage"):
        if not hasattr(scipy.misc, name):
            setattr(scipy.misc, name, _noted(NoOp(f"scipy.misc.{name}"),
                                             f"`scipy.misc.{name}` (removed in SciPy 1.2) wrote no image"))
    # Its reader went too: the import of a module that names it fails without it. Reading an image is
    # reading the user's data, which verification never does (as the sandbox refuses any open()).
    if not hasattr(scipy.misc, "imread"):
        scipy.misc.imread = _refused_read


def _refused_read(path, *args, **kwargs):
    from torchcopylint.verify.sandbox import UserDataRead

    raise UserDataRead(f"--verify never reads the user's data: the code read the image {path} "
                       f"(with `scipy.misc.imread`, removed in SciPy 1.2)")


def _project_modules_compiled_for_today() -> None:
    """A module of the project imported from source is compiled with its checks that a GPU is present
    skipped (`gpu_requirements_in_place`), and one that Python 3 refuses for its mix of tabs and spaces with
    the tabs of its indentation expanded as Python 2 did; each named in the evidence."""
    import importlib.machinery

    loader = importlib.machinery.SourceFileLoader
    today = loader.source_to_code
    if getattr(today, "compiles_for_today", False):
        return

    def source_to_code(self, data, path, *args, **kwargs):
        from torchcopylint.verify import sandbox, script

        if isinstance(data, bytes) and b".cuda." in data and sandbox.in_project(path):
            import importlib.util

            text = importlib.util.decode_source(data)
            skipped = gpu_requirements_in_place(text)
            if skipped != text:
                script.note(f"`{os.path.basename(path)}`'s check that a GPU is present was skipped: the code ran "
                            f"on the CPU, the verification device")
                data = skipped.encode("utf-8")
        if isinstance(data, bytes) and _MAY_READ_AT_TOP.search(data) and sandbox.in_project(path):
            import importlib.util

            text = importlib.util.decode_source(data)
            data = module_reads_guarded(text, os.path.basename(path)).encode("utf-8")
        try:
            return today(self, data, path, *args, **kwargs)
        except TabError:
            import importlib.util

            text = importlib.util.decode_source(data)
            expanded = re.sub(r"(?m)^[ \t]+", lambda indent: indent.group().expandtabs(8), text)
            code = today(self, expanded.encode("utf-8"), path, *args, **kwargs)
            script.note(f"`{os.path.basename(path)}` mixes tabs and spaces in its indentation: read as Python 2 "
                        f"read it (a tab to the next multiple of eight columns)")
            return code
        except SyntaxError:
            import importlib.util

            text = importlib.util.decode_source(data)
            respelled = non_blocking_spelled_today(text)
            if respelled == text:
                raise
            code = today(self, respelled.encode("utf-8"), path, *args, **kwargs)
            script.note(f"`{os.path.basename(path)}` passes `async=` to `.cuda()`/`.to()` (renamed `non_blocking=` "
                        f"in torch 0.4; a keyword since Python 3.7): read as `non_blocking=`")
            return code

    source_to_code.compiles_for_today = True
    loader.source_to_code = source_to_code


# Calls (by their last name) that read a file, at the top level of a project's module.
_TOP_LEVEL_READERS = frozenset({"load", "open", "loadtxt", "genfromtxt", "fromfile", "read_csv", "read_pickle",
                                "read_table", "imread"})
_MAY_READ_AT_TOP = re.compile(rb"(?m)^\w[\w, ]*=.*\b(" + b"|".join(name.encode() for name in _TOP_LEVEL_READERS)
                              + rb")\(")


@functools.lru_cache(maxsize=64)
def module_reads_guarded(text: str, module: str) -> str:
    """`text` with the value of each top-level assignment that reads a file by a path the code writes out
    (`NP_model = pickle.load(gzip.open("data/NP_score.pkl.gz"))`) read through `read_or_unread`, which
    stands in for the user's data; on the same lines, so that line numbers hold."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    from torchcopylint.verify.datasites import replace_nodes

    edits = []
    for statement in tree.body:
        if not (isinstance(statement, ast.Assign) and all(
                isinstance(name, ast.Name) for target in statement.targets
                for name in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]))):
            continue
        if any(isinstance(call, ast.Call) and _last_name(call.func) in _TOP_LEVEL_READERS
               and any(isinstance(argument, ast.Constant) and isinstance(argument.value, str) for argument in call.args)
               for call in ast.walk(statement.value)):
            shown = ast.unparse(statement.targets[0])
            edits.append((statement.value, f"__import__('torchcopylint.verify.legacy', fromlist=['legacy'])"
                                           f".read_or_unread(lambda: ({ast.get_source_segment(text, statement.value)}),"
                                           f" {shown!r}, {module!r}, {statement.lineno})"))
    return replace_nodes(text, edits) if edits else text


def read_or_unread(read: Callable[[], Any], shown: str, module: str, line: int) -> Any:
    """What a module-level read of a project module returns (`NP_model = pickle.load(gzip.open(
    "data/NP_score.pkl.gz"))` in MolGAN's `utils.py`, which every file of it imports with `*`); where
    the read is of the user's data, which the sandbox refuses, or of a file that is not there, a stand-in
    whose first use stops the run, named in the evidence: importing the module no longer fails on a
    value the claim may never use."""
    from torchcopylint.verify import sandbox, script
    from torchcopylint.verify.absent import unread_data

    try:
        return read()
    except (sandbox.UserDataRead, FileNotFoundError):
        script.note(f"`{shown}` ({module}, line {line}) was not read: a value whose first use stops the run")
        return unread_data(shown, line)


# `x.cuda(async=True)`: the keyword torch 0.4 renamed `non_blocking`, which Python 3.7 made a syntax error.
OLD_NON_BLOCKING = re.compile(r"(?<=[(,])(\s*)async(\s*=)")


def non_blocking_spelled_today(text: str) -> str:
    return OLD_NON_BLOCKING.sub(r"\1non_blocking\2", text)


def _numpy_aliases() -> None:
    """NumPy's removed names, answered by its module `__getattr__` (which runs only for a name the
    module no longer has) with what they meant, named in the evidence."""
    try:
        import numpy
    except ImportError:
        return

    meant = {"float": ("float", float), "int": ("int", int), "object": ("object", object), "str": ("str", str),
             "complex": ("complex", complex), "unicode": ("str", str), "long": ("int", int),
             "float_": ("np.float64", numpy.float64), "complex_": ("np.complex128", numpy.complex128),
             "string_": ("np.bytes_", numpy.bytes_), "unicode_": ("np.str_", numpy.str_),
             "bool8": ("np.bool_", numpy.bool_), "int0": ("np.intp", numpy.intp), "uint0": ("np.uintp", numpy.uintp),
             "Inf": ("np.inf", numpy.inf), "Infinity": ("np.inf", numpy.inf), "infty": ("np.inf", numpy.inf),
             "PINF": ("np.inf", numpy.inf), "NINF": ("-np.inf", -numpy.inf), "NaN": ("np.nan", numpy.nan),
             "NAN": ("np.nan", numpy.nan), "product": ("np.prod", numpy.prod),
             "cumproduct": ("np.cumprod", numpy.cumprod), "alltrue": ("np.all", numpy.all),
             "sometrue": ("np.any", numpy.any), "round_": ("np.round", numpy.round)}
    today = getattr(numpy, "__getattr__", None)
    if today is None or getattr(today, "answers_old_names", False):
        return

    def old_names(name: str):
        if name in meant:
            from torchcopylint.verify import script

            shown, value = meant[name]
            script.note(f"NumPy's removed `np.{name}` was read as `{shown}`, what it meant")
            return value
        return today(name)

    old_names.answers_old_names = True
    numpy.__getattr__ = old_names
    _numpy_lib_modules(numpy)


# `numpy.lib` modules NumPy 2.0 made private (as `numpy.lib._<name>_impl`), which older code imports from.
NUMPY_LIB_MODULES = ("polynomial", "utils", "type_check", "ufunclike", "function_base", "shape_base", "twodim_base",
                     "index_tricks", "nanfunctions", "arraysetops", "arraypad", "histograms")


def _numpy_lib_modules(numpy) -> None:
    """`from numpy.lib.polynomial import roots`, `from numpy.lib.type_check import imag`: the names of the
    module's private successor, or NumPy's own. A name neither has any more (a helper an editor imported
    unasked, `from numpy.lib.utils import source`) imports, and refuses to run if called."""
    import importlib
    import importlib.util
    import sys
    import types

    for name in NUMPY_LIB_MODULES:
        full = f"numpy.lib.{name}"
        try:
            if importlib.util.find_spec(full) is not None:
                continue
        except (ImportError, ValueError):
            pass
        try:
            successor = importlib.import_module(f"numpy.lib._{name}_impl")
        except ImportError:
            successor = None
        module = types.ModuleType(full)
        module.__getattr__ = functools.partial(_numpy_lib_name, full, (successor, numpy))
        sys.modules[full] = module


def _numpy_lib_name(module: str, sources: tuple, name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    for source in sources:
        if source is not None and hasattr(source, name):
            return getattr(source, name)

    def removed(*args, **kwargs):
        raise RuntimeError(f"`{module}.{name}` is gone from NumPy {sources[-1].__version__}")
    return removed


def _noted(function, text: str):
    def noted(*args, **kwargs):
        from torchcopylint.verify import script

        script.note(text)
        return function(*args, **kwargs)
    return noted


def _zero_gradients(value: Any) -> None:
    import torch

    if isinstance(value, torch.Tensor):
        if value.grad is not None:
            value.grad.detach_()
            value.grad.zero_()
    elif isinstance(value, (list, tuple)):
        for element in value:
            _zero_gradients(element)


def _inside(span: tuple, outer: tuple) -> bool:
    return (span[0], span[1]) >= (outer[0], outer[1]) and (span[2], span[3]) <= (outer[2], outer[3])


def _is_zero(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == 0 and not isinstance(node.value, bool)


def _last_name(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def item0(value: Any, written: str, line: int) -> Any:
    """`value[0]`; on a 0-dim tensor (a loss since torch 0.4), `value.item()`, and the evidence says so."""
    import torch

    if isinstance(value, torch.Tensor) and value.dim() == 0:
        from torchcopylint.verify import script

        shown = written[: -len("[0]")] if written.endswith("[0]") else written
        script.note(f"`{written}` (line {line}) was read as `{shown}.item()`, the number pre-0.4 code meant: "
                    f"indexing a 0-dim tensor fails since torch 0.4")
        return value.item()
    return value[0]
