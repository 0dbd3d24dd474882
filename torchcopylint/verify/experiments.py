"""One experiment per rule: run the flagged code (as written, and as fixed) and report what happened.

Runs in the verification child process. Every verdict comes from running the
code: an experiment that cannot run it says `unverified` and why.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import functools
import inspect
import itertools
import linecache
import os
import re
import sys
import time
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import torch
from torch import nn

from torchcopylint.verify import (callsites, checkpoints, flagged, legacy, noops, projectnets, registrations,
                                   sandbox, script, standins, topcalls)
from torchcopylint.verify.configurations import Configuration, configurations, stand_in_networks
from torchcopylint.verify.datasites import replace_nodes
from torchcopylint.verify.watching import bytes_cloned_at, same_values, walk_graph
from torchcopylint.verify.inputs import (
    CannotRun,
    Factories,
    candidate_shapes,
    forward_runs,
    make_input,
    probe_input_shape,
    raised_at,
    required_inputs,
)
from torchcopylint.verify import absent
from torchcopylint.verify.absent import AbsentPackageUsed, stand_in_for, stand_in_removed
from torchcopylint.verify.importing import (
    MissingModule,
    absent_package,
    as_namespace_package,
    enter,
    execute,
    fresh_module,
    import_context,
    module_names,
    needs_package,
    outside_package,
    project_relative,
    relative_depth,
)
from torchcopylint.verify.probe import LineProbe, StopRun
from torchcopylint.verify.probes import memory_of
from torchcopylint.verify.reach import (
    NotReached,
    Outcome,
    Run,
    claim_lines,
    confirmed,
    decide,
    named,
    not_reached,
    refuted,
    statement_lines_between,
)
from torchcopylint.verify.snippet import (
    Caller,
    Target,
    callers_in_file,
    callers_without_arguments,
    class_built_for,
    classes_given_to,
    enclosing,
    without_later_definitions,
)

INPLACE_BACKWARD_ERROR = "modified by an inplace operation"
# Packages that are not installed a snippet may import (and must never use) before it is given up.
MAX_STAND_INS = 16
# Other values of the script's options a function's experiment tries, after its own settings.
MAX_OPTION_RUNS = 4


@dataclass
class Job:
    """One diagnosis to verify, with the file it is in (as written and as fixed)."""

    path: str
    source: str
    fixed_source: Optional[str]
    code: str
    line: int
    context: dict
    device: str
    factories: Factories
    # Where the diagnosis points: (line, column, end line, end column), 1-based columns, end exclusive.
    span: Optional[tuple] = None
    # (path, source, cells) of the linted files that import this file's module (verify/runner.py
    # importers; a notebook's source is its code cells as one module, `cells` where each one is).
    importers: tuple = ()
    # Which of the flagged function's top-level calls gives its arguments (call_sites' order): a helper
    # that several scripts call with their own settings (`train_model(gen, disc, disc_loss_fn=...)` from
    # a script per question of a homework) may show the effect through one of them only.
    site_choice: int = 0
    _tree: Optional[ast.Module] = field(default=None, repr=False)

    @property
    def tree(self) -> ast.Module:
        """The source, parsed once."""
        if self._tree is None:
            self._tree = ast.parse(self.source)
        return self._tree

    @property
    def target(self) -> Target:
        return enclosing(self.tree, self.line)


# ------------------------------------------------------------------ loading the snippet

_loaded = 0


def load(source: str, path: str, roots: set[str], stand_in_failed_imports: bool = False,
         reads: frozenset = frozenset(), built: frozenset = frozenset()) -> dict:
    """Execute the snippet for `roots` as a fresh module of the file's package, with the module-level
    names it reads (verify/script.py), on stand-in data; its namespace.

    With `stand_in_failed_imports`, an import statement that still fails once packages that are not
    installed have stand-ins (a project module off the import path, a package that breaks as it
    imports) binds stand-ins too: for code run on stand-ins of what it imports (verify/absent.py).
    `built`: the root classes whose networks the module's statements may build (script.function_text)."""
    try:
        return script.load_function(source, path, roots, _execute, reads=reads, built=built)
    except CannotRun as reason:
        if not (stand_in_failed_imports and isinstance(reason.__cause__, MissingModule)):
            raise
        failure = reason
    package = import_context(path).package
    namespace = script.load_function(source, path, roots, _execute,
                                     rewrite=lambda text: absent.stand_in_failed_imports(text, package), reads=reads,
                                     built=built)
    if namespace is None:
        raise failure
    return namespace


def run_module_level(job: Job, source: Optional[str] = None, probe: Optional[LineProbe] = None,
                     also: tuple = ()) -> dict:
    """Run the flagged top-level statement of `source` (the file as written by default) after its
    backward slice, and nothing else of the script (but the statements starting on the lines of
    `also`), on stand-in data, the flagged iteration once; the module's namespace afterwards."""
    return script.run_top_level(job.source if source is None else source, job.path, [*_claim_lines(job), *also],
                                job.code, _execute, probe)


def _claim_lines(job: Job) -> list[int]:
    """The flagged line first, then the lines the rule named as part of its claim (`write_line`...)."""
    named = [value for key, value in sorted(job.context.items()) if key.endswith("_line") and isinstance(value, int)]
    return [job.line, *(line for line in named if line > job.line)]


def _execute(text: str, path: str, probe: Optional[LineProbe] = None, helpers: Optional[dict] = None,
             plan: Any = None, tolerant: frozenset = frozenset(), unbuilt: frozenset = frozenset()) -> dict:
    """Run snippet text as a fresh module of the file's package (with the verifier's `helpers` in
    its namespace; the statements starting on `tolerant` and `unbuilt` lines may fail: see
    script.compile_tolerant). When an import fails
    because a package is not installed, run it again with a stand-in for that package
    (verify/absent.py; no-ops for one used for data, plots or logging, verify/noops.py): a verdict
    then comes only from code that never used it."""
    global _loaded
    sandbox.new_run()
    context = import_context(path)
    levels = relative_depth(text)
    if context.package is None and levels:
        context = as_namespace_package(context, path, levels)
        enter(context)
    text = legacy.read_as_today(text)  # `loss.data[0]` of pre-0.4 code: `.item()` on a 0-dim tensor
    text = legacy.futures_in_place(text)  # a notebook's later cell's `from __future__ import division`
    without_gpu_checks = legacy.gpu_requirements_in_place(text)  # `assert torch.cuda.is_available()`
    if without_gpu_checks != text:
        script.note("a check that a GPU is present was skipped: the code ran on the CPU, the verification device")
        text = without_gpu_checks
    if probe is not None:
        on_gpu = legacy.gpu_branches_taken(text, frozenset(probe.before) | frozenset(probe.after))
        if on_gpu != text:  # `if train_on_gpu:` around the whole training loop of a notebook
            script.note("the branch the code takes on a GPU, which holds the line the experiment watches, ran: "
                        "the code ran on the CPU, the verification device")
            text = on_gpu
    without_data_checks = legacy.data_checks_in_place(text)  # `if not os.path.exists(root): exit()`
    if without_data_checks != text:
        script.note("a check that the data is there, which stops the program without it, was passed: the data "
                    "stood in")
        text = without_data_checks
    text = registrations.tolerate(text)  # the package's import filed the file's classes first
    code = script.compile_tolerant(text, path, tolerant, unbuilt) if tolerant or unbuilt else compile(text, path, "exec")
    if path.endswith(".ipynb"):
        # The notebook's file is JSON: `inspect.getsource` of a class its cells define (a block's
        # `__init__`, read for the widths it chains) must read the cells' code instead.
        linecache.cache[path] = (len(text), None, text.splitlines(True), path)
    stood_in: set[str] = set()
    put_on_path: set[str] = set()
    removed: set[tuple] = set()  # names and modules installed packages no longer have, given stand-ins
    asked = absent.missing_imports()
    for package in _imported_out_of_sight(text):
        # `from torchvision.datasets import MNIST` inside a method the experiment calls: it fails there,
        # not as the module is run; `try: from celluloid import Camera` / `except: pass`: the failure is
        # swallowed, and `Camera(fig)` fails later. So a package used for data, plots or logging gets its
        # no-ops first.
        # (Not any other name: a project package, `from src.models import ...`, may be importable only
        # once its folder is on the path.)
        if noops.is_no_op(package) and package not in stood_in and len(stood_in) < MAX_STAND_INS and \
                absent_package(ModuleNotFoundError(name=package), path) == package:
            _stand_in(package, path, stood_in)
    while True:
        _loaded += 1
        imported = set(sys.modules)
        asked_before = len(asked.names)
        try:
            try:
                module = fresh_module(context, path, _loaded)
            except (MissingModule, AbsentPackageUsed, SyntaxError) as failure:
                # The package's __init__.py cannot run here; a snippet that needs nothing of the
                # package runs as the file alone. (A package that is not installed gets its
                # stand-in first, below; this is for an __init__.py that uses it, or that does not
                # parse: `from pytorch-yolo2-master.detect import detect` above scripts that import
                # their siblings as scripts do.)
                if context.package is None or needs_package(text, context.package) or \
                        (isinstance(failure, MissingModule) and failure.package is not None) or \
                        (isinstance(failure, SyntaxError) and os.path.basename(failure.filename or "") != "__init__.py"):
                    raise
                context = outside_package(context)
                continue
            module.__dict__.update(helpers or {})
            module.__dict__[legacy.ITEM_HELPER] = legacy.item0
            module.__dict__[legacy.RETAIN_HELPER] = legacy.retain_variables
            module.__dict__[registrations.REGISTERED_HELPER] = registrations.registered
            if plan is not None:
                plan.namespace = module.__dict__  # the networks the stand-in data is shaped for
            if probe is None:
                execute(code, module)
            else:
                probe.run(execute, code, module)
            return module.__dict__
        except MissingModule as missing:
            if missing.removed is not None and missing.removed not in removed and len(removed) < MAX_STAND_INS:
                # Code written for an older version of an installed package (a vendored library's
                # `from scipy.optimize.optimize import _status_message`): the import gets a stand-in that
                # fails only where the code uses it, said; a claim elsewhere in the project decides.
                removed.add(missing.removed)
                script.note(stand_in_removed(*missing.removed))
                _forget_orphans(set(sys.modules) - imported)
                continue
            if missing.project_module is not None and missing.project_module not in put_on_path \
                    and len(put_on_path) < MAX_STAND_INS:
                # `import bert_cnn_base` of a module the project keeps in another folder (its scripts
                # are run with that folder on PYTHONPATH): the folder goes on the import path, last, said.
                put_on_path.add(missing.project_module)
                sys.path.append(os.path.dirname(missing.project_module))
                script.note(f"`{os.path.basename(missing.project_module).removesuffix('.py')}` is the project's "
                            f"{project_relative(missing.project_module, path)}, off the import path: its folder "
                            f"was put on it")
                _forget_orphans(set(sys.modules) - imported)
                continue
            if missing.left_out is not None and missing.left_out not in stood_in and len(stood_in) < MAX_STAND_INS:
                # `import CLB_pack.models` where the project's `CLB_pack` holds no `models` (the repository
                # left it out): a stand-in, whose use stops the run and is named; a claim that never needs
                # it runs.
                stood_in.add(missing.left_out)
                stand_in_for(missing.left_out, home=path)
                script.note(f"`{missing.left_out}` is not in the project, whose `{missing.left_out.rpartition('.')[0]}` "
                            f"imports it: a stand-in was imported for it")
                _forget_orphans(set(sys.modules) - imported)
                continue
            if missing.package is None and stood_in:
                # Another import failed once stand-ins were in: say which, the first may be the cause.
                raise CannotRun(f"{missing} (with stand-ins for {', '.join(f'`{name}`' for name in sorted(stood_in))}, "
                                f"which {'is' if len(stood_in) == 1 else 'are'} not installed)") from missing
            if missing.package is None or missing.package in stood_in or len(stood_in) >= MAX_STAND_INS:
                raise CannotRun(str(missing)) from missing
            _stand_in(missing.package, path, stood_in, text)
            _forget_orphans(set(sys.modules) - imported)
        except SystemExit:
            # A module of the project that exits as it is imported when a package it checks for is
            # missing (`except ImportError: ... sys.exit(1)` in a package's __init__.py): the packages
            # that import asked for and nothing had get stand-ins, as a failed import's would.
            wanted = [name for name in dict.fromkeys(asked.names[asked_before:]) if name not in stood_in
                      and name not in sys.stdlib_module_names  # `winreg`, asked for off Windows
                      and absent_package(ModuleNotFoundError(name=name), path) == name]
            if not wanted or not _exited_in_an_import(sys.exc_info()[2], path) or \
                    len(stood_in) + len(wanted) > MAX_STAND_INS:
                raise
            for name in wanted:
                _stand_in(name, path, stood_in)
            script.note(f"a module of the project exits as it is imported without "
                        f"{', '.join(f'`{name}`' for name in wanted)}: "
                        f"{'it was' if len(wanted) == 1 else 'they were'} given stand-ins")
            _forget_orphans(set(sys.modules) - imported)


@functools.lru_cache(maxsize=32)
def _imported_out_of_sight(text: str) -> tuple[str, ...]:
    """The top-level packages the code imports inside its functions, or in a `try` whose handlers only pass
    or print (absolute imports only): imports whose failure does not stop the module as it is run. (A
    handler that binds something, `tf = None` or `HAS_WANDB = False`, is the code's own way without the
    package: it is left to run.) Asked on each run of the same snippet, worked out once."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return ()
    found: dict[str, None] = {}
    for block in ast.walk(tree):
        if isinstance(block, ast.Try) and any(not isinstance(statement, (ast.Pass, ast.Expr))
                                              for handler in block.handlers for statement in handler.body):
            continue
        if not isinstance(block, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Try)):
            continue
        for node in ast.walk(block):
            if isinstance(node, ast.Import):
                found.update((alias.name.split(".")[0], None) for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found[node.module.split(".")[0]] = None
    return tuple(found)


def _stand_in(package: str, path: str, stood_in: set, text: str = "") -> None:
    """From now on in this run, `import package` yields a stand-in: no-ops for one used for data, plots
    or logging (verify/noops.py; by its name, or by what `text` calls of it), else names that say so
    when the code uses them (verify/absent.py)."""
    stood_in.add(package)
    if noops.is_no_op(package) or noops.logs_only(package, text):
        noops.stand_in_for(package)
    else:
        stand_in_for(package, home=path)
        noops.stand_in_for_logging_modules(package)


def _exited_in_an_import(trace, path: str) -> bool:
    """Did the exit happen while a module was being imported: the top level of a file other than the
    code's own on the way? (Python leaves its import system's frames out of the traceback.)"""
    while trace is not None:
        code = trace.tb_frame.f_code
        if code.co_name == "<module>" and os.path.abspath(code.co_filename) != os.path.abspath(path):
            return True
        trace = trace.tb_next
    return False


def _forget_orphans(names: set) -> None:
    """The modules a failed try imported whose package Python then discarded (`distiller.norms`, once
    `import distiller` failed): kept, the next try would find them in sys.modules, but not as
    attributes of the package imported anew. Modules whose packages are still there stay."""
    for name in names:
        parts = name.split(".")
        if any(".".join(parts[:depth]) not in sys.modules for depth in range(1, len(parts))):
            sys.modules.pop(name, None)


def _roots(target: Target, extra: tuple = ()) -> set[str]:
    return {name for name in (target.class_name, target.function_name, *extra) if name}


def _call_site(job: Job) -> Optional[topcalls.TopLevelCall]:
    """The top-level call of the flagged function whose arguments the experiment uses (the first of
    call_sites unless the job chose another); for a method, the top-level call that builds its object
    (`ewc(model=model, dataloaders=[None])`)."""
    sites = call_sites(job)
    return sites[job.site_choice] if job.site_choice < len(sites) else None


def call_sites(job: Job) -> list[topcalls.TopLevelCall]:
    """The top-level calls of the flagged function (or that build the flagged method's object): the
    file's own, or where it has none, those of the other linted files that import it (a `main.py` that
    builds the data and calls `train(dataset)` under its main guard), file by file."""
    target = job.target
    if target.function_name is None:
        return []
    name = target.class_name or target.function_name
    sites = topcalls.top_level_calls(job.source, name)
    if sites:
        return sites
    found = []
    for path, source, cells in job.importers:
        found += topcalls.calls_from_importer(source, path, job.source, name, module_names(job.path), cells)
    return found


def _site_namespace(site: topcalls.TopLevelCall, namespace: dict) -> dict:
    """Where the call's arguments are made: the function's own module, or for a call in another file,
    that file's top-level slice for them, run on stand-in data as this one is."""
    if not site.path:
        return namespace
    # Nothing of the flagged module runs there (its functions train: `classifier_train(dataset)` after
    # the call), nor the call itself.
    return script.load_function(site.source, site.path, set(), _execute, reads=site.reads,
                                avoided=site.avoided, place=site.place)


def _load(job: Job, source: Optional[str] = None, stand_in_failed_imports: bool = False) -> dict:
    """The snippet of the flagged function or class (of `source`, the file as written by default), with
    the module-level names it reads, and those its top-level call passes it (verify/topcalls.py)."""
    site = _call_site(job)
    reads = site.reads if site is not None and not site.path else frozenset()
    method = job.target.function_name
    if site is not None and not site.path and job.target.class_name is not None and method not in (None, "__init__"):
        # The script's call of the method on the object its call builds (`trainer.train(loader)`): what
        # that call passes is made here too.
        called = topcalls.method_call_site(site, job.source, job.target.class_name, method)
        reads = reads | (called.reads if called is not None else frozenset())
    # The function the script calls at its top level that calls this one (a setting of last resort):
    # loaded with it, so that it calls this very version of the code (marked, or fixed).
    callers = _callers_called_at_top_level(job)[:1] if not _is_module_level(job.target) and \
        job.target.class_name is None else []
    for _, caller_site in callers:
        reads = reads | caller_site.reads
    # The file's classes whose methods the function calls on an argument (`model.training_step(batch)`):
    # a network of one of them stands in for it (verify/projectnets.py).
    target = job.target
    passed = () if _is_module_level(target) else projectnets.classes_for(
        job.tree, standins.function_node(job.tree, target.class_name, target.function_name or "forward"), job.path)
    given = classes_given_to(job.source, target.class_name)  # `ResNet(BasicBlock, [2, 2])`: BasicBlock too
    # The script may build networks of those classes for the call (`model = ResNet9(3, 10)`), but never
    # an object of the flagged method's own class there (its constructor may train).
    built = frozenset(passed + given) - {target.class_name}
    text = without_later_definitions(job.source if source is None else source, job.line)
    return load(text, job.path,
                _roots(target, tuple(name for name, _ in callers) + passed + given), stand_in_failed_imports,
                reads=reads, built=built)


def _is_module_level(target: Target) -> bool:
    return target.class_name is None and target.function_name is None


# Rules whose experiment observes the flagged statement itself (an error, a value written, a
# graph that grows), which a top-level slice can show; the others compare a function's outputs.
TOP_LEVEL_EXPERIMENTS = frozenset({"TCL004", "TCL005", "TCL006", "TCL007", "TCL008",
                                   "TCL009", "TCL010", "TCL011", "TCL012"})


def _require_runnable(target: Target) -> None:
    if _is_module_level(target):
        raise CannotRun("the flagged line is module-level script code, and this rule's experiment compares "
                        "the outputs of a function or module; `--verify --run CMD` can observe it")


def _first_tensor(value: Any) -> Optional[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return value
    if isinstance(value, (tuple, list)):
        for item in value:
            found = _first_tensor(item)
            if found is not None:
                return found
    if isinstance(value, dict):
        return _first_tensor(list(value.values()))
    return None


# ------------------------------------------------------------- running the target code


@dataclass(frozen=True)
class ModuleLevel:
    """A flagged top-level statement: run through its backward slice (verify/slicing.py)."""

    description: str = "as given"  # the evidence names what stood in


@dataclass(frozen=True)
class AsGiven:
    """A function that needs no argument: called as it is."""

    description: str = "as given"


@dataclass(frozen=True)
class WithFlag:
    """A function that needs no argument, called with one of its defaults the other way: the flagged
    line may sit on the branch a flag or a mode selects (`w.mul_(2) if flag else w * 2`)."""

    name: str
    value: Any

    @property
    def description(self) -> str:
        return f"{self.name}={self.value!r}"


@dataclass(frozen=True)
class ThroughCaller:
    """A function whose arguments a caller makes: one that needs none (`main()`), or one the script
    calls at its top level with what it built (`generate_model(train_loader, valid_loader)`)."""

    caller: str
    site: Optional[topcalls.TopLevelCall] = None  # the caller's own top-level call, when it takes arguments

    @property
    def description(self) -> str:
        if self.site is not None:
            return f"the call from `{self.caller}()`, which the top-level call at line {self.site.line} makes"
        return f"the call from `{self.caller}()`"


@dataclass(frozen=True)
class Preparation:
    """A method of the object run before the flagged one, as a caller in its class runs it first
    (`perturb` runs `init_hyperparam(x)`, which sets `self.ndims`, before `attack_single_run`)."""

    method: str
    why: str                      # why it runs first: "as `perturb` runs it before"
    names: tuple                  # its parameters without a default: the flagged method's value of the same name, else a stand-in
    standins: standins.StandIns
    rows: tuple = ()              # (parameter, attribute, several): stored into `self.attribute[...]`, shaped as its rows


@dataclass(frozen=True)
class FunctionStandIns:
    """A function's missing arguments, made from how it uses them."""

    standins: standins.StandIns
    names: tuple
    flags: tuple = ()  # (name, value) of a parameter called with its default the other way
    preparations: tuple = ()  # of Preparation, for a method: run on the object first
    globals: tuple = ()  # module-level names only a function of the file binds (`global args`): stood in

    @property
    def description(self) -> str:
        flipped = ", ".join(f"{name}={value!r}" for name, value in self.flags)
        return f"{self.standins.description}, {flipped}" if flipped else self.standins.description


@dataclass(frozen=True)
class FromCallSite:
    """A function called with what its top-level call passes (verify/topcalls.py): the script's own
    network, optimizer, device and loader (on stand-in batches), built by the top level's slice;
    the arguments that could not be made are stand-ins from use."""

    site: topcalls.TopLevelCall
    given: tuple                      # the parameters the call's own values are passed for
    standins: Optional[standins.StandIns] = None  # for the parameters it could not make
    shown: str = ""
    final: bool = True                # what the program passes decides: later stand-ins cannot overturn it

    @property
    def description(self) -> str:
        return self.shown


@dataclass(frozen=True)
class InstanceStandIns(FunctionStandIns):
    """A method of a class that cannot be built: its `self.x` and its arguments are stand-ins."""


@dataclass(frozen=True)
class BuiltInstance(FunctionStandIns):
    """A method of an object its class's own constructor builds (with its defaults; stand-ins for the
    parameters without one, a network for `model`); the method's arguments are stand-ins."""

    constructor: Optional[standins.StandIns] = None
    constructor_names: tuple = ()
    site: Optional["FromCallSite"] = None  # the script's own top-level call that builds the object
    # The script's call of the method on that object after it (`trainer.train(loader)`, `train(G, D)`
    # for `__call__`): what it passes is what the method gets, stand-ins the rest.
    method_site: Optional[topcalls.TopLevelCall] = None
    factory: str = ""  # a static or class method of the class that builds one from nothing (`makenew()`)
    # (argument, attribute): an argument the method hands straight to a network of the object
    # (`fake = self.generator(noise)`): shaped for that network once the object is built.
    fed_to_own: tuple = ()

    @property
    def description(self) -> str:
        if self.site is not None:
            built = f"the object built by {self.site.site.described}"
            return built if self.method_site is None else \
                f"{built}, the method given what {self.method_site.described} passes"
        if self.factory:
            return f"the object built by its class's `{self.factory}()`"
        return "stand-ins"  # the evidence says how the object was built (`made_text`)


@dataclass(frozen=True)
class ModuleStandIns(FunctionStandIns):
    """A method of several inputs (`forward(model, x, y)`, `forward(v1, v2, y, idx)`) of a module a
    configuration builds: its arguments are stand-ins from how it uses them (a network for the one
    it calls, class indices for the one it indexes with), where no single input shape can fit."""

    configuration: Optional[Configuration] = None

    @property
    def description(self) -> str:
        return f"{self.configuration.description}, {super().description}"


@dataclass(frozen=True)
class ConstructorStandIns:
    """The `__init__` of a class that is not a module: the object built with stand-ins for the
    constructor's parameters (from how `__init__` uses them), its defaults for the rest."""

    standins: standins.StandIns
    names: tuple

    @property
    def description(self) -> str:
        return f"the object built with stand-ins for its {', '.join(f'`{name}`' for name in self.names)}"


@dataclass
class Ran:
    result: Any
    module: Optional[nn.Module] = None
    leaf: Optional[torch.Tensor] = None
    shape: Optional[tuple] = None
    made: dict = field(default_factory=dict)
    made_text: str = ""


def settings(job: Job, namespace: dict, roles: Optional[dict] = None):
    """The settings to run the target in, best first: constructor configurations for a block,
    stand-ins for a function's arguments (or a method's instance), or a caller that needs none;
    then the first of them again with each other value of the script's argparse options (the
    function reads `args.loss`, and the flagged line is under `if args.loss == "wasserstein":`)."""
    first = None
    for setting in _settings(job, namespace, roles):
        first = setting if first is None else first
        if isinstance(setting, (FromCallSite, ThroughCaller)) and not isinstance(first, (FromCallSite, ThroughCaller)):
            # The options reach the function through the script's own call (`main(opts)` of the parsed
            # `opts`); stand-ins for `opts` read none of them.
            first = setting
        yield setting
    # Each load of the module parses the options with the arguments chosen here (verify/script.py);
    # a few, as each is a run of its own.
    tried = 0
    while first is not None and not isinstance(first, ModuleLevel) and tried < MAX_OPTION_RUNS \
            and script.next_option_values():
        tried += 1
        yield first


def _configurations(job: Job, cls: type):
    """The configurations the module class builds with (verify/configurations.py), the calls of it in the
    linted files that import the job's file included."""
    return configurations(cls, job.source, job.path, job.factories, importers=job.importers)


def _settings(job: Job, namespace: dict, roles: Optional[dict] = None):
    target = job.target
    if _is_module_level(target) and job.code in TOP_LEVEL_EXPERIMENTS:
        yield ModuleLevel()
        return
    _require_runnable(target)
    tree = job.tree
    if target.class_name is not None:
        cls = namespace[target.class_name]
        method = target.function_name or "forward"
        if isinstance(cls, type) and issubclass(cls, nn.Module) and not roles:
            try:
                first = _configurations(job, cls)
                built = next(first)
            except CannotRun as reason:
                failure = reason
            else:
                yield built
                yield from first
                yield from _module_standins(job, cls, tree, method, built)
                return
        else:
            failure = CannotRun(f"{target.class_name} is not an nn.Module")
        node = standins.function_node(tree, target.class_name, method)
        function = getattr(cls, method, None)
        object_class = isinstance(cls, type) and not issubclass(cls, nn.Module)
        # An object the script builds at its top level (not a module): built as the script builds it.
        built_by_script = _constructor_call_site(job, namespace, tree, cls, roles) if object_class else None
        if method == "__init__" and object_class:
            if built_by_script is not None:
                yield built_by_script
            built = standins.constructor_standins(cls, tree, target.class_name, job.device)
            if built is None:
                if built_by_script is not None:
                    return
                raise failure
            yield ConstructorStandIns(*built)
            return
        if node is None or function is None or method == "__init__":
            raise failure
        names, annotations = standins.missing_parameters(function, node)
        # What a call through the instance passes: all but `self`, or all of a static method's.
        own = tuple(names if isinstance(inspect.getattr_static(cls, method, None), staticmethod) else names[1:])
        prepared = _preparations(job, cls, tree, method, roles)
        used = standins.method_closure(tree, target.class_name, method, *(p.method for p in prepared))
        attributes = standins.self_attributes(cls, used)
        unbound = _globals_to_stand_in(job, namespace, target.class_name, used)
        found = standins.settings_for(used, attributes + list(own) + list(unbound), annotations, job.device,
                                      roles, standins.constructor_defaults(tree, target.class_name), tree=tree)
        found = projectnets.with_project_networks(found, used, tree, namespace, job)
        built = None if issubclass(cls, nn.Module) else \
            standins.constructor_standins(cls, tree, target.class_name, job.device)
        fed_to_own = _fed_to_own_networks(node, list(own))
        if built_by_script is not None:
            method_site = topcalls.method_call_site(built_by_script.site, job.source, target.class_name, method)
            yield BuiltInstance(found[0], own, preparations=prepared, globals=unbound,
                                site=built_by_script, fed_to_own=fed_to_own, method_site=method_site)
        for factory in standins.factories_of(tree, target.class_name):
            # `GANTrainer.makenew()`: the class's own way of building one, its networks included.
            yield BuiltInstance(found[0], own, preparations=prepared, globals=unbound,
                                factory=factory, fed_to_own=fed_to_own)
        if built is not None:
            # An object that is not a module (an attack, a trainer): built by its own constructor first,
            # with its defaults, so that what its methods and its base classes read is what it sets.
            yield BuiltInstance(found[0], own, preparations=prepared, globals=unbound,
                                constructor=built[0], constructor_names=built[1], fed_to_own=fed_to_own)
        yield from (InstanceStandIns(s, own, preparations=prepared, globals=unbound) for s in found)
        # Each other default of the method's own (`use_rand_start=True`), on the first stand-ins and on
        # labels the network predicts (an attack's restarts run only on samples it classifies right).
        first = [found[0], *(s for s in found[1:] if s.plan.predicted_labels)]
        others = standins.other_defaults(function, node)
        yield from (InstanceStandIns(setting, own, ((name, value),), prepared, unbound)
                    for setting in first for name, value in others)
        # A default that guards the claim's lines (`if use_rand_start:` around them), on every other setting
        # too: the lines may need it and another value at once (`elif self.norm == "L2":` inside it, FAB's).
        guarding = _guarding_names(job)
        yield from (InstanceStandIns(setting, own, ((name, value),), prepared, unbound)
                    for name, value in others if name in guarding
                    for setting in found if not any(setting is chosen for chosen in first))
        return
    function = namespace[target.function_name]
    names, annotations = standins.missing_parameters(function,
                                                     standins.function_node(tree, None, target.function_name))
    if not names:
        yield AsGiven()
        yield from (WithFlag(name, value) for name, value in
                    standins.other_defaults(function, standins.function_node(tree, None, target.function_name)))
        return
    from_call, unused = _from_call_site(job, namespace, tree, names, annotations, roles)
    if from_call is not None:
        yield from_call
    node = standins.function_node(tree, None, target.function_name)
    unbound = _globals_to_stand_in(job, namespace, target.function_name, node)
    found = standins.settings_for(node, names + list(unbound), annotations, job.device, roles, tree=tree,
                                  numbers=_whole_numbers_bound(namespace))
    found = projectnets.with_project_networks(found, node, tree, namespace, job)
    found = projectnets.with_inputs_of_module_networks(found, node, namespace, job.device)
    if "unknown" in found[0].plan.kinds.values() or unused and topcalls.NOT_RUN not in unused:
        # An argument nothing says the kind of, or a call in the file whose values its slice failed to make
        # (`transfer_fc(model.fc)` inside `resnet18(**kwargs)`): a caller that makes them runs first. Not
        # where the slice would not run what makes them (`weights = fit(model)`: it may train).
        yield from (ThroughCaller(caller) for caller in callers_without_arguments(job.source, target.function_name)[:1])
    if unused:  # the evidence says why the call's own values were not used
        found = [dataclasses.replace(s, description=f"{s.description} ({unused})") for s in found]
    yield from (FunctionStandIns(s, tuple(names), globals=unbound) for s in found)
    # The flagged line may sit on the path a flag or a mode selects (`if rand_init:`, `if norm == "l2":`):
    # the defaults the other way, one at a time.
    flipped = standins.other_defaults(function, node)
    yield from (FunctionStandIns(found[0], tuple(names), ((name, value),), globals=unbound)
                for name, value in flipped)
    # The flag may choose the targets' kind as well (`if one_hot: criterion(out, y.argmax(1))` beside
    # `criterion(out, y)`): each other value on the batches of another kind of target too.
    yield from (FunctionStandIns(setting, tuple(names), ((name, value),), globals=unbound)
                for setting in found[1:] if setting.plan.labels != found[0].plan.labels
                for name, value in flipped)
    # Last, where no stand-in fitted: the program's own way there, a function the script calls at its
    # top level that calls this one with the networks and loaders it built.
    yield from (ThroughCaller(caller, site) for caller, site in _callers_called_at_top_level(job)[:1])


def _claim_span(job: Job) -> tuple[int, int]:
    """The first and last line the claim depends on: the flagged line and those its context names (the
    copy's read, the in-place write, the backward)."""
    lines = [job.line, *(value for key, value in job.context.items() if key.endswith("_line") and type(value) is int)]
    return min(lines), max(lines)


def _globals_to_stand_in(job: Job, namespace: dict, root: str, node: Optional[ast.AST]) -> tuple[str, ...]:
    """The globals `root` reads that only a function of the file binds and the loaded code lacks, and
    those it uses as networks (`node`, its code, calls them) that hold a network saved whole and not
    read (`gan = nn.DataParallel(torch.load("ckpts/netG"))`): stood in from use, like an argument."""
    unbound = [name for name in script.globals_only_functions_bind(job.source, root) if name not in namespace]
    loaded = [name for name in sorted(script.globals_read_by(job.source, root))
              if name in namespace and checkpoints.unread_network(namespace[name])]
    used = standins.uses(node) if loaded and node is not None else {}  # (rare: read only then)
    unread = [name for name in loaded
              if name in used and (used[name].called or used[name].methods & standins.MODULE_METHODS)]
    return tuple(unbound + unread)


def _whole_numbers_bound(namespace: dict) -> dict[str, int]:
    """The module's names that hold a whole number once its slice ran (`mnist_dim = 784`, computed)."""
    return {name: value for name, value in namespace.items() if type(value) is int and 0 < value <= 1 << 20}


def _module_standins(job: Job, cls: type, tree: ast.Module, method: str, built: Configuration):
    """For a method of several inputs, the module `built` with stand-ins for them from use: after the
    input shapes its call sites give (which come first, as the program's own)."""
    node = standins.function_node(tree, job.target.class_name, method)
    function = getattr(cls, method, None)
    if node is None or function is None or required_inputs(cls, method) < 2:
        return
    names, annotations = standins.missing_parameters(function)
    found = standins.settings_for(node, names[1:], annotations, job.device, tree=tree)
    # A module built with sizes (`Memory(16, 16, 16)`) takes features of those sizes (`v.view(b, size, 1)`).
    sizes = dict.fromkeys(value for value in (*built.args, *built.kwargs.values())
                          if type(value) is int and 0 < value <= 4096 and value != standins.FEATURES)
    found += [standins.StandIns(f"stand-ins of {size} features, a size the module is built with",
                                found[0].plan.varied("", None, sample=(size,)), job.device) for size in sizes]
    yield from (ModuleStandIns(s, tuple(names[1:]), configuration=built) for s in found)
    # The lines may sit on the path a flag selects (`if save_history and k % save_freq == 0:`): each
    # other default, one at a time.
    yield from (ModuleStandIns(found[0], tuple(names[1:]), ((name, value),), configuration=built)
                for name, value in standins.other_defaults(function, node))


def _preparations(job: Job, cls: type, tree: ast.Module, method: str, roles: Optional[dict]) -> tuple:
    """The methods a caller in the class runs on the object before the flagged one, with stand-ins
    for their parameters; one whose parameters fit no stand-in is left out."""
    found = []
    for name, why in standins.preparations(tree, job.target.class_name, method):
        function = getattr(cls, name, None)
        node = standins.function_node(tree, job.target.class_name, name)
        if function is None or node is None:
            continue
        names, annotations = standins.missing_parameters(function)
        made = standins.settings_for(node, names[1:], annotations, job.device, roles, tree=tree)[0]
        found.append(Preparation(name, why, tuple(names[1:]), made, standins.stored_rows(node)))
    return tuple(found)


def _shaped_as_rows(instance: Any, preparation: Preparation, values: dict) -> None:
    """Give each parameter the preparation stores into a tensor the object holds (`self.obses[self.idx] =
    obs`) that tensor's row shape (for a slice, as many rows as the smallest such tensor has, up to two):
    the buffer's shape is the one that fits."""
    buffers = {name: getattr(instance, attribute, None) for name, attribute, _ in preparation.rows}
    buffers = {name: tensor for name, tensor in buffers.items() if isinstance(tensor, torch.Tensor) and tensor.dim() > 0}
    count = min([2, *(tensor.shape[0] for tensor in buffers.values())])
    for name, _, several in preparation.rows:
        buffer = buffers.get(name)
        if buffer is None:
            continue
        shape = (count, *buffer.shape[1:]) if several else tuple(buffer.shape[1:])
        values[name] = (torch.rand(shape, device=buffer.device) if buffer.is_floating_point()
                        else torch.zeros(shape, dtype=buffer.dtype, device=buffer.device))


def _prepare(instance: Any, preparations: tuple, made: dict) -> str:
    """Run the preparations on the object; what ran (or failed), for the evidence."""
    said = []
    for preparation in preparations:
        values, _ = preparation.standins.make(seed=0)
        _shaped_as_rows(instance, preparation, values)
        arguments = [made[name] if name in made else values[name] for name in preparation.names]
        call = f"`{preparation.method}({', '.join(preparation.names)})`"
        try:
            getattr(instance, preparation.method)(*arguments)
        except Exception as error:  # noqa: BLE001 - the flagged method may run without it; the evidence says
            said.append(f"{call}, run first {preparation.why}, failed ({type(error).__name__}: {error})")
            continue
        said.append(f"{call} ran first, {preparation.why}")
    return "; ".join(said)


def _callers_called_at_top_level(job: Job) -> list[tuple[str, topcalls.TopLevelCall]]:
    """Module-level functions that call the flagged function and that the script calls at its top level
    with arguments (a caller that needs none is `callers_without_arguments`'s)."""
    found = []
    for node in job.tree.body:
        if not isinstance(node, ast.FunctionDef) or node.name == job.target.function_name:
            continue
        if not any(isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name)
                   and sub.func.id == job.target.function_name for sub in ast.walk(node)):
            continue
        sites = [site for site in topcalls.top_level_calls(job.source, node.name) if site.arguments]
        if sites:
            found.append((node.name, sites[0]))
    return found


def _constructor_call_site(job: Job, namespace: dict, tree: ast.Module, cls: type,
                           roles: Optional[dict]) -> Optional[FromCallSite]:
    """The setting of the script's top-level call that builds the object, when it makes its values."""
    node = standins.function_node(tree, job.target.class_name, "__init__")
    if node is None or "__init__" not in vars(cls):
        return None
    names, annotations = standins.missing_parameters(cls.__init__, node)
    found, _ = _from_call_site(job, namespace, tree, names[1:], annotations, roles, node)
    return found


def _from_call_site(job: Job, namespace: dict, tree: ast.Module, names: list, annotations: dict,
                    roles: Optional[dict], node: Optional[ast.AST] = None) -> tuple[Optional[FromCallSite], str]:
    """The setting of the function's top-level call, when the file has one and the slice made at least
    one of the values it passes; the rest are stand-ins from use. (None, why) when there is a call
    whose values cannot be used; (None, "") when there is none."""
    site = _call_site(job)
    if site is None:
        return None, ""
    try:
        made = topcalls.evaluate(site, _site_namespace(site, namespace))
    except (CannotRun, AbsentPackageUsed) as reason:
        return None, f"{site.described} could not be made: {str(reason)[:160]}"
    except Exception as error:  # noqa: BLE001 - another file's top level may raise anything
        # (its data unread, `ori_data[0]` of a statement that could not run): the experiment goes on
        # with stand-ins from use, and says why the call's values were not used.
        return None, f"{site.described} could not be made: {type(error).__name__}: {str(error)[:140]}"
    if not made.values and site.arguments:
        name, why = next(iter(made.failed.items()), ("", "nothing to pass"))
        return None, (f"{site.described} passes nothing the experiment could make"
                      + (f": `{name}`: {why}" if name else ""))
    rest = [name for name in names if name not in made.values]
    found = None
    if rest:
        node = node if node is not None else standins.function_node(tree, None, job.target.function_name)
        found = standins.settings_for(node, rest, annotations, job.device, roles, tree=tree)
        found = projectnets.with_project_networks(found, node, tree, namespace, job)[0]
    # A call that passes nothing (`dcgan = DCGAN()`) builds with the defaults, as the script does.
    text = f"the arguments {site.described} passes ({made.shown_in_order(site)})" if site.arguments else \
        f"{site.described}, which passes no arguments"
    if rest:
        why = "; ".join(f"`{name}`: {made.failed[name]}" for name in rest if name in made.failed)
        text += f", stand-ins for {', '.join(f'`{name}`' for name in rest)}" + (f" ({why})" if why else "")
    return FromCallSite(site, tuple(made.values), found, text), ""


def _concrete(cls: Any) -> Any:
    """The class, or where it is abstract (`class Learning(ABC)` with `@abstractmethod def
    _load_train`, implemented by subclasses in other files), a subclass whose abstract methods do
    nothing: the flagged method of the base runs (said in the evidence); what it needs of them, it
    does not get, and the run says so by failing."""
    abstract = sorted(getattr(cls, "__abstractmethods__", ()) or ())
    if not isinstance(cls, type) or not abstract:
        return cls
    script.note(f"`{cls.__name__}` is abstract: its {', '.join(f'`{name}`' for name in abstract)} did nothing")
    return type(cls.__name__, (cls,), {name: _does_nothing for name in abstract})


def _does_nothing(*args, **kwargs) -> None:
    return None


def _method_site_values(site: Optional[topcalls.TopLevelCall], namespace: dict) -> tuple[dict, str]:
    """The values the script's call of the method passes (those it could make), and how the evidence
    says them; nothing where there is no such call."""
    if site is None:
        return {}, ""
    try:
        made = topcalls.evaluate(site, _site_namespace(site, namespace))
    except (CannotRun, AbsentPackageUsed):
        return {}, ""
    if not made.values:
        return {}, ""
    return dict(made.values), f"the arguments {site.described} passes to the method ({made.shown_in_order(site)})"


def _call_with_site(function: Callable, setting: FromCallSite, namespace: dict, runner: Callable, seed: int = 2):
    """Call the function with the call site's values (made again in this run's namespace) and stand-ins."""
    made = topcalls.evaluate(setting.site, _site_namespace(setting.site, namespace))
    lost = [name for name in setting.given if name not in made.values]
    if lost:
        raise CannotRun(f"the top-level call's `{lost[0]}` could not be made in this run: {made.failed.get(lost[0])}")
    stood, text = setting.standins.make(seed=0) if setting.standins is not None else ({}, "")
    values = {name: made.values[name] for name in setting.given}
    values.update({name: value for name, value in stood.items() if name not in values})
    positional, keywords = [], {}
    for parameter in standins.signature_of(function).parameters.values():
        if parameter.name not in values:
            continue
        if parameter.kind == parameter.POSITIONAL_ONLY:
            positional.append(values[parameter.name])
        else:
            keywords[parameter.name] = values[parameter.name]
    torch.manual_seed(seed)
    return Ran(runner(function, *positional, **keywords), made=values, made_text=text)


def run_target(job: Job, namespace: dict, probe: Optional[LineProbe] = None, shape: Optional[tuple] = None,
               setting: Any = None, calls: int = 1) -> Ran:
    """Run the function or method holding the flagged line in `setting` (the first setting if None);
    a method `calls` times on the same instance (state it keeps across calls: TCL007's `self.avg`)."""
    target = job.target
    if setting is None:
        setting = next(iter(settings(job, namespace)))
    if isinstance(setting, ModuleLevel):
        run_module_level(job, probe=probe)
        return Ran(None)
    _require_runnable(target)
    run = probe.run if probe is not None else (lambda f, *a, **k: f(*a, **k))

    def runner(function: Callable, *arguments, **keywords):
        return run(_drained(function), *arguments, **keywords)

    if isinstance(setting, Configuration):
        cls = namespace[target.class_name]
        method = target.function_name or "forward"
        if method == "__init__":
            return Ran(runner(lambda: setting.build(cls)))
        module = setting.build(cls).to(job.device)
        networks = stand_in_networks(setting)
        if networks:
            script.note(networks)
        if method != "forward" and required_inputs(cls, method) == 0:
            # A method of the module's own state (`cell.to_pytorch_impl()`): called as it is.
            torch.manual_seed(2)
            result = None
            for _ in range(calls):
                result = runner(getattr(module, method))
            return Ran(result, module)
        if shape is None:
            shape = _input_shape(job, namespace, lambda: setting.build(cls).to(job.device), method,
                                 flagged=(job.path, job.line))
        leaf, tensor = make_input(shape, job.device)
        torch.manual_seed(2)
        arguments = tensor if isinstance(tensor, tuple) else (tensor,)  # several inputs from a call site
        result = None
        for _ in range(calls):
            result = runner(getattr(module, method), *arguments)
        return Ran(result, module, leaf, shape)
    if isinstance(setting, ModuleStandIns):
        module = setting.configuration.build(namespace[target.class_name]).to(job.device)
        made, text = setting.standins.make(seed=0)
        torch.manual_seed(2)
        result = None
        for _ in range(calls):
            method = getattr(module, target.function_name or "forward")
            positional, keywords = _arguments(method, setting.names, made)
            result = runner(method, *positional, **keywords, **dict(setting.flags))
        return Ran(result, module, made=made, made_text=text)
    if isinstance(setting, FromCallSite) and target.class_name is not None:  # the object's `__init__`
        ran = _call_with_site(namespace[target.class_name], setting, namespace, runner)
        instance = ran.result
        return dataclasses.replace(ran, result=dict(vars(instance)) if hasattr(instance, "__dict__") else instance)
    if isinstance(setting, ConstructorStandIns):
        cls = namespace[target.class_name]
        made, text = setting.standins.make(seed=0)
        positional, keywords = _arguments(cls.__init__, setting.names, made)
        torch.manual_seed(2)
        instance = runner(cls, *positional, **keywords, **standins.device_defaults(cls.__init__, job.device))
        # What a constructor makes is the object's state: its attributes are the result compared.
        return Ran(dict(vars(instance)) if hasattr(instance, "__dict__") else instance, made=made, made_text=text)
    if isinstance(setting, ThroughCaller):
        # The namespace of this run's version of the code has the caller when it was loaded with it (_load).
        caller_namespace = namespace if setting.caller in namespace else \
            load(job.source, job.path, {setting.caller, target.function_name})
        caller = caller_namespace[setting.caller]
        if setting.site is None:
            torch.manual_seed(2)
            return Ran(runner(caller))
        made = topcalls.evaluate(setting.site, caller_namespace)
        lost = [name for name, _ in setting.site.arguments if name not in made.values]
        if lost:
            raise CannotRun(f"the top-level call of `{setting.caller}` at line {setting.site.line}: `{lost[0]}` "
                            f"could not be made ({made.failed.get(lost[0])})")
        torch.manual_seed(2)
        return Ran(runner(caller, **made.values), made_text="; ".join(made.shown.values()))
    if isinstance(setting, BuiltInstance):
        cls = _concrete(namespace[target.class_name])
        made, text = setting.standins.make(seed=0)
        _set_globals(job, namespace, setting, made)
        if setting.site is not None:
            ran = _call_with_site(cls, setting.site, namespace, lambda function, *a, **k: function(*a, **k), seed=1)
            instance, built = ran.result, f"{cls.__name__}(...) with {setting.site.shown}"
        elif setting.factory:
            torch.manual_seed(1)
            instance, built = getattr(cls, setting.factory)(), f"{cls.__name__}.{setting.factory}()"
            if not isinstance(instance, cls):
                raise CannotRun(f"`{built}` did not give a {cls.__name__}")
        else:
            given, given_text = setting.constructor.make(seed=1)
            caps = {name: value for name, value in standins.iteration_caps(cls.__init__).items()
                    if name not in setting.constructor_names}
            instance = cls(**{name: given[name] for name in setting.constructor_names},
                           **standins.device_defaults(cls.__init__, job.device), **caps)
            built = f"{cls.__name__}({', '.join(setting.constructor_names)}) " \
                    f"({given_text.removeprefix('stand-ins: ')})" if setting.constructor_names else f"{cls.__name__}()"
            if caps:
                built += "; " + ", ".join(f"`{name}={value}`" for name, value in caps.items()) + \
                    " (an iteration count cut from its default, as a script's epochs are)"
        # An option its constructor leaves None (`eps=None`) that the method computes with: the stand-in
        # its use asks for (a number), named.
        unset = [name for name, value in made.items() if name.startswith("self.") and "." not in name[len("self."):]
                 and value is not None
                 and getattr(instance, standins.mangled(cls, name[len("self."):]), 0) is None]
        for name in unset:
            setattr(instance, standins.mangled(cls, name[len("self."):]), made[name])
        prepared = _prepare(instance, setting.preparations, made)
        _shape_for_own_networks(instance, setting.fed_to_own, made, job.device)
        passed, passed_text = _method_site_values(setting.method_site, namespace)
        made = {**made, **passed}
        own = tuple(name for name in setting.names if name not in passed) + tuple(unset)
        arguments = setting.standins.plan.describe(made, only=own) if own else ""
        made_text = "; ".join(part for part in (f"the object built by its own constructor as {built}", prepared,
                                                passed_text, arguments) if part)
        torch.manual_seed(2)
        result = None
        try:
            for _ in range(calls):
                method = getattr(instance, target.function_name)
                positional, keywords = _arguments(method, setting.names, made)
                result = runner(method, *positional, **keywords)
        except Exception as stopped:
            # An experiment that stops the run at its measurement (StopRun), or a failure: what stood in is
            # this object's, not the plan's stand-ins for its attributes (_made_text_of reads it here).
            stopped.made_text = made_text
            raise
        return Ran(result, made=made, made_text=made_text)
    if isinstance(setting, InstanceStandIns):
        cls = _concrete(namespace[target.class_name])
        made, text = setting.standins.make(seed=0)
        _set_globals(job, namespace, setting, made)
        instance = cls.__new__(cls)
        if issubclass(cls, nn.Module):
            nn.Module.__init__(instance)
        bases = standins.initialise_imported_bases(instance, cls, made)
        if bases:
            text = f"{text}; {', '.join(f'`{name}.__init__`' for name in bases)} (imported) ran on the stand-ins"
        for name, value in made.items():
            if name.startswith("self.") and "." not in name[len("self."):]:  # `self.params.lr` is in its namespace
                setattr(instance, standins.mangled(cls, name[len("self."):]), value)
        prepared = _prepare(instance, setting.preparations, made)
        if prepared:
            text = f"{text}; {prepared}"
        torch.manual_seed(2)
        result = None
        for _ in range(calls):
            method = getattr(instance, target.function_name)
            positional, keywords = _arguments(method, setting.names, made)
            result = runner(method, *positional, **keywords, **dict(setting.flags))
        return Ran(result, made=made, made_text=text)
    function = namespace[target.function_name]
    if isinstance(setting, FromCallSite):
        return _call_with_site(function, setting, namespace, runner)
    if isinstance(setting, WithFlag):
        torch.manual_seed(2)
        return Ran(runner(function, **{setting.name: setting.value}))
    made, text = setting.standins.make(seed=0) if isinstance(setting, FunctionStandIns) else ({}, "")
    if isinstance(setting, FunctionStandIns):
        _set_globals(job, namespace, setting, made)
    torch.manual_seed(2)
    positional, keywords = _arguments(function, setting.names, made) if isinstance(setting, FunctionStandIns) \
        else ([], {})
    flags = dict(setting.flags) if isinstance(setting, FunctionStandIns) else {}
    devices = {name: device for name, device in standins.device_defaults(function, job.device).items()
               if name not in keywords and name not in flags}
    return Ran(runner(function, *positional, **keywords, **flags, **devices), made=made, made_text=text)


def _set_globals(job: Job, namespace: dict, setting: FunctionStandIns, made: dict) -> None:
    """Bind the globals only a function of the file binds (which never runs here), and the networks
    loaded whole from a checkpoint not read, to their stand-ins, named in the evidence."""
    if not setting.globals:
        return
    root = job.target.class_name or job.target.function_name
    bound_by_functions = script.globals_only_functions_bind(job.source, root)
    unbound = tuple(name for name in setting.globals if name in bound_by_functions)
    unread = tuple(name for name in setting.globals if name not in unbound)
    namespace.update({name: made[name] for name in setting.globals})
    if unbound:
        shown = setting.standins.plan.describe(made, only=unbound).removeprefix("stand-ins: ")
        script.note(f"{shown}, for the global{'s' if len(unbound) > 1 else ''} only a function of the "
                    f"file binds (`global {', '.join(unbound)}`)")
    if unread:
        # (Their shapes differ from one setting to the next: the setting's own evidence shows them.)
        several = len(unread) > 1
        script.note(f"{', '.join(f'`{name}`' for name in unread)}, the network{'s' if several else ''} the code "
                    f"loads whole from a checkpoint not read: stand-in network{'s' if several else ''} made from "
                    f"how the code uses {'them' if several else 'it'}")


def _fed_to_own_networks(node: ast.AST, names: list) -> tuple:
    """(argument, attribute) for each argument the method passes to `self.<attribute>(...)`, itself or
    as arithmetic on it (`r_data = data + noise * torch.randn_like(data)`, then `self.disc(r_data)`)."""
    found = standins.uses(node)
    computed = {name: {statement.targets[0].id for statement in ast.walk(node)
                       if isinstance(statement, ast.Assign) and len(statement.targets) == 1
                       and isinstance(statement.targets[0], ast.Name) and isinstance(statement.value, ast.BinOp)
                       and any(isinstance(operand, ast.Name) and operand.id == name
                               for operand in standins.arithmetic_operands(statement.value))}
                for name in names}
    fed = {name: set().union(*(found[made].fed_to for made in {name, *computed[name]} if made in found))
           for name in names}
    return tuple((name, callee[len("self."):]) for name in names for callee in sorted(fed[name])
                 if callee.startswith("self.") and "." not in callee[len("self."):])


def _shape_for_own_networks(instance: Any, fed_to_own: tuple, made: dict, device: str) -> None:
    """A stand-in tensor the object's own network cannot read (`self.generator(noise)` with a first
    layer of 100 features) is made again in the first shape that network's forward runs on."""
    for name, attribute in fed_to_own:
        network, value = getattr(instance, attribute, None), made.get(name)
        if not (isinstance(network, nn.Module) and isinstance(value, torch.Tensor) and value.dim() >= 1) \
                or forward_runs(network, value):
            continue
        for shape in candidate_shapes(network):
            if all(isinstance(size, int) for size in shape) and \
                    forward_runs(network, torch.rand(shape, device=value.device)):
                made[name] = standins.stand_in_tensor(device, (value.shape[0], *shape[1:]), name=name)
                break


def _arguments(function: Callable, names: tuple, made: dict) -> tuple[list, dict]:
    """The stand-ins of `names` as the call passes them: by position, by keyword the keyword-only ones
    (`*, constraint`) and those with a default (`images=None`, which the code uses as given)."""
    try:
        parameters = standins.signature_of(function).parameters.values()
    except (TypeError, ValueError):
        parameters = ()
    by_keyword = {p.name for p in parameters
                  if p.kind == p.KEYWORD_ONLY or (p.default is not p.empty and p.kind != p.POSITIONAL_ONLY)}
    # Counts read from `**kwargs` (`kwargs.get("num_epochs", 0)`, standins.missing_parameters): by keyword.
    by_keyword |= set(names) - {p.name for p in parameters}
    return ([made[name] for name in names if name not in by_keyword],
            {name: made[name] for name in names if name in by_keyword})


# The items of a generator function's result the experiment takes: its body runs only as it is iterated.
GENERATED_ITEMS = 8


def _drained(function: Callable) -> Callable:
    """The function, its result iterated (a few items) when it is a generator: the body of `def
    batches(...): ... yield x` runs only then, and the flagged line with it."""
    def call(*arguments, **keywords):
        result = function(*arguments, **keywords)
        return list(itertools.islice(result, GENERATED_ITEMS)) if inspect.isgenerator(result) else result
    return call


def run_loaded(job: Job, probe: Optional[LineProbe] = None, shape: Optional[tuple] = None, setting: Any = None):
    if _is_module_level(job.target):
        run_module_level(job, probe=probe)
        return Ran(None)
    namespace = _load(job)
    return run_target(job, namespace, probe, shape, setting)


def _made_text(ran: Ran) -> str:
    return _prefixed(ran.made_text)


@dataclass
class Versions:
    """The flagged code run as written and as fixed, in one setting."""

    equal_outputs: bool
    equal_gradients: bool
    output_difference: float
    gradient_difference: float
    gradients: int
    cloned: list
    shape: Optional[tuple]
    executed: set
    made_text: str
    gradient_scale: float = 0.0  # the largest gradient value of either version
    # How far the value a name held where it was read differs between the two versions (None: not seen
    # in both): TCL002's alias holds the written values in one and the values passed in in the other.
    read_difference: Optional[float] = None
    output_scale: float = 0.0  # the largest output value of either version
    alike: bool = True  # both versions gave as many outputs, and gradients of the same tensors
    compared: str = "outputs"  # what the outputs are: of a function that returns nothing, its locals'

    @property
    def differ_only_by_rounding(self) -> bool:
        """Outputs and gradients equal to float rounding but not bitwise: the order in which a reduction
        added its terms changed (a copy is contiguous where its source was not), which says nothing
        of whether the code needed the copy. A need shows as different values."""
        return self.alike and not self.equal and \
            self.output_difference <= ROUNDING * max(self.output_scale, 1e-30) and \
            self.gradient_difference <= ROUNDING * max(self.gradient_scale, 1e-30)

    @property
    def equal(self) -> bool:
        return self.equal_outputs and self.equal_gradients

    @property
    def differ_in_kind_only(self) -> bool:
        """One version gave more outputs, or gradients of other tensors, and every value both gave is
        bitwise equal: the two runs took different paths (fresh95's hyper-LSTM, refuted once with
        "largest output difference 0, gradient difference 0"), which measures nothing of the copy."""
        return not self.alike and self.output_difference == 0 and self.gradient_difference == 0

    @property
    def equal_but_for_rounding(self) -> bool:
        """Outputs bitwise equal, gradients equal to float rounding: without the clone's node the
        backward adds a value's gradients from its two uses (a residual's skip and its branch) in
        another order. Different values would change the output, or the gradients by more."""
        return self.equal_outputs and not self.equal_gradients and \
            self.gradient_difference <= ROUNDING * max(self.gradient_scale, 1e-30)


# Relative difference of float32 sums added in another order: a few units in the last place of the
# largest value, accumulated over a layer's reductions.
ROUNDING = 1e-5


def _forward_and_backward(job: Job, source: str, setting: Any, shape: Optional[tuple], watch_clones: bool = False,
                          probe: Optional[LineProbe] = None):
    """Outputs, gradients (by name), the bytes cloned at the flagged line, and the run, for one version.
    Of a function that returns nothing, with a probe that kept them, the outputs are the tensors its
    locals held as it returned (by name)."""
    namespace = _load(job, source)
    with bytes_cloned_at(job.path, job.line, enabled=watch_clones) as cloned_bytes:
        ran = run_target(job, namespace, probe, shape, setting)
    # A method that builds a module (a pruned or merged copy of its own) returns it: its weights are the result.
    result = ran.result.state_dict() if isinstance(ran.result, nn.Module) else ran.result
    if result is None and probe is not None and probe.kept_line is not None:
        held = probe.locals_at_return
        result = [held[name] for name in sorted(held) if name != "self"]
    tensors = [t for t in script.tensors_in(result) if t.is_floating_point()]
    if not tensors:
        raise CannotRun("the code returned no floating-point tensor to compare")
    total = sum(t.float().sum() for t in tensors if t.requires_grad)
    if isinstance(total, torch.Tensor):
        total.backward()
    gradients = {}
    modules = [("", ran.module)] if ran.module is not None else []
    modules += [(f"{name}.", value) for name, value in ran.made.items() if isinstance(value, nn.Module)]
    for prefix, module in modules:
        gradients.update({prefix + name: p.grad.detach().clone() for name, p in module.named_parameters()
                          if p.grad is not None})
    if ran.leaf is not None and ran.leaf.grad is not None:
        gradients["<input>"] = ran.leaf.grad.detach().clone()
    return [t.detach().clone() for t in tensors], gradients, cloned_bytes, ran


def _input_shape(job: Job, namespace: dict, make_module: Callable, method: str,
                 flagged: Optional[tuple] = None) -> Any:
    """The input shape a fresh module's `method` runs with; for a method of several inputs (`forward(z, c)`),
    the inputs its call sites in the file make (verify/callsites.py)."""
    class_name = job.target.class_name
    several = required_inputs(namespace.get(class_name), method) > 1
    failure = None
    if not several:
        try:
            return probe_input_shape(make_module, method, job.device, flagged=flagged)
        except CannotRun as reason:
            failure = reason
    keys = callsites.instance_keys(job.tree, class_name) if class_name else set()
    sites = callsites.call_sites(job.source, keys, class_name) if method == "forward" else []
    if not sites:
        if failure is not None:
            raise failure
        # `forward(x, mask)`, called nowhere in the file: the other inputs as 0-dim zeros.
        return probe_input_shape(make_module, method, job.device, flagged=flagged,
                                 extras=required_inputs(namespace.get(class_name), method) - 1)
    accept = (lambda error: raised_at(error, *flagged)) if flagged else None
    try:
        return callsites.inputs_for(sites, make_module, namespace, job.device, job.source, accept=accept)
    except CannotRun as reason:
        raise CannotRun(f"{failure}; {reason}" if failure else str(reason)) from reason


def _shape_text(shape: Any) -> str:
    """`input (2, 3, 32, 32)`, or the inputs a call site made (verify/callsites.py)."""
    if shape is None:
        return "input made up"
    return f"input {tuple(shape)}" if isinstance(shape, tuple) else str(shape)


def _largest_difference(first: list, second: list) -> float:
    largest = 0.0
    for a, b in zip(first, second):
        if a.shape != b.shape:
            return float("inf")
        largest = max(largest, (a.double() - b.double()).abs().max().item() if a.numel() else 0.0)
    return largest


def _compare_versions(job: Job, setting: Any, read: Optional[tuple] = None, held: bool = False) -> Versions:
    """The code run as written and as fixed. `read`: (line, name), a name whose value at the start of
    that line is compared between the two versions too. `held`: of a function that returns nothing,
    compare the tensors its locals hold as it returns."""
    if job.fixed_source is None:
        raise CannotRun("the diagnosis has no fix to compare with")
    target = job.target
    shape = None
    if isinstance(setting, Configuration) and target.function_name != "__init__":
        namespace = _load(job)
        cls = namespace[target.class_name]
        shape = _input_shape(job, namespace, lambda: setting.build(cls).to(job.device),
                             target.function_name or "forward")
    probe = LineProbe(job.path)
    fixed_probe = LineProbe(job.path) if read is not None or held else None
    if held:
        for watched in (probe, fixed_probe):
            watched.keep_locals_of(job.line)
    seen: list[dict] = [{}, {}]
    if read is not None:
        for watched, values in ((probe, seen[0]), (fixed_probe, seen[1])):
            watched.on_before(read[0], _value_keeper(read[1], values))
    written = _forward_and_backward(job, job.source, setting, shape, watch_clones=True, probe=probe)
    fixed = _forward_and_backward(job, job.fixed_source, setting, shape, probe=fixed_probe)
    read_difference = _largest_difference([seen[0]["value"]], [seen[1]["value"]]) \
        if all("value" in values for values in seen) and seen[0]["value"].shape == seen[1]["value"].shape else None
    outputs_equal = len(written[0]) == len(fixed[0]) and all(same_values(a, b) for a, b in zip(written[0], fixed[0]))
    gradient_names = sorted(set(written[1]) | set(fixed[1]))
    gradients_equal = all(name in written[1] and name in fixed[1] and same_values(written[1][name], fixed[1][name])
                          for name in gradient_names)
    output_difference = _largest_difference(written[0], fixed[0])
    gradient_difference = max((_largest_difference([written[1][n]], [fixed[1][n]])
                               for n in gradient_names if n in written[1] and n in fixed[1]), default=0.0)
    gradient_scale = max((gradient.abs().max().item() for version in (written[1], fixed[1])
                          for gradient in version.values() if gradient.numel()), default=0.0)
    output_scale = max((output.abs().max().item() for version in (written[0], fixed[0])
                        for output in version if output.numel()), default=0.0)
    alike = len(written[0]) == len(fixed[0]) and set(written[1]) == set(fixed[1])
    return Versions(outputs_equal, gradients_equal, output_difference, gradient_difference, len(gradient_names),
                    written[2], shape, set(probe.executed), written[3].made_text, gradient_scale, read_difference,
                    output_scale, alike, compared="outputs" if written[3].result is not None else
                    "the tensors its locals held at its return")


def _value_keeper(name: str, values: dict) -> Callable:
    """A probe callback keeping a copy of the tensor `name` holds the first time the line starts."""
    def keep(frame) -> None:
        value = frame.f_locals.get(name)
        if "value" not in values and isinstance(value, torch.Tensor):
            values["value"] = value.detach().clone()
    return keep


# ------------------------------------------------------------------------ experiments


def redundant_clone(job: Job) -> Outcome:
    # The claim is universal (the copy is never needed): one setting where removing it changes the
    # result refutes it; confirming needs every statement between the copy and its read to have run.
    if _is_module_level(job.target):
        return script.redundant_clone_at_top_level(
            job, lambda source, probe, also=(): run_module_level(job, source, probe, also))
    required = claim_lines(job.code, job.line, job.context)
    read_line = job.context.get("read_line")
    covered = statement_lines_between(job.source, job.line, read_line) if isinstance(read_line, int) else {}

    def run(setting) -> Run:
        versions = _compare_versions(job, setting, held=True)
        if versions.equal or versions.equal_but_for_rounding:
            cloned = versions.cloned
            per_call = f"{cloned[0]:,} bytes per call" if cloned else "an activation-sized copy per call"
            shape = _shape_text(versions.shape)
            compared = f"{versions.compared} and all {versions.gradients} gradients" if versions.gradients \
                else versions.compared
            equal = f"{compared} are bitwise equal" if versions.equal else (
                f"{versions.compared} are bitwise equal and all {versions.gradients} gradients equal to float rounding "
                f"(largest difference {versions.gradient_difference:.3g} in values up to "
                f"{versions.gradient_scale:.3g}: the backward adds the gradients of the value's uses in "
                f"another order without the clone's node)")
            outcome = confirmed(f"without the clone, {equal} ({shape}); the clone allocated {per_call}"
                                f"{'; ' + versions.made_text if versions.made_text else ''}")
        elif versions.differ_only_by_rounding:
            raise CannotRun(f"without the clone the outputs differ only by float rounding (largest difference "
                            f"{versions.output_difference:.3g} in values up to {versions.output_scale:.3g}): "
                            f"the order of a sum changed, which decides nothing")
        elif versions.differ_in_kind_only:
            raise CannotRun("without the clone the run gave other outputs or gradients of other tensors, and "
                            "every value both runs gave is equal: the runs took different paths, which "
                            "measures nothing of the copy")
        else:
            outcome = refuted(f"removing the clone changes the result: largest output difference "
                              f"{versions.output_difference:.3g}, gradient difference "
                              f"{versions.gradient_difference:.3g}; the copy is needed")
        return Run(outcome, versions.executed)

    namespace = _load(job)
    return decide(settings(job, namespace), run, required, universal=True, covered=covered)


def alias_mutated(job: Job) -> Outcome:
    if _is_module_level(job.target):
        return script.alias_mutated_at_top_level(job, lambda source, probe: run_module_level(job, source, probe))
    required = claim_lines(job.code, job.context.get("alias_line", job.line), job.context)
    required.setdefault(job.line, "the flagged line")

    write_line = job.context.get("event_line")

    read_line, name = job.context.get("read_line"), job.context.get("alias")
    read = (read_line, name) if isinstance(read_line, int) and isinstance(name, str) and name.isidentifier() else None

    def run(setting) -> Run:
        versions = _compare_versions(job, setting, read)
        stood_in = _stand_in_callees(job, setting, write_line) if isinstance(write_line, int) else []
        if versions.equal and stood_in:
            # The write the claim names is a call of a network a stand-in replaced, which writes nothing in
            # place: no difference here could have shown anything.
            return Run(None, versions.executed, f"the in-place write at line {write_line} is a call of "
                                                 f"`{stood_in[0]}`, which a stand-in network replaced")
        if versions.equal and versions.read_difference:
            # What the claim says happened, seen: the read saw the written values. That they change
            # nothing downstream here (a ReLU after a leaky one zeroes what it changed) is said too.
            outcome = confirmed(f"at line {read[0]} `{read[1]}` held the written values (largest difference "
                                f"{versions.read_difference:.3g} from the values passed in, which the copy keeps); "
                                f"on this input the output and all gradients are the same either way: what the "
                                f"write changed does not reach them")
        elif versions.equal and read is not None and versions.read_difference is None:
            return Run(None, versions.executed, f"adding `.clone()` changes neither the output nor any gradient, "
                                                 f"and `{read[1]}` was not seen at line {read[0]} to tell whether "
                                                 f"it held the written values")
        elif versions.equal:
            outcome = refuted("adding `.clone()` changes neither the output nor any gradient" +
                              (f", and at line {read[0]} `{read[1]}` held the values passed in: the write changed "
                               f"none of them on this input" if read is not None else
                               ": the alias was not overwritten on this input"))
        else:
            shape = _shape_text(versions.shape)
            outcome = confirmed(f"with `.clone()` the result differs: largest output difference "
                                f"{versions.output_difference:.3g}, largest gradient difference "
                                f"{versions.gradient_difference:.3g} ({shape})"
                                f"{'; ' + versions.made_text if versions.made_text else ''}")
        return Run(outcome, versions.executed)

    namespace = _load(job)
    return decide(settings(job, namespace), run, required)


def _stand_in_callees(job: Job, setting: Any, line: int) -> list[str]:
    """The names called at `line` (`self.relu(x)`) that the setting made stand-in networks for."""
    made = getattr(getattr(setting, "standins", None), "plan", None)
    if made is None:
        return []
    networks = {name for name, kind in made.kinds.items() if kind == "module"}
    return [ast.unparse(node.func) for node in ast.walk(job.tree)
            if isinstance(node, ast.Call) and node.lineno <= line <= (node.end_lineno or node.lineno)
            and ast.unparse(node.func) in networks]


def discriminator_without_detach(job: Job) -> Outcome:
    """TCL003: the step code itself, measured around the discriminator's backward, and attributed to
    the flagged call (verify/flagged.py): confirmed only when that call carries the backward into the
    generator, refuted only when it carries nothing and the step with it detached (the fix) gives the
    generator the same gradient, bitwise."""
    generator_key = job.context.get("generator") or ""
    discriminator_key = job.context.get("discriminator") or ""
    if _is_module_level(job.target):
        # The script's own step, on the networks its top level builds: the claim itself.
        try:
            return _discriminator_at_top_level(job, generator_key, discriminator_key)
        except CannotRun as failure:
            reason, every_error = f"{failure}", failure.every_error
    else:
        # The claim is about the step code's data flow: run that code (on what its top-level call passes,
        # or stand-ins of its networks, optimizers and data).
        try:
            return _discriminator_in_step_code(job, generator_key, discriminator_key)
        except CannotRun as failure:
            reason, every_error = f"the step code: {failure}", failure.every_error
    # The step code could not run. A replay of the real networks (G(z) -> D) runs neither the step nor
    # the flagged call: what it shows is said, and decides nothing; but the shape of the fake batch it
    # makes is the shape of the real samples the step gives the discriminator beside it.
    note, fake_sample = _replay_note(job, generator_key, discriminator_key)
    if fake_sample is not None and not _is_module_level(job.target):
        try:
            return _discriminator_in_step_code(job, generator_key, discriminator_key, sample=fake_sample)
        except CannotRun:
            pass
    raise CannotRun(f"{reason}; {note}", every_error)


def _replay_note(job: Job, generator_key: str, discriminator_key: str) -> tuple[str, Optional[tuple]]:
    """What a G(z) -> D replay of the networks built from their classes shows, and the shape of one
    sample of the fake batch it made (None where it made none)."""
    generator_class = class_built_for(job.source, generator_key)
    discriminator_class = class_built_for(job.source, discriminator_key)
    if generator_class is None or discriminator_class is None:
        return f"could not find the classes `{generator_key}` and `{discriminator_key}` are built from", None
    try:
        shown, fake_sample = _discriminator_with_built_networks(job, generator_class, discriminator_class)
    except (Exception, AbsentPackageUsed) as failure:  # noqa: BLE001 - the networks do not fit a plain
        # G(z) -> D step, or their classes come from a package that is not installed
        text = str(failure).splitlines()[0][:120] if str(failure) else ""
        return (f"the networks built from {generator_class} and {discriminator_class} did not run as "
                f"G(z) -> D: {type(failure).__name__}: {text}" if not isinstance(failure, CannotRun) else text), None
    return f"a G(z) -> D replay of the real networks, which does not run the flagged call, {shown}", fake_sample


@dataclass
class Measured:
    """One run of a discriminator step up to the measured backward."""

    watch: "GeneratorWatch"
    executed: set
    error: Optional[str] = None
    made: str = ""


def _discriminator_at_top_level(job: Job, generator_key: str, discriminator_key: str) -> Outcome:
    """TCL003 in a script's top-level step: the script's own code, on the networks (or parameter tensors)
    its slice builds and stand-in data (verify/script.py), measured around the first backward at the
    discriminator's line (or in the helper that line calls) after the flagged line ran; the run stops there."""
    backward_line = job.context.get("backward_line")
    if not isinstance(backward_line, int):
        raise CannotRun("the diagnosis does not say which line runs the discriminator's backward")
    start = script.statement_start(job.source, job.line)
    inner = flagged.inner_backward_lines(job.source, backward_line, job.context)
    described: dict = {}

    def parameters(generator, frame) -> list:
        found, described["text"] = script.parameters_of(generator, frame.f_globals)
        return found

    def measure(source: str, setting, marks: Optional[flagged.Marks]) -> Measured:
        probe = LineProbe(job.path)
        probe.on_before(backward_line, lambda frame: None)  # watched: no second attempt once it ran
        watch = GeneratorWatch(generator_key, parameters, marks, stepper=_stepped_optimizer(job),
                               discriminator_key=discriminator_key)
        original = torch.autograd.backward
        torch.autograd.backward = _around_backward(job.path, backward_line, watch,
                                                   ready=lambda: bool(probe.executed.get(start)), inner=inner)
        if marks is not None:
            marks.install()
        error = None
        try:
            run_module_level(job, source, probe=probe)
        except StopRun:
            pass
        except Exception as raised:  # noqa: BLE001 - the backward's own error is read from `watch`
            error = f"{type(raised).__name__}: {str(raised).splitlines()[0][:160] if str(raised) else ''}"
        finally:
            torch.autograd.backward = original
            flagged.Marks.uninstall()
        made = f"the script's own step, run once; `{generator_key}` is {described['text']}" if described else ""
        return Measured(watch, set(probe.executed), error, made)

    return decide([ModuleLevel()], _attributed_runs(job, measure, backward_line, discriminator_key),
                  _discriminator_claim_lines(job, discriminator_key))


def _discriminator_in_step_code(job: Job, generator_key: str, discriminator_key: str,
                                sample: Optional[tuple] = None) -> Outcome:
    """The step code run on each setting in turn; with `sample`, only the settings of made-up values,
    their samples of that shape (the generator's fake ones: the real data the discriminator takes)."""
    backward_line = job.context.get("backward_line")
    if not isinstance(backward_line, int):
        raise CannotRun("the diagnosis does not say which line runs the discriminator's backward")
    namespace = _load(job, stand_in_failed_imports=True)
    roles = {generator_key: "generator", discriminator_key: "discriminator"}
    inner = flagged.inner_backward_lines(job.source, backward_line, job.context)

    def measure(source: str, setting, marks: Optional[flagged.Marks]) -> Measured:
        version = _load(job, source, stand_in_failed_imports=True)  # fresh: each run starts from the same state
        probe = LineProbe(job.path)
        watch = GeneratorWatch(generator_key, marks=marks, stepper=_stepped_optimizer(job),
                               discriminator_key=discriminator_key)
        original = torch.autograd.backward
        torch.autograd.backward = _around_backward(job.path, backward_line, watch, inner=inner)
        if marks is not None:
            marks.install()
        error = None
        stopped = None
        try:
            ran_text = run_target(job, version, probe, setting=setting).made_text
        except StopRun as stop:
            ran_text, stopped = "", stop
        except Exception as raised:  # noqa: BLE001 - the backward's own error is read from `watch`
            ran_text, error = "", f"{type(raised).__name__}: {str(raised).splitlines()[0][:160] if str(raised) else ''}"
            stopped = raised
        finally:
            torch.autograd.backward = original
            flagged.Marks.uninstall()
        return Measured(watch, set(probe.executed), error, _made_text_of(setting, stopped) or ran_text)

    tried = settings(job, namespace, roles)
    if sample is not None:
        tried = (shaped for setting in tried if (shaped := _samples_shaped(setting, sample)) is not None)
    return decide(tried, _attributed_runs(job, measure, backward_line, discriminator_key),
                  _discriminator_claim_lines(job, discriminator_key))


def _samples_shaped(setting: Any, sample: tuple) -> Any:
    """The setting with its made-up samples of shape `sample`; None where it made none."""
    made = getattr(setting, "standins", None)
    if not isinstance(made, standins.StandIns) or made.plan.sample == sample:
        return None
    return _with_plan(setting, made.plan.varied("", None, sample=sample),
                      f"samples {'x'.join(map(str, sample))} as the generator makes them")


def _with_plan(setting: Any, plan: standins.Plan, changed: str) -> Any:
    """The setting with its made-up values made by `plan` instead, what changed said in its description."""
    made = setting.standins
    return dataclasses.replace(setting, standins=standins.StandIns(f"{made.description}, {changed}", plan, made.device))


def _discriminator_claim_lines(job: Job, discriminator_key: str) -> dict[int, str]:
    """The lines TCL003's claim depends on, the generator call being the binding that reaches the flagged
    call. A name the step rebinds later in the loop body (`fake = G(fixed_noise)` in a sampling block
    after the step) reaches the flagged line only on the next iteration, if at all: the value the
    discriminator received came from the binding before it, and the run stops at the step's backward,
    before the later one could run."""
    context = dict(job.context)
    given = context.get("generator_line")
    if isinstance(given, int) and given > job.line:
        argument = flagged.flagged_argument(job.source, job.span, discriminator_key)
        reaching = flagged.binding_before(job.source, argument.text if argument else "", job.line, given)
        if reaching is not None:
            context["generator_line"] = reaching
    return claim_lines(job.code, job.line, context)


def _attributed_runs(job: Job, measure: Callable, backward_line: int, discriminator_key: str) -> Callable:
    """A setting's run: the step with the flagged argument marked, then (when that backward reached the
    generator) the step with only that argument detached, and the verdict on the flagged call."""
    argument = flagged.flagged_argument(job.source, job.span, discriminator_key)
    written_source = flagged.marked(job.source, argument) if argument is not None else job.source
    fixed_source = flagged.detached(job.source, argument) if argument is not None else job.fixed_source
    shown = f"`{argument.text}`" if argument is not None else "the flagged argument"

    def run(setting) -> Run:
        marks = flagged.Marks() if argument is not None else None
        written = measure(written_source, setting, marks)
        if written.watch.outcome(backward_line, "") is None:
            # Not measured: the run ended before the backward (the error) or never ran it (reach decides).
            return Run(None, written.executed,
                       (written.watch.failure or written.error) if written.watch.measured else written.error)
        fixed = None
        if written.watch.reached and fixed_source is not None:
            fixed = measure(fixed_source, setting, None)
        outcome, failure = _attributed(written, fixed, marks, shown, backward_line)
        return Run(outcome, written.executed, failure if outcome is None else None)

    return run


def _attributed(written: Measured, fixed: Optional[Measured], marks: Optional[flagged.Marks], shown: str,
                line: int) -> tuple[Optional[Outcome], Optional[str]]:
    """The verdict on the flagged call from the step as written (marked) and with it detached."""
    watch = written.watch
    made = _prefixed(written.made)
    outcome = watch.outcome(line, "")
    if outcome.status != "confirmed":
        return Outcome(outcome.status, outcome.evidence + made), None  # no generator parameter in that graph
    fixed_watch = fixed.watch if fixed is not None and fixed.watch.measured and not fixed.watch.failure else None
    if fixed is not None and fixed_watch is None:
        why = (fixed.watch.failure or fixed.error or "its backward did not run")
        fix_text, differs = f"the step with {shown} detached (the fix) could not be measured ({why[:120]})", None
    elif fixed_watch is None:
        fix_text, differs = "the diagnosis gives no fix to run", None
    elif watch.raised is not None:
        if fixed_watch.raised is not None and _predicted_error(fixed_watch.raised) and fixed_watch.in_graph:
            return None, (f"{outcome.evidence}; but with {shown} detached (the fix) it fails the same way: that "
                          f"failure comes through another path of the step, not the flagged call")
        if fixed_watch.raised is not None:  # another failure: it shows neither way
            fix_text, differs = (f"with {shown} detached (the fix) that backward failed otherwise "
                                 f"({type(fixed_watch.raised).__name__})"), None
        else:
            fix_text, differs = f"with {shown} detached (the fix) that backward ran without that error", True
    elif fixed_watch.raised is not None:
        fix_text, differs = (f"the step with {shown} detached (the fix) failed at that backward "
                             f"({type(fixed_watch.raised).__name__})"), None
    else:
        differs = not _same_changes(watch.deltas, fixed_watch.deltas)
        effect = (f"changes the generator's `.grad` by {fixed_watch.change:.3g} instead" if fixed_watch.change
                  else "leaves the generator's `.grad` as it was")
        fix_text = (f"with {shown} detached (the fix) that backward {effect}" if differs else
                    f"with {shown} detached (the fix) that backward changes the generator's `.grad` by the same "
                    f"{fixed_watch.change:.3g}, bitwise")
    carried = marks.carried if marks is not None else []
    if carried:
        norm = sum(mark.gradient for mark in carried)
        through = (f"the gradient went back through {shown} itself (norm {norm:.3g}), into a graph holding "
                   f"{max(mark.generator_parameters for mark in carried)} generator parameters")
        return confirmed(f"{outcome.evidence}; {through}; {fix_text}{made}"), None
    # Without a mark on the argument, the fix's difference is the measurement. With one, a difference
    # that no gradient through the flagged argument explains is not attributed to it (an error path
    # aside: a failing backward may stop before the hooks run).
    if differs and (marks is None or not marks.marks or watch.raised is not None):
        return confirmed(f"{outcome.evidence}; {fix_text}{made}"), None
    if differs is False and marks is not None and marks.marks:
        return refuted(f"the backward {watch.at(line)} reached {watch.reached} of {len(watch.parameters)} generator "
                       f"parameters, but not through the flagged call: {shown} {marks.why_not()}, and {fix_text}: "
                       f"the gradient comes through another call of the step{made}"), None
    return None, (f"{outcome.evidence}, but whether through the flagged call could not be told: {fix_text}"
                  + (f"; {shown} {marks.why_not()}" if marks is not None else ""))


def _same_changes(first: list, second: list) -> bool:
    """Do two backwards change the generator's `.grad` by the same values, bitwise (no change = zeros)?"""
    if len(first) != len(second):
        return False
    for a, b in zip(first, second):
        if a is None and b is None:
            continue
        if a is None or b is None:
            present = a if a is not None else b
            if bool(present.abs().sum() > 0):
                return False
            continue
        if not same_values(a, b):
            return False
    return True


def _predicted_error(error: BaseException) -> bool:
    message = str(error)
    return INPLACE_BACKWARD_ERROR in message or SECOND_BACKWARD_ERROR in message


def _discriminator_with_built_networks(job: Job, generator_class: str,
                                       discriminator_class: str) -> tuple[str, tuple]:
    """What a G(z) -> D replay of the networks built from their classes shows (a sentence): it runs
    neither the step code nor the flagged call, so it decides nothing; and one fake sample's shape."""
    namespace = load(job.source, job.path, {generator_class, discriminator_class})

    def built(name: str, seed: int) -> nn.Module:
        cls = namespace[name]
        return next(_configurations(job, cls)).build(cls, seed).to(job.device)

    def build_generator():
        return built(generator_class, 0)

    def build():
        return build_generator(), built(discriminator_class, 1)

    # One probed tensor for G, the fake batch for D; or inputs from their call sites: G(z, c), D(x, c).
    feed = callsites.replay(job.source, namespace, job.device,
                            (job.context.get("generator") or "", generator_class, build_generator),
                            (job.context.get("discriminator") or "", discriminator_class, lambda: build()[1]),
                            lambda: probe_input_shape(build_generator, "forward", job.device))
    generator, discriminator = build()
    torch.manual_seed(3)
    arguments, keywords = feed.generator_arguments()
    fake = _first_tensor(generator(*arguments, **keywords))  # `fake, attention = G(z)`: the image
    if fake is None:
        raise CannotRun(f"{generator_class} returned no tensor")
    arguments, keywords = feed.discriminator_arguments(fake)
    score = _first_tensor(discriminator(*arguments, **keywords))  # `logit, features = D(x)`: the logit
    if score is None:
        raise CannotRun(f"{discriminator_class} returned no tensor")
    score.float().mean().backward()
    reached = [p for p in generator.parameters() if p.grad is not None and bool(p.grad.abs().sum() > 0)]
    inputs = f" ({feed.describe()})" if feed.describe() else ""
    return (f"reached {len(reached)} of {len(list(generator.parameters()))} generator parameters{inputs}",
            tuple(fake.shape[1:]))


class GeneratorWatch:
    """What the discriminator's backward did to the generator, measured around that one backward:
    which generator parameters its graph holds (read before it runs), which received a gradient
    (hooks), how much their `.grad` changed (before against after, kept per parameter to compare
    with the step run with the flagged argument detached), and the error it raised. With `marks`,
    which evaluations of the flagged argument that graph holds and sends a gradient through.

    Only a measurement that could have shown the effect decides: a refutation needs the backward to
    have finished with no gradient hook fired, no `.grad` changed, none of the generator's parameters
    in its graph, and no parameters there but the discriminator's (another network's would mean the
    fake came from a generator other than the one measured). An error raised by the backward is
    evidence, not a refutation: the in-place and second-backward errors, from a graph that holds the
    generator, are the failure the finding predicts; any other error leaves the claim unverified."""

    def __init__(self, generator_key: str, parameters: Optional[Callable] = None,
                 marks: Optional[flagged.Marks] = None, stepper: str = "", discriminator_key: str = "") -> None:
        self.generator_key = generator_key
        # Whether this backward is the discriminator's at all where it runs: the optimizer the diagnosis says
        # it is for (`opt_d` of `opt_d.step()`) holds generator parameters (the code's own optimizer, built
        # over the other network), or the discriminator's parameters are all switched off
        # (`self.d.requires_grad_(False)`). Either way the step may be the generator's own, and its gradient
        # into the generator no evidence of waste.
        self.stepper = stepper
        self.discriminator_key = discriminator_key
        self.not_the_discriminators: str = ""
        # (generator, frame) -> its parameters: a module's, or a script's tensors (verify/script.py)
        self.resolve = parameters or (lambda generator, frame: list(generator.parameters()))
        self.marks = marks
        self.measured = False
        self.parameters: list = []
        self.grads_before: list = []
        self.deltas: list = []
        self.in_graph = 0
        # Leaves of the backward's graph that are neither the discriminator's nor the measured generator's
        # parameters: the fake may come from another network than the one measured (a helper that calls
        # the notebook's global `G` while the function's own `G` is a stand-in), so no refutation.
        self.elsewhere = 0
        self.hooked: set = set()
        self.changed = 0
        self.change = 0.0
        self.raised: Optional[BaseException] = None
        self.failure: Optional[str] = None
        self.helper: Optional[tuple] = None  # (the helper's name, its backward's line) for a step in a helper

    def at(self, line: int) -> str:
        """Where the measured backward ran: `at line 20`, or `in `d_step()` (line 19, called at line 27)`."""
        if self.helper is None:
            return f"at line {line}"
        return f"in `{self.helper[0]}()` (line {self.helper[1]}, called at line {line})"

    @property
    def reached(self) -> int:
        """How many generator parameters the backward reached (0 if none, or it failed)."""
        if self.raised is not None:
            return self.in_graph if _predicted_error(self.raised) else 0
        return len(self.hooked) or self.changed

    def before(self, frame, roots: list) -> list:
        """Called just before the backward, in the user's frame; the hook handles to remove after."""
        self.measured = True
        # (Read first: a script's resolver describes the last network it read, the generator.)
        discriminator = self._discriminator_parameters(frame)
        try:
            generator = eval(self.generator_key, frame.f_globals, frame.f_locals)  # noqa: S307 - a name or self.x
            self.parameters = list(self.resolve(generator, frame))
        except Exception as error:  # noqa: BLE001 - not a module here: nothing can be measured
            self.failure = f"could not read `{self.generator_key}`'s parameters at the backward: {error}"
            self.parameters = []
            return []
        self.grads_before = [None if p.grad is None else p.grad.detach().clone() for p in self.parameters]
        watched = {id(p) for p in self.parameters}
        self.not_the_discriminators = self._not_the_discriminators(watched, frame, discriminator)
        nodes, leaves = _graph_of(roots)
        self.in_graph = len(watched & leaves)
        self.elsewhere = len(leaves - watched - {id(parameter) for parameter in discriminator or ()})
        if self.marks is not None:
            self.marks.before(nodes, watched, _leaf_ids)
        handles = []
        for index, parameter in enumerate(self.parameters):
            if parameter.requires_grad:
                handles.append(parameter.register_hook(lambda grad, index=index: self.hooked.add(index)))
        return handles

    def _discriminator_parameters(self, frame) -> Optional[list]:
        """The discriminator's parameters where the backward runs (a module's, or a script's tensors);
        None where they cannot be read."""
        try:
            discriminator = eval(self.discriminator_key, frame.f_globals, frame.f_locals)  # noqa: S307 - as above
            return list(self.resolve(discriminator, frame))
        except Exception:  # noqa: BLE001 - not read here: nothing said of it, every other leaf counts as elsewhere
            return None

    def _not_the_discriminators(self, generator_ids: set, frame, parameters: Optional[list]) -> str:
        """Why the backward is not the discriminator's where it runs, or "" (see __init__)."""
        if self.stepper and generator_ids & _optimized_ids(self.stepper, frame):
            return f"`{self.stepper}`, which the step after this backward runs, holds the generator's parameters"
        if parameters and not any(parameter.requires_grad for parameter in parameters):
            return f"`{self.discriminator_key}`'s parameters do not require grad at this backward (switched off)"
        return ""

    def after(self) -> None:
        for parameter, before in zip(self.parameters, self.grads_before):
            after = parameter.grad
            if after is None:
                self.deltas.append(None)
                continue
            delta = after.detach().double() if before is None else after.detach().double() - before.double()
            self.deltas.append(delta)
            difference = delta.abs().sum().item()
            if before is None or difference > 0:
                self.changed += 1
                self.change += difference

    def outcome(self, line: int, made: str) -> Optional[Outcome]:
        made = _prefixed(made)
        total = len(self.parameters)
        if not self.measured or self.failure:
            return None
        if self.raised is not None:
            message = str(self.raised).splitlines()[0] if str(self.raised) else type(self.raised).__name__
            if _predicted_error(self.raised) and self.in_graph:
                return confirmed(f"the discriminator's backward {self.at(line)} runs through the generator's graph "
                                 f"({self.in_graph} of {total} generator parameters in it) and failed there: "
                                 f"{type(self.raised).__name__}: {message[:200]}{made}")
            self.failure = f"the backward {self.at(line)} raised {type(self.raised).__name__}: {message[:160]}"
            return None
        if (self.hooked or self.changed) and self.not_the_discriminators:
            self.failure = (f"{self.not_the_discriminators}: the step may be the generator's own, whose gradient "
                            f"this backward is for")
            return None
        if self.hooked or self.changed:
            if self.change > 0:
                effect = f"changed their `.grad` by {self.change:.3g} in L1 norm"
            else:
                effect = "computed their gradients (all zero on these values: `.grad` unchanged)"
            return confirmed(f"the discriminator's backward {self.at(line)} reached {self.reached} of {total} generator "
                             f"parameters and {effect}{made}")
        if self.in_graph:
            self.failure = (f"the backward {self.at(line)} has {self.in_graph} generator parameters in its graph, "
                            f"but no gradient reached them (they no longer require grad)")
            return None
        if not total:
            self.failure = f"`{self.generator_key}` has no parameters at line {line}"
            return None
        if self.elsewhere:
            self.failure = (f"the backward {self.at(line)} has none of `{self.generator_key}`'s parameters in its "
                            f"graph but {self.elsewhere} of another network's: the fake may come from a generator "
                            f"other than the one measured")
            return None
        return refuted(f"the backward {self.at(line)} ran with none of the generator's {total} parameters in its "
                       f"graph: no gradient hook on them fired and their `.grad` is as before{made}")


def _stepped_optimizer(job: Job) -> str:
    """The optimizer the diagnosis's step line steps (`self.d_optimizer` of `self.d_optimizer.step()`), as written."""
    line = job.context.get("step_line")
    lines = job.source.splitlines()
    if not isinstance(line, int) or not 0 < line <= len(lines):
        return ""
    found = STEPPED.search(lines[line - 1])
    return found.group(1) if found else ""


STEPPED = re.compile(r"([A-Za-z_][\w.]*(?:\[[^\]]+\])?)\.step\(")


def _optimized_ids(stepper: str, frame) -> set:
    """The ids of the tensors the optimizer `stepper` names in `frame` holds (none where it cannot be read)."""
    if not stepper:
        return set()
    try:
        optimizer = eval(stepper, frame.f_globals, frame.f_locals)  # noqa: S307 - a name or `self.x` the diagnosis names
        if isinstance(optimizer, standins.StandInSGD):
            return set()  # paired with a network by its name, not by the code: says nothing of the code's roles
        return {id(p) for group in optimizer.param_groups for p in group["params"]}
    except Exception:  # noqa: BLE001 - a stand-in, a scaler's step or a name out of this frame: nothing known
        return set()


def _graph_of(roots: list, limit: int = 200_000) -> tuple[set, set]:
    """(the autograd nodes the graphs of `roots` reach, the ids of their leaves' variables)."""
    nodes, leaves = walk_graph(roots, limit)
    return nodes, {id(leaf) for leaf in leaves}


def _leaf_ids(roots: list, limit: int = 200_000) -> set:
    """The ids of the leaves (AccumulateGrad variables) the graphs of `roots` reach."""
    return _graph_of(roots, limit)[1]


def _around_backward(path: str, line: int, watch: GeneratorWatch, ready: Callable[[], bool] = lambda: True,
                     inner: tuple = ()) -> Callable:
    """torch.autograd.backward, measured by `watch` around its first call from `line` of `path` once
    `ready()` (a script's step: once the flagged line ran); with `inner`, the lines of a helper's own
    backward calls, its first call from one of them while the helper runs from `line` (the names are
    read in the frame at `line`, where the diagnosis names them). The run stops right after that call
    (nothing later sees the state the measurement read)."""
    original = torch.autograd.backward

    def watching(tensors, *args, **kwargs):
        frames, frame, depth = [], sys._getframe(1), 0
        while frame is not None and depth < 40:
            if frame.f_code.co_filename == path:
                frames.append(frame)
            frame, depth = frame.f_back, depth + 1
        caller = None
        if frames and not watch.measured and ready():
            if inner:
                if frames[0].f_lineno in inner:
                    caller = next((f for f in frames[1:] if f.f_lineno == line), None)
                    if caller is not None:
                        watch.helper = (frames[0].f_code.co_name, frames[0].f_lineno)
            elif frames[0].f_lineno == line:
                caller = frames[0]
        if caller is None:
            return original(tensors, *args, **kwargs)
        roots = [tensors] if isinstance(tensors, torch.Tensor) else list(tensors)
        handles = watch.before(caller, roots)
        try:
            original(tensors, *args, **kwargs)
        except Exception as error:  # noqa: BLE001 - the backward's error is the measurement
            watch.raised = error
            raise
        finally:
            for handle in handles:
                handle.remove()
            if watch.marks is not None:
                watch.marks.after()
        watch.after()
        raise StopRun

    return watching


def _prefixed(text: str) -> str:
    """`text` to append to a sentence of evidence ("; " first), or "" when there is none."""
    return f"; {text}" if text else ""


def _made_text_of(setting: Any, stopped: Optional[BaseException] = None) -> str:
    """What stood in for a setting, for an experiment that stops the run before `run_target` returns
    the text of what it made (`stopped`: how the run ended, which may carry that text)."""
    if getattr(stopped, "made_text", ""):
        return stopped.made_text
    if isinstance(setting, FunctionStandIns) or (isinstance(setting, FromCallSite) and setting.standins is not None):
        text = setting.standins.make(seed=0)[1]
        for preparation in getattr(setting, "preparations", ()):
            text += f"; `{preparation.method}({', '.join(preparation.names)})` was run first, {preparation.why}"
        return text
    return ""


def inplace_on_leaf(job: Job) -> Outcome:
    namespace = _load(job)
    target = job.context.get("target") or _written_on_line(job.source, job.line)
    if job.target.class_name is not None and job.target.function_name == "__init__":
        built = _leaf_error_while_building(job, namespace)
        if built is not None:
            return built

    def run(setting) -> Run:
        probe = LineProbe(job.path)
        watch = TensorAcrossLine(probe, job.line, target)
        failure = None
        try:
            ran = run_target(job, namespace, probe, setting=setting)
            made = _made_text(ran)
        except Exception as error:  # noqa: BLE001 - the leaf error itself, or the code failing elsewhere
            failure = f"{type(error).__name__}: {str(error).splitlines()[0][:160] if str(error) else ''}"
            made = _prefixed(_made_text_of(setting, error))
        executed = set(probe.executed)
        # The probe sees the error where it is raised, even if the program catches it later.
        at_line = [exception for line, exception in probe.raised if line == job.line]
        for exception in at_line:
            message = str(exception)
            if any(text in message for text in script.LEAF_ERRORS):
                return Run(confirmed(f"RuntimeError: {message.splitlines()[0]}{made}"), executed)
        if at_line:
            first = at_line[0]
            return Run(None, executed, f"line {job.line} raised {type(first).__name__}: {str(first)[:160]}")
        if job.line not in executed:
            return Run(None, executed, f"the code failed before the line: {failure}" if failure else None)
        # A refutation needs the write itself to have run, seen on the tensor's version counter.
        if watch.wrote:
            return Run(refuted(f"the write at line {job.line} ran ({watch.change}) without the leaf error: "
                               f"{watch.state}{made}"), executed)
        if watch.wrote is False:
            return Run(None, executed, f"line {job.line} ran but did not write `{target}`")
        return Run(None, executed, f"line {job.line} ran without the leaf error, but `{target}` could not be read "
                                   f"around it to tell whether the write happened")

    outcome = decide(settings(job, namespace), run, {job.line: "the in-place write"})
    if outcome.status == "confirmed":
        _grad_mode_as_callers_run_it(job, outcome)
    return outcome


def _leaf_error_while_building(job: Job, namespace: dict) -> Optional[Outcome]:
    """A write in a network's `__init__` (`self.fc1.weight.fill_(0)`): building the class runs the
    flagged line, and the leaf error it raises there is the claim itself (the class then cannot be
    built at all, so no setting would reach a run of its own)."""
    cls = namespace.get(job.target.class_name)
    if not (isinstance(cls, type) and issubclass(cls, nn.Module)):
        return None
    probe = LineProbe(job.path)
    try:
        probe.run(lambda: next(iter(_configurations(job, cls)), None))
    except CannotRun:
        pass  # no configuration built: what each one raised is in the probe
    for line, exception in probe.raised:
        if line == job.line and any(text in str(exception) for text in script.LEAF_ERRORS):
            return confirmed(f"RuntimeError: {str(exception).splitlines()[0]} (raised at line {line} while "
                             f"{cls.__name__} was built)")
    return None


def _grad_mode_as_callers_run_it(job: Job, outcome: Outcome) -> None:
    """A claim that needs grad mode on, shown in a run that had it on: unverified when no call in the
    file shows the mode and every call in the other files that import it runs under `torch.no_grad()`
    (fresh27's PGD attack, whose `perturb` every trainer calls in an evaluation under no-grad)."""
    target = job.target
    name = target.class_name or target.function_name
    if not name or not job.importers or callers_in_file(job.source, target):
        return
    method = target.function_name if target.class_name else None
    places = topcalls.calls_without_grad(job.importers, module_names(job.path), name, method)
    if places:
        shown = ", ".join(places[:3]) + (f" and {len(places) - 3} more" if len(places) > 3 else "")
        raise CannotRun(f"{outcome.evidence}; but every call of `{method or name}` in the files that import "
                        f"`{name}` runs with grad mode off ({shown}), where the claim does not hold")


class TensorAcrossLine:
    """A tensor, named by a plain expression (`w`, `self.scale`, `x[0]`), read just before a line
    runs and again once the line has finished: its state then, and whether the line wrote it (its
    version counter moved, or its values changed)."""

    def __init__(self, probe: LineProbe, line: int, expression: Optional[str]) -> None:
        self.expression = expression if _plain_reference(expression) else None
        self.before: Optional[tuple] = None
        self.wrote: Optional[bool] = None
        self.change = ""
        probe.on_before(line, self._read_before)
        probe.on_after(line, self._read_after)

    def _read_before(self, frame) -> None:
        if self.before is not None or self.expression is None:
            return
        try:
            value = eval(self.expression, frame.f_globals, frame.f_locals)  # noqa: S307 - names and attributes only
        except Exception:  # noqa: BLE001 - not bound yet on this pass
            return
        if isinstance(value, torch.Tensor):
            self.before = (value, value._version, value.detach().clone(), value.is_leaf, value.requires_grad,
                           torch.is_grad_enabled())

    def _read_after(self, frame) -> None:
        if self.before is None or self.wrote is not None:
            return
        tensor, version, copy = self.before[:3]
        if tensor._version != version:
            self.wrote, self.change = True, f"`{self.expression}` version {version} -> {tensor._version}"
        else:
            self.wrote = not same_values(tensor.detach(), copy)
            self.change = f"`{self.expression}` values changed" if self.wrote else ""

    @property
    def required_grad(self) -> Optional[bool]:
        """Whether the tensor required grad as the line began (None: not read)."""
        return None if self.before is None else self.before[4]

    @property
    def state(self) -> str:
        if self.before is None:
            return ""
        _, _, _, is_leaf, requires_grad, grad_enabled = self.before
        return (f"before it, `{self.expression}` had is_leaf={is_leaf}, requires_grad={requires_grad}, "
                f"with grad mode {'on' if grad_enabled else 'off'}")


def _plain_reference(expression: Optional[str]) -> bool:
    """A name, attribute or subscript with nothing that runs code (no call): safe to read twice."""
    if not expression:
        return False
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        return False
    return not any(isinstance(node, (ast.Call, ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield, ast.ListComp,
                                     ast.GeneratorExp, ast.DictComp, ast.SetComp)) for node in ast.walk(tree))


def _written_on_line(source: str, line: int) -> Optional[str]:
    """What the statement on `line` writes in place: `w` of `w.add_(1)`, `w[0] = v`, `w += v`."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.stmt) or node.lineno != line:
            continue
        if isinstance(node, ast.AugAssign):
            return ast.unparse(node.target)
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript):
            return ast.unparse(node.targets[0].value)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and \
                isinstance(node.value.func, ast.Attribute) and node.value.func.attr.endswith("_"):
            return ast.unparse(node.value.func.value)
    return None


@dataclass
class Sighting:
    """The value an expression had just before the flagged line ran, and how that run was set up."""

    value: Any
    grad_enabled: bool
    setting: Any
    through: Optional[Caller] = None  # the caller in the file the run went through, if any
    expression: str = ""
    # The line sits in a loop, none of its passes seen showed the claim, and the run failed before the
    # line ran again: a later pass may differ (why the run failed). "" otherwise.
    unfinished: str = ""

    @property
    def assumed(self) -> list:
        """The made-up tensors the value requires grad through, and through nothing else."""
        return standins.assumed_through(self.value)

    @property
    def stand_in_itself(self) -> bool:
        """The expression is one of the stand-ins made for the run (its kind is a guess)."""
        if self.through is not None:
            return False
        if isinstance(self.setting, FromCallSite):
            return self.setting.standins is not None and self.expression in self.setting.standins.plan.kinds
        return isinstance(self.setting, (FunctionStandIns, ConstructorStandIns)) \
            and self.expression in self.setting.standins.plan.kinds

    @property
    def where(self) -> str:
        return f"when called from {self.through.description}" if self.through else "here"


# Passes of a flagged line in a loop the experiment looks at for one that shows the claim.
MAX_SIGHTINGS = 3


def _value_at_line(job: Job, expression: str, through: Optional[Caller] = None,
                   only: Optional[list] = None, shows: Optional[Callable[[Any, bool], bool]] = None) -> Sighting:
    """Evaluate `expression` in the flagged line's frame just before it runs, in the first setting
    that reaches the line: of the function holding it, or (`through`) of a caller in the file, so
    that the value is what that caller really passes; `only`: these settings, not the usual ones.
    With `shows` (value, grad mode -> does it show the claim), a line in a loop is looked at on up to
    MAX_SIGHTINGS passes, for one that does (`advimage` requires grad from the second iteration on)."""
    runner = job if through is None else dataclasses.replace(job, line=through.line, _tree=None)
    namespace = _load(runner)
    found: dict = {}
    unfinished: dict = {}
    # A caller's loop that hands the function back what it changed (`x = fgsm(model, x, ...)` in PGD's
    # loop): the value of a later pass is another, and a pass seen alone refutes nothing of it.
    carried = shows is not None and through is not None and _passes_loop_carried(job.tree, through.line)
    looped = shows is not None and _in_loop(job) or carried
    filters = _comprehension_filters(job)

    def run(setting) -> Run:
        probe = LineProbe(job.path)
        seen: list = []

        def capture(frame):
            if not _called_from(frame, through):
                return  # an earlier call the top-level caller's slice makes (`show(content)` before `show(target)`)
            try:
                value = eval(expression, frame.f_globals, frame.f_locals)  # noqa: S307 - the user's own code
                # In `[p.clone() for p in params if p.requires_grad]` the line starts again for each
                # element before its filter is tested: an element the filter drops is never copied.
                if not all(eval(test, frame.f_globals, frame.f_locals) for test in filters):  # noqa: S307
                    return
            except NameError:
                return  # the enclosing frame of a comprehension on this line: wait for the inner one
            seen.append((value, torch.is_grad_enabled()))
            if not looped or shows(*seen[-1]) or len(seen) >= MAX_SIGHTINGS:
                raise StopRun

        probe.on_before(job.line, capture)
        error = failure = None
        try:
            run_target(runner, namespace, probe, setting=setting)
        except StopRun:
            pass
        except Exception as raised:  # noqa: BLE001 - the code failed before the line
            failure = f"{type(raised).__name__}: {str(raised)[:160]}"
            error = f"the code failed before the line: {failure}"
        if not seen:
            return Run(None, set(probe.executed), error)
        value, grad = next((sighting for sighting in seen if looped and shows(*sighting)), seen[0])
        passes = "its first pass" if len(seen) == 1 else f"{len(seen)} passes"
        if looped and failure and not shows(value, grad) and len(seen) < MAX_SIGHTINGS:
            # The loop's later passes never ran: another setting may run them.
            unfinished.setdefault("sighting", (value, grad, setting, f"the run failed after {passes} ({failure})"))
            return Run(None, set(probe.executed), f"the code failed after the line: {failure}")
        if carried and not shows(value, grad) and len(seen) < MAX_SIGHTINGS:
            # (With made-up inputs the loop may stop at once: PGD's `break` once the label flips.)
            unfinished.setdefault("sighting", (value, grad, setting, f"the loop of {through.description} ended "
                                                                     f"after {passes}, and it passes on what the "
                                                                     f"call returned"))
            return Run(None, set(probe.executed), f"the loop of {through.description} ended after {passes}")
        found.update(value=value, grad=grad, setting=setting)
        return Run(confirmed("reached"), set(probe.executed))

    try:
        outcome = decide(only if only is not None else settings(runner, namespace), run, {job.line: "the flagged line"})
    except CannotRun:
        if "sighting" not in unfinished:
            raise
        outcome = None
    if outcome is not None and outcome.status == "not reached":
        raise NotReached(outcome.evidence)
    if "value" not in found and "sighting" in unfinished:
        value, grad, setting, why = unfinished["sighting"]
        return Sighting(value, grad, setting, through, expression, unfinished=why)
    if "value" not in found:
        raise CannotRun("the flagged line was not reached with the made-up inputs")
    return Sighting(found["value"], found["grad"], found["setting"], through, expression)


SELF_ATTRIBUTE = re.compile(r"^self(\.\w+)+$")


def _attribute_as_built(job: Job, expression: str, failure: CannotRun) -> Sighting:
    """`self.log_alpha` of `self.log_alpha.clone().detach()`, read as the object's `__init__` returns or
    as the flagged method begins, where the run failed before the flagged line (an agent's update on a
    made-up replay batch) or reached it only with the attribute made up, and the file sets the attribute
    only in `__init__`, and switches its grad flag nowhere: what the line reads is that object, with that
    flag. Else `failure` is raised again."""
    init, method = _method_node(job, "__init__"), _method_node(job, job.target.function_name or "")
    attribute = expression.split(".")[1] if SELF_ATTRIBUTE.match(expression) else ""
    if init is None or method is None or method is init or not attribute \
            or not _set_only_in_init(job.tree, attribute):
        raise failure
    first, entry = (next((statement for statement in function.body if not (  # a docstring runs no line
        isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant))), function.body[0])
        for function in (init, method))
    namespace = _load(job)
    found: dict = {}

    def run(setting) -> Run:
        probe = LineProbe(job.path)

        def capture(frame):
            if "value" in found or "self" not in frame.f_locals or _made_up(frame.f_locals["self"], attribute):
                return
            try:
                value = eval(expression, frame.f_globals, frame.f_locals)  # noqa: S307 - the user's own code
            except Exception:  # noqa: BLE001 - not set on this path through the constructor
                return
            found.update(value=value, grad=torch.is_grad_enabled(), setting=setting)
            raise StopRun

        probe.on_return_of(first.lineno, capture)  # an object the run builds
        probe.on_before(entry.lineno, capture)  # an object built before the run calls the method
        error = None
        try:
            run_target(job, namespace, probe, setting=setting)
        except StopRun:
            pass
        except Exception as raised:  # noqa: BLE001 - the code failed before the object was built
            error = f"the code failed before the object was built: {type(raised).__name__}: {str(raised)[:160]}"
        return Run(confirmed("built") if "value" in found else None, set(probe.executed), None if found else error)

    decide(settings(job, namespace), run, {first.lineno: "the constructor"})
    if "value" not in found:
        raise failure
    # What the rest of the run stood in for says nothing of the value: the object's own constructor made it.
    built = getattr(found["setting"], "description", "")
    built = built if built.startswith("the object built") else "the object its own constructor built"
    script.note(f"`{expression}` was read off {built} (as `{method.name}` began, or as `__init__` returned): "
                f"the file sets `self.{attribute}` only in `__init__`, and no run reached line {job.line} with the "
                f"object's own")
    return Sighting(found["value"], found["grad"], None, None, expression)


def _made_up(owner: Any, attribute: str) -> bool:
    """Is the object's attribute one the verifier made up (an object of a class it could not build)?"""
    value = getattr(owner, attribute, None)
    return isinstance(value, torch.Tensor) and bool(standins.assumed_through(value)) and value.grad_fn is None


def _method_node(job: Job, name: str) -> Optional[ast.FunctionDef]:
    """The method `name` of the class holding the flagged line, in the file."""
    owner = next((node for node in job.tree.body if isinstance(node, ast.ClassDef)
                  and node.name == job.target.class_name), None)
    return next((node for node in owner.body if isinstance(node, ast.FunctionDef) and node.name == name), None) \
        if owner is not None else None


def _set_only_in_init(tree: ast.Module, attribute: str) -> bool:
    """Is `<x>.<attribute>` written (assigned, its `.data` or grad flag set, `requires_grad_()` called)
    only in `__init__` methods of the file, and there at least once?"""
    written_in_init = False
    for function in (node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))):
        for node in ast.walk(function):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
                if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            writes = any(isinstance(part, ast.Attribute) and part.attr == attribute
                         for target in targets for part in ast.walk(target))
            writes |= isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "requires_grad_" and isinstance(node.func.value, ast.Attribute) \
                and node.func.value.attr == attribute
            if writes and function.name != "__init__":
                return False
            written_in_init |= writes
    module_writes = any(isinstance(part, ast.Attribute) and part.attr == attribute
                        for node in tree.body if isinstance(node, (ast.Assign, ast.AugAssign))
                        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
                        for part in ast.walk(target))
    return written_in_init and not module_writes


def _called_from(frame, caller: Optional[Caller]) -> bool:
    """Is the flagged line's frame run by the call of `caller`, when that is a top-level statement? Its
    slice runs the earlier top-level statements it depends on, which may call the function too, with
    other values: those are not what this call passes."""
    if caller is None or caller.name:
        return True
    outer = frame.f_back
    while outer is not None and outer.f_code.co_name != "<module>":
        outer = outer.f_back
    return outer is None or outer.f_lineno == caller.line


def _in_loop(job: Job) -> bool:
    """The flagged line sits in a loop of the code around it (its later passes may see other values)."""
    return any(isinstance(node, (ast.For, ast.AsyncFor, ast.While)) and node.body
               and node.body[0].lineno <= job.line <= (node.end_lineno or node.lineno)
               for node in ast.walk(job.tree))


def _passes_loop_carried(tree: ast.Module, line: int) -> bool:
    """Is the call at `line` in a loop that rebinds a name the call passes (`x = fgsm(model, x, ...)`, or
    `x = torch.max(x_min, x)` later in the body)? Each pass then hands the function another value."""
    for loop in ast.walk(tree):
        if not isinstance(loop, (ast.For, ast.AsyncFor, ast.While)) or not loop.body or \
                not loop.body[0].lineno <= line <= (loop.end_lineno or loop.lineno):
            continue
        calls = [node for node in ast.walk(loop) if isinstance(node, ast.Call) and node.lineno == line]
        passed = {argument.id for call in calls for argument in [*call.args, *(k.value for k in call.keywords)]
                  if isinstance(argument, ast.Name)}
        rebound = {name.id for node in ast.walk(loop) if isinstance(node, (ast.Assign, ast.AugAssign))
                   for assigned in (node.targets if isinstance(node, ast.Assign) else [node.target])
                   for name in ast.walk(assigned) if isinstance(name, ast.Name)}
        if passed & rebound:
            return True
    return False


def _sightings_through_callers(job: Job, expression: str) -> tuple[list, list, list]:
    """(callers, sightings, failures) of `expression` at the flagged line when each caller in the
    file runs it: the values the project really passes, where the file shows them."""
    callers = callers_in_file(job.source, job.target)
    sightings, failures = [], []
    for caller in callers:
        if not caller.takes_arguments:
            continue  # `main()`: it may read data or train before it gets there
        try:
            sightings.append(_value_at_line(job, expression, through=caller, shows=_records_value))
        except (CannotRun, NotReached, AbsentPackageUsed) as reason:
            failures.append(f"{caller.description}: {str(reason)[:160]}")
    return callers, sightings, failures


def _per_call_seconds(statement: Callable[[], Any], repeat: int = 200, rounds: int = 5) -> float:
    """The best of several rounds: the least disturbed by the rest of the machine."""
    statement()
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        for _ in range(repeat):
            statement()
        best = min(best, (time.perf_counter() - started) / repeat)
    return best


def clone_detach_order(job: Job) -> Outcome:
    """The claim holds when the cloned tensor requires grad (the clone then records a node). That
    depends on what the function is given: the callers in the file decide when they show it
    (a caller passing `state_dict()` tensors refutes it); a made-up argument that requires grad
    confirms nothing: the verdict is unverified, the assumption said."""
    expression = job.context.get("source", "")
    callers, sightings, failures = _sightings_through_callers(job, expression)
    shown = [sighting for sighting in sightings if not sighting.assumed]
    if shown:
        recording = next((sighting for sighting in shown if _records_clone(sighting)), None)
        if recording is not None:
            return _stating_made_up_layers(_clone_detach_measured(job, recording), recording, expression)
        outcome = _clone_detach_measured(job, shown[0])
        if failures:  # a caller that could not run may pass a tensor that requires grad
            raise CannotRun(f"{outcome.evidence}; but {failures[0]}")
        made_up = [sighting for sighting in sightings if sighting.assumed]
        if outcome.status == "refuted" and made_up:
            # Another caller's value was made up (what it passes comes from a package that is not here):
            # what it really passes may require grad (fresh46: a test comparing a SyncBatchNorm's output).
            raise CannotRun(f"{outcome.evidence}; but what {made_up[0].through.description} passes was made up "
                            f"({made_up[0].assumed[0]}): it may require grad")
        if len(shown) > 1:
            others = ", ".join(sighting.through.description for sighting in shown[1:])
            outcome = Outcome(outcome.status, f"{outcome.evidence}; the same from {others}")
        return outcome
    try:
        sighting = sightings[0] if sightings else _value_at_line(job, expression, shows=_records_value)
    except CannotRun as failure:
        sighting = _attribute_as_built(job, expression, failure)
    made_up = _made_up_names(sighting, expression)
    kind, why = _kind_by_use(job, made_up)
    if kind == "labels" and isinstance(sighting.value, torch.Tensor) and sighting.value.is_floating_point():
        sighting = _as_class_indices(job, expression, sighting, made_up)  # a float was made for a label
    outcome = _clone_detach_measured(job, sighting)
    if outcome.status == "refuted" and failures:
        # The callers in the file show what the function is given, and they could not be run: a value
        # seen another way refutes nothing they pass (fresh46: a test whose every call of `compare`
        # stopped at a CUDA-only profiler call, one of them passing a SyncBatchNorm's output).
        raise CannotRun(f"{outcome.evidence}; but the callers in the file could not be run ({failures[0]})")
    if kind is not None:
        source = _what_callers_show(job, callers, failures)
        shown = ", ".join(f"`{name}`" for name in made_up)
        if kind == "values":
            # A label's name, a value's use: which the code is given decides the claim, and nothing shows it.
            raise CannotRun(f"{shown} {why}: made up as class indices it would not require grad, as a float tensor "
                            f"it would; which the code is given is not known ({source})")
        if outcome.status == "confirmed":  # not reached: class indices never require grad
            raise CannotRun(f"{outcome.evidence}; but {shown} {why}, and class indices never require grad")
        return Outcome(outcome.status, f"{outcome.evidence}; assumed: {shown} made as class indices "
                                       f"(an int64 tensor), as {why} ({source})")
    if not sighting.assumed and _made_up_layers(sighting, expression):
        return _stating_made_up_layers(outcome, sighting, expression, f"({_what_callers_show(job, callers, failures)})")
    if outcome.status == "confirmed" and sighting.assumed and standins.LABEL_NAMES.match(expression.split(".")[-1]):
        # Class labels never require grad: a made-up float for a caller's `labels` says nothing of the code.
        raise CannotRun(f"{outcome.evidence}; but `{expression}` is named like class labels, which never require "
                        f"grad: only a made-up value made it require grad ({_what_callers_show(job, callers, failures)})")
    if outcome.status == "confirmed" and sighting.assumed and failures:
        # The file shows what the function is given, and it could not be run: those values decide, not a
        # made-up one (fresh22 and fresh26: four such confirmations, all of callers passing data).
        raise CannotRun(f"{outcome.evidence}; but `{expression}` required grad only through a made-up value, and "
                        f"the callers in the file, which show what it is given, could not be run ({failures[0]})")
    modules = module_names(job.path)
    name = job.target.class_name or job.target.function_name or ""
    imported_by = topcalls.importers_of(job.importers, modules, name)
    if outcome.status == "confirmed" and sighting.assumed:
        # What the program passes decides, not a made-up value: where every call of it that the linted
        # files show passes what requires grad (a name its code makes require grad, the output of a
        # trainable layer), that is the evidence; else the claim is conditional and stays unverified.
        made_up = [match.group(1) for mark in sighting.assumed for match in [re.match(r"`(\w+)`", mark)] if match]
        passed = _passed_requiring_grad(job, modules, made_up, imported_by)
        if passed is not None:
            return confirmed(f"{outcome.evidence}; `{expression}` requires grad through {passed}")
        if all(mark.endswith(standins.OPTIMIZED_PARAMETER) for mark in sighting.assumed):
            # What the code hands an optimizer to train (`super().__init__(params, defaults)` of a hand-written
            # Ranger) is a network's parameters, and they require grad (fresh116's Lookahead slow weights).
            return confirmed(f"{outcome.evidence}; `{expression}` requires grad, as a parameter an optimizer "
                             f"trains does: {' and '.join(sighting.assumed)}")
        if imported_by:
            # fresh26's JSMA attack: the one file that imports it gives it nothing that requires grad.
            raise CannotRun(f"{outcome.evidence}; but `{expression}` required grad only through a made-up value, "
                            f"and {Path(imported_by[0]).name} imports `{name}`: what its calls pass decides, and "
                            f"they were not run")
        # fresh31: five such confirmations, all wrong, of functions whose callers in other files pass data;
        # fresh32: four, all right, of a memory module fed a student's embeddings: a made-up value cannot
        # tell them apart.
        assumed = CannotRun(f"{outcome.evidence}; assumed: `{expression}` requires grad here only through "
                            f"{' and '.join(sighting.assumed)} made to require grad "
                            f"({_what_callers_show(job, callers, failures)}): the claim holds if it does, and "
                            f"nothing run shows that it does")
        # An attribute of the object itself, which its constructor makes: what it made decides.
        built = _attribute_as_built(job, expression, assumed)
        if built.assumed:
            raise assumed
        return _clone_detach_measured(job, built)
    return outcome


def _passed_requiring_grad(job: Job, modules: frozenset, made_up: list[str], imported_by: list[str]) -> Optional[str]:
    """Where the linted files' calls of the flagged function all pass, for the `made_up` parameters, what
    requires grad: a function's callers in other files that make it require grad, or, for a network's
    method, the network it is a part of feeding it its own layers' outputs (a contrastive memory fed a
    student's embeddings); said as "what ... pass: <where>". None when nothing shows it."""
    if not made_up:
        return None
    if job.target.class_name is None:
        passed = topcalls.passed_requiring_grad(job.importers, modules, job.source, job.target.function_name,
                                                made_up) if imported_by else None
        return passed and f"what the calls in other files pass: {passed}"
    fed = topcalls.fed_by_parent_layers(job.tree, job.importers, modules, job.target.class_name,
                                        job.target.function_name or "", made_up)
    return fed and f"what the network it is a part of passes it: {fed}"


def _what_callers_show(job: Job, callers: list, failures: list) -> str:
    """Why the values of the function's arguments are made up: what its callers in the file show."""
    programs = [caller.description for caller in callers if not caller.takes_arguments]
    if not callers:
        return f"no caller in the file shows what `{job.target.function_name}` is given"
    if len(programs) == len(callers):
        many = len(programs) > 1
        return (f"its caller{'s' if many else ''} in the file, {', '.join(programs)}, "
                f"{'take no arguments and are not run: they' if many else 'takes no arguments and is not run: it'} "
                f"may read data or train")
    if failures:
        return f"the callers in the file could not be run ({failures[0]})"
    return "its callers in the file pass made-up values too"


def _comprehension_filters(job: Job) -> list[str]:
    """The `if` tests of the comprehensions whose element holds the flagged line, innermost last."""
    tests = []
    for node in ast.walk(job.tree):
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            element = node.key if isinstance(node, ast.DictComp) else node.elt
            if element.lineno <= job.line <= (element.end_lineno or element.lineno):
                tests += [ast.unparse(test) for generator in node.generators for test in generator.ifs]
    return tests


def _made_up_plan(sighting: Sighting):
    """The stand-ins plan of the run that saw the value, when no caller showed the arguments (else None)."""
    setting = sighting.setting
    if sighting.through is not None:
        return None
    if isinstance(setting, FunctionStandIns) or (isinstance(setting, FromCallSite) and setting.standins is not None):
        return setting.standins.plan
    return None


def _made_up_names(sighting: Sighting, expression: str, kinds: Optional[frozenset] = None) -> list[str]:
    """The names `expression` reads whose values were made up for the run (stand-ins from use): those
    of `kinds`, or, by default, those made up as tensors or class labels (whose kind `_kind_by_use`
    weighs). What was made up as what holds no tensor of values (a layer, the positions of an
    `index_select`) is what it is: `index` in `layer.weight.index_select(0, index)` cannot make the copy
    require grad."""
    plan = _made_up_plan(sighting)
    if plan is None:
        return []
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        return []
    read = [ast.unparse(node) for node in ast.walk(tree) if isinstance(node, (ast.Name, ast.Attribute))]
    if kinds is not None:
        return [name for name in dict.fromkeys(read) if plan.kinds.get(name) in kinds]
    return [name for name in dict.fromkeys(read) if name in plan.kinds and name not in plan.positions
            and (plan.kinds[name] not in NOT_TENSORS or plan.kinds[name] == "labels")]


def _made_up_layers(sighting: Sighting, expression: str) -> list[str]:
    """The made-up layers whose parameters the value may be (`layer.weight`): those `expression` reads,
    or, for a run through a caller in the file, those made up for the caller's own arguments. (A
    made-up network's output is another matter: `keep(model(x))` copies what a network computes.)"""
    if sighting.through is None:
        return _made_up_names(sighting, expression, kinds=frozenset({"layer"}))
    plan = getattr(getattr(sighting.setting, "standins", None), "plan", None)
    return [name for name, kind in plan.kinds.items() if kind == "layer"] if plan is not None else []


def _stating_made_up_layers(outcome: Outcome, sighting: Sighting, expression: str, why: str = "") -> Outcome:
    """A confirmation that rests on a stand-in layer's parameters requiring grad, as those of a layer
    being trained do (`layer.weight.index_select(0, index)` in a pruning helper), says so: for a frozen
    layer the claim would not hold."""
    layers = _made_up_layers(sighting, expression) if outcome.status == "confirmed" else []
    if not layers:
        return outcome
    shown = " and ".join(f"`{name}`" for name in layers)
    whose = f" (what {sighting.through.description} was given)" if sighting.through is not None else ""
    return Outcome(outcome.status, f"{outcome.evidence}; assumed: {shown}{whose} made up as a stand-in "
                                   f"{'layer' if len(layers) == 1 else 'layers'} whose parameters require grad, as "
                                   f"a trained layer's do; the claim does not hold for a frozen one{' ' + why if why else ''}")


# Kinds of made-up arguments that hold no tensor a value could be computed from.
NOT_TENSORS = frozenset({"module", "layer", "loss", "optimizer", "optimizer class", "scaler", "int", "float", "bool",
                         "count", "start", "position", "shape", "choice", "device", "torch.device", "dtype", "labels",
                         "options"})


def _made_up_tensors(sighting: Sighting) -> list[str]:
    """The arguments made up as tensors (or batches, or dicts of them) for the run no caller shows."""
    plan = _made_up_plan(sighting)
    return [name for name, kind in plan.kinds.items() if kind not in NOT_TENSORS] if plan is not None else []


# Uses that need a tensor of values (a float), never class indices.
VALUE_METHODS = frozenset({"mean", "std", "var", "softmax", "log_softmax", "sigmoid", "tanh", "exp", "log", "sqrt",
                           "norm", "backward", "grad", "requires_grad", "requires_grad_", "normal_", "uniform_"})


def _kind_by_use(job: Job, names: list) -> tuple[Optional[str], str]:
    """What made-up arguments are by the code's own use, where it matters to TCL005 (whether they can
    require grad): ("labels", why) for one named like class labels (`labels`, `target`, `y`) or used
    as an index or a class target; ("values", why) for one named like labels but used as values
    (`y.mean()`, a loss of values, a network's input); (None, "") otherwise."""
    if not names:
        return None, ""
    tree = job.tree
    node = standins.function_node(tree, job.target.class_name, job.target.function_name or "")
    if node is None:
        return None, ""
    found = standins.uses(node)
    for name in names:
        use = found.get(name, standins.Use())
        named = bool(standins.LABEL_NAMES.match(name.split(".")[-1]))
        as_index = any(isinstance(sub, ast.Subscript) and standins._key(sub.slice) == name for sub in ast.walk(node))
        if not (named or use.class_target or as_index):
            continue
        values = sorted(use.methods & VALUE_METHODS)
        networks = sorted(callee for callee in use.fed_to if not callee.startswith(("torch.", "F.", "nn.")))
        if named and not (use.class_target or as_index) and (values or use.value_target or networks):
            used = f"`.{values[0]}()`" if values else ("the target of a loss of values" if use.value_target
                                                       else f"an input of `{networks[0]}`")
            return "values", f"is named like class labels but used as values ({used})"
        if use.class_target or as_index:
            return "labels", ("the code uses it as an index" if as_index else "the code uses it as class indices (the "
                              "target of a classification loss, one-hot encoded or embedded)")
        return "labels", "its name reads like class labels"
    return None, ""


def _as_class_indices(job: Job, expression: str, sighting: Sighting, names: list) -> Sighting:
    """The line's value again, with the label-named stand-ins made class indices instead of floats."""
    setting = sighting.setting
    plan = setting.standins.plan
    relabelled = dataclasses.replace(plan, kinds={name: "labels" if name in names else kind
                                                   for name, kind in plan.kinds.items()})
    made = dataclasses.replace(setting.standins, plan=relabelled)
    return _value_at_line(job, expression, only=[dataclasses.replace(setting, standins=made)], shows=_records_value)


def _records_clone(sighting: Sighting) -> bool:
    return _records_value(sighting.value, sighting.grad_enabled)


def _records_value(value: Any, grad_enabled: bool) -> bool:
    """A clone of the value records a node: a tensor that requires grad, in grad mode."""
    return isinstance(value, torch.Tensor) and value.requires_grad and grad_enabled


def _clone_detach_measured(job: Job, sighting: Sighting) -> Outcome:
    """Both orders on the value the line saw: same values, the node the clone records, the cost."""
    tensor, expression = sighting.value, job.context.get("source")
    if not isinstance(tensor, torch.Tensor):
        return _not_a_tensor(expression, sighting)
    with torch.set_grad_enabled(sighting.grad_enabled):
        written = tensor.clone().detach()  # noqa: TCL005 - the form under test
        fixed = tensor.detach().clone()
        node = type(tensor.clone().grad_fn).__name__ if tensor.clone().grad_fn is not None else None
        slow = _per_call_seconds(lambda: tensor.clone().detach())  # noqa: TCL005
        fast = _per_call_seconds(lambda: tensor.detach().clone())
    shape = f"{tuple(tensor.shape)} {str(tensor.dtype).replace('torch.', '')}"
    if not same_values(written, fixed):
        return refuted("the two orders gave different values")
    if node is None:
        why = "requires grad, but grad mode is off," if tensor.requires_grad else "does not require grad"
        measured = (f"`{expression}` {why} {sighting.where} (a {shape} tensor): the clone records nothing, and "
                    f"both orders cost the same ({slow * 1e6:.2f} vs {fast * 1e6:.2f} µs)")
        if sighting.unfinished:  # a later pass of the loop, which never ran, may see a value that requires grad
            raise CannotRun(f"{measured}; but the line is in a loop, and {sighting.unfinished}")
        made_up = getattr(tensor, standins.PLAIN_LEAF_MARK, None)
        if made_up:  # what the caller passes decides, and it was made up
            raise CannotRun(f"{measured}; but that is {made_up}")
        arguments = _made_up_tensors(sighting)
        if arguments:
            # `for scores in action_scores: scores.clone().detach()`: a value computed from a made-up
            # argument (made without grad) says nothing of what the callers pass, which decides.
            raise CannotRun(f"{measured}; but the run made up {', '.join(f'`{name}`' for name in arguments)}, "
                            f"which it may be computed from, without grad: what the code is given decides")
        return refuted(measured)
    # The setting the line ran in, when it is not the plain one (`with best_loss = None`).
    return named(confirmed(f"same values; as written records {node}: {slow * 1e6:.2f} µs vs {fast * 1e6:.2f} µs "
                           f"per call on {shape}"
                           f"{_computed_from(sighting) if sighting.through is None else '; ' + sighting.where}"),
                 sighting.setting)


def _computed_from(sighting: Sighting) -> str:
    """`; computed from <the stand-ins>` for a value computed from made-up arguments (`m =
    double_multiplier / 2 ** shift`, a hidden state of the project's network built for `model`): which,
    and of what kind; "" for any other setting."""
    if not isinstance(sighting.setting, FunctionStandIns):
        return ""
    return f"; computed from {sighting.setting.standins.make(seed=0)[1]}"


def tensor_copy_construct(job: Job) -> Outcome:
    """The claim holds when the value is a tensor. A made-up one (an argument nothing in the file passes,
    a tensor by its annotation) shows that only as far as the callers agree: another file of the tree
    that imports the function decides, and where none does the evidence states the assumption."""
    expression = job.context.get("source", "")
    sighting = _value_at_line(job, expression)
    tensor = sighting.value
    if not isinstance(tensor, torch.Tensor):
        return _not_a_tensor(expression, sighting)
    assumed = ""
    if sighting.stand_in_itself or standins.made_up_batch_part(tensor):
        # A part of a made-up batch is a tensor because the stand-in loader made one: the code's own
        # dataset may yield a list there, which the default collate keeps a list (fresh79's VOC boxes).
        made_up = "made up as a tensor" if sighting.stand_in_itself else "a part of a made-up loader's batch"
        name = job.target.class_name or job.target.function_name or ""
        imported_by = topcalls.importers_of(job.importers, module_names(job.path), name) if name else []
        if imported_by:
            # fresh29's GPT block: `idx: torch.Tensor`, and the one file that calls it passes a list.
            raise CannotRun(f"`{expression}` was {made_up}, and {Path(imported_by[0]).name} imports "
                            f"`{name}`: what its calls pass decides, and they were not run")
        site = _call_site(job)
        if site is not None:
            # fresh34's notebook Dataset: `X: torch.Tensor`, and its cells build it from NumPy arrays of
            # data never read: what that call passes decides, and it could not be made.
            raise CannotRun(f"`{expression}` was {made_up}, and {site.described} shows what it is "
                            f"given: what it passes decides, and it could not be made")
        if not sighting.stand_in_itself and topcalls.called_in(job.source, name):
            raise CannotRun(f"`{expression}` was {made_up}, and the file calls `{name}`: the loader it is "
                            f"handed there decides what its batches hold")
        assumed = (f"; assumed: `{expression}` {made_up} (no call in the linted files shows what "
                   f"`{name}` is given)")
    else:
        assumed = _computed_from(sighting)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        written = torch.tensor(tensor)
    fixed = tensor.detach().clone()
    warning = next((str(w.message) for w in caught if issubclass(w.category, UserWarning)), None)
    if warning is None or not same_values(written, fixed):
        return refuted("no copy-construct warning, or different values")
    slow = _per_call_seconds(lambda: _quiet(lambda: torch.tensor(tensor)))
    fast = _per_call_seconds(lambda: tensor.detach().clone())
    return named(confirmed(f"UserWarning: {warning.splitlines()[0][:110]}; same values; "
                           f"{slow * 1e6:.2f} µs vs {fast * 1e6:.2f} µs per call on {tuple(tensor.shape)}{assumed}"),
                 sighting.setting)


def _not_a_tensor(expression: str, sighting: Sighting) -> Outcome:
    """The value the line saw is not a tensor: refuted, unless it was made up, or made by a package that
    stood in (an image through a no-op torchvision's transforms), which show nothing of the code."""
    value = sighting.value
    if sighting.stand_in_itself:  # a stand-in of the wrong kind shows nothing about the code
        raise CannotRun(f"`{expression}` was made up as a {type(value).__name__}, not a tensor")
    if isinstance(value, (noops.NoOp, absent.AbsentName)):
        raise CannotRun(f"`{expression}` came from a stood-in package at run time ({sighting.where}), "
                        f"not from the code's own values")
    if type(value).__module__.startswith("torchcopylint."):
        # A stand-in of the verifier's own (a do-nothing object for an attribute nothing explains) that
        # reached the line through the code: what the program puts there is not known.
        raise CannotRun(f"`{expression}` is a stand-in ({type(value).__name__}) at run time ({sighting.where}), "
                        f"not one of the code's own values")
    return refuted(f"`{expression}` is a {type(value).__name__} at run time ({sighting.where}), not a tensor")


def _quiet(make: Callable[[], Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make()


def detached_alias_mutated(job: Job) -> Outcome:
    """TCL006: the write through the alias changes the source's values, and the later read the claim
    names sees them: where that read takes elements (`imgs[i]` in a loop over rows, the next row),
    the elements it takes are compared with what they held before the write."""
    source = job.context.get("source", "")
    write_line = job.context.get("write_line")
    read_line, read_expression = job.context.get("read_line"), job.context.get("read_expression")
    namespace = _load(job)

    def run(setting) -> Run:
        probe = LineProbe(job.path)
        seen: dict = {}

        def snapshot(frame):
            value = frame.f_locals.get(source)
            if isinstance(value, torch.Tensor) and "before" not in seen:
                seen["before"] = value.detach().clone()
                seen["tensor"] = value  # the tensor the alias was made of, whatever the name holds later

        def compare(frame):
            value = frame.f_locals.get(source)
            if "before" in seen and "after" not in seen and (isinstance(value, torch.Tensor) or source not in frame.f_locals):
                seen["after"] = seen["tensor"].detach().clone()
                # A restart's loop rebinds the name before the write (`lolip = lll.forward(...)` each time):
                # what the name is read as from then on is another tensor, which the write leaves alone.
                seen["rebound"] = isinstance(value, torch.Tensor) and memory_of(value) != memory_of(seen["tensor"])
                if isinstance(setting, ModuleLevel):
                    raise StopRun  # a script's loop would go on training: the claim is decided

        def read_after_the_write(frame):
            if "after" not in seen or "read" in seen or seen.get("rebound"):
                return
            try:
                now = eval(read_expression, frame.f_globals, frame.f_locals)  # noqa: S307 - the user's own code
                then = eval(read_expression, frame.f_globals, {**frame.f_locals, source: seen["before"]})  # noqa: S307
            except Exception:  # noqa: BLE001 - an element read that cannot be taken again says nothing
                return
            if isinstance(now, torch.Tensor) and isinstance(then, torch.Tensor) and now.shape == then.shape:
                seen["read"] = not same_values(now, then)

        # Across a call (`show(x)` writes x inside), the flagged line is the write itself: the
        # values are taken before it runs.
        (probe.on_before if job.context.get("snapshot") == "before" else probe.on_after)(job.line, snapshot)
        probe.on_after(write_line, compare)
        if read_line and read_expression and not isinstance(setting, ModuleLevel):
            probe.on_before(read_line, read_after_the_write)
        error = made = None
        try:
            made = _made_text(run_target(job, namespace, probe, setting=setting))
        except StopRun:
            pass
        except Exception as raised:  # noqa: BLE001 - after the write, the error may be the bug's consequence
            error = str(raised).splitlines()[0] if str(raised) else type(raised).__name__
        executed = set(probe.executed)
        if "after" not in seen:
            return Run(None, executed, f"the run failed before the write: {error[:160]}" if error else None)
        before, after = seen["before"], seen["after"]
        if seen["rebound"]:
            return Run(refuted(f"`{source}` named another tensor when the write at line {write_line} ran: the write "
                               f"went into the tensor `{source}` held at line {job.line}, not into what `{source}` is "
                               f"read as from then on"), executed)
        if same_values(before, after):
            return Run(refuted(f"`{source}` kept its values after the write (line {write_line})"), executed)
        differs = (before != after).flatten()
        changed, first = differs.sum().item(), int(differs.nonzero()[0].item())
        evidence = (f"the write at line {write_line} changed {changed} of {before.numel()} values of `{source}` "
                    f"(e.g. {before.flatten()[first].item():.4g} -> {after.flatten()[first].item():.4g})")
        if seen.get("read") is False:
            # `sample = imgs[i].numpy(); sample -= ...` in a loop over rows: the next read is another row.
            return Run(None, executed, f"{evidence}, but the read at line {read_line} (`{read_expression}`) took "
                                       f"none of them")
        if seen.get("read"):
            evidence += f", and the read at line {read_line} (`{read_expression}`) took changed ones"
        if error and INPLACE_BACKWARD_ERROR in error:
            evidence += f"; then: RuntimeError: {error[:150]}"
        return Run(confirmed(evidence + (made or "")), executed)

    return decide(settings(job, namespace), run, claim_lines(job.code, job.line, job.context))


def graph_kept_alive(job: Job) -> Outcome:
    """TCL007: the graph reachable from the accumulator after each accumulation grows. State kept on
    an instance (`self.avg = self.avg * m + mean * (1 - m)`) accumulates across calls of its method:
    the method is called three times on the same instance."""
    accumulator = job.context.get("accumulator", "")
    namespace = _load(job)
    across_calls = accumulator.startswith("self.") and job.target.class_name is not None
    # The claim that the loop's backward frees each graph and the nodes stay: growth counts only across
    # a backward (a rollout buffer grows between backwards, and the loss it builds takes it apart).
    across_a_backward = job.context.get("kept") == "graph nodes" and not across_calls
    # The claim that the loop's backward goes back through the graphs an earlier backward freed.
    chain_claimed = job.context.get("kept") == "graph chain"

    def run(setting) -> Run:
        probe = LineProbe(job.path)
        sizes: list[int] = []
        roots: list = []        # the graph's outputs at the last accumulation
        restarts: list[int] = []  # accumulations after which the earlier graph was no longer reachable
        held: list[bool] = []   # whether the accumulator held a tensor at each accumulation
        backwards_run: list[int] = []  # the backwards run before each accumulation's measurement
        counted = [0]

        def measure(frame):
            value = accumulator_value(frame.f_locals, accumulator)
            tensors = [value] if isinstance(value, torch.Tensor) else script.tensors_in(value)
            held.append(any(isinstance(t, torch.Tensor) for t in tensors))
            nodes = walk_graph(tensors, limit=100_000)[0]
            # `total = 0` before an inner loop that ran once: each accumulation starts a new graph, and
            # equal sizes say nothing of whether one accumulation keeps the last one's graph.
            if roots and not any(root in nodes for root in roots):
                restarts.append(len(sizes))
            roots[:] = [t.grad_fn for t in tensors if isinstance(t, torch.Tensor) and t.grad_fn is not None]
            sizes.append(len(nodes))
            backwards_run.append(counted[0])
            spanned = not across_a_backward or backwards_run[-1] > backwards_run[0]
            if len(sizes) >= 3 and spanned or len(sizes) >= MAX_ACCUMULATIONS_WATCHED:
                raise StopRun

        def forget() -> None:  # the script runs again on other stand-ins: only the last run's accumulations count
            for measured in (sizes, roots, restarts, held, backwards_run):
                measured.clear()
            counted[0] = 0

        probe.on_after(job.line, measure)
        probe.on_restart(forget)
        error, stopped = None, None
        try:
            with _counting_backwards(counted):
                run_target(job, namespace, probe, setting=setting, calls=3 if across_calls else 1)
        except StopRun as stop:
            stopped = stop
        except Exception as raised:  # noqa: BLE001 - the code failed before (or between) the accumulations
            error = f"{type(raised).__name__}: {str(raised).splitlines()[0][:160] if str(raised) else ''}"
            stopped = raised
        executed = set(probe.executed)
        made = _prefixed(_made_text_of(setting, stopped))
        each = "call" if across_calls else "iteration"
        after = (f"{len(sizes)} calls of `{job.target.function_name}` on the same instance," if across_calls
                 else f"{len(sizes)} iterations")
        if across_a_backward and len(sizes) >= 2 and backwards_run[-1] == backwards_run[0]:
            return Run(None, executed, error or f"no backward ran between the {len(sizes)} accumulations watched: "
                                                f"what the backward does with `{accumulator}` was not seen")
        if restarts and across_a_backward:
            return Run(None, executed, f"`{accumulator}` started a new graph between accumulations (nodes after "
                                       f"each {each}: {' -> '.join(str(s) for s in sizes)})")
        if len(sizes) >= 2 and sizes[-1] > sizes[0] > 0:
            return Run(confirmed(f"after {after} `{accumulator}` references autograd graphs of "
                                 f"{' -> '.join(str(s) for s in sizes)} nodes: every {each}'s graph stays "
                                 f"alive{made}"), executed)
        if chain_claimed and sizes and counted[0] >= 1 and error is not None and SECOND_BACKWARD_ERROR in error:
            # The claim's own consequence: the first backward freed the graph the accumulator still holds, and the
            # next one, through it again, failed as the message says.
            return Run(confirmed(f"after {len(sizes)} accumulation(s) into `{accumulator}`, a backward that had run "
                                 f"once ran again through its graph and failed: {error}{made}"), executed)
        if len(sizes) < 2:  # one accumulation cannot show growth: nothing decided
            return Run(None, executed, error or (f"the accumulation ran {len(sizes)} time(s)" if sizes else None))
        if not any(held):
            # `norms.append(norm)` of a list filled only under `if config.kind == 'Q1':`: no tensor was put in,
            # so the measurement could not have shown a graph; it decides nothing.
            return Run(None, executed, f"`{accumulator}` held no tensor after {after}: what it accumulates was "
                                       f"not made with these inputs")
        if restarts:
            return Run(None, executed, f"`{accumulator}` started a new graph between accumulations (nodes after "
                                       f"each {each}: {' -> '.join(str(s) for s in sizes)}): the accumulation never "
                                       f"ran twice on the same graph with these inputs")
        return Run(refuted(f"after {after} `{accumulator}` holds no growing autograd graph (nodes after each "
                           f"{each}: {' -> '.join(str(s) for s in sizes)})"), executed)

    return decide(settings(job, namespace), run, {job.line: "the accumulation"})


# How many accumulations TCL007's experiment watches for a backward to run between them.
MAX_ACCUMULATIONS_WATCHED = 12


@contextlib.contextmanager
def _counting_backwards(counted: list):
    """Count in `counted[0]` the backwards run (`loss.backward()` goes through `torch.autograd.backward`)."""
    original = torch.autograd.backward

    def counting(*arguments, **keywords):
        counted[0] += 1
        return original(*arguments, **keywords)

    torch.autograd.backward = counting
    try:
        yield
    finally:
        torch.autograd.backward = original


def accumulator_value(frame_locals: dict, accumulator: str, frame_globals: Optional[dict] = None) -> Any:
    """A name or dotted attribute in a frame: the accumulator TCL007 names, a local (`losses`) or module
    state (`self.history`); the network TCL009's message assumes (`model`, also a module-level one)."""
    root, *attributes = accumulator.split(".")
    value = frame_locals.get(root, (frame_globals or {}).get(root))
    for attribute in attributes:
        value = getattr(value, attribute, None)
    return value


NUMPY_ERROR = "Can't call numpy() on Tensor that requires grad"
NON_LEAF_OPTIMIZER_ERROR = "can't optimize a non-leaf Tensor"


def numpy_of_grad_tensor(job: Job) -> Outcome:
    """TCL009: the conversion raises the requires-grad RuntimeError at the flagged line."""
    probe = LineProbe(job.path)
    tensor = job.context.get("tensor")
    watch = TensorAcrossLine(probe, job.line, tensor)
    failure = None
    # A conversion in a wrapper, reported for what a caller passes (`caller_line`), runs from that caller,
    # as `_value_at_line` does with `through`: alone, the wrapper would be given a stand-in.
    caller_line = job.context.get("caller_line")
    runner = dataclasses.replace(job, line=caller_line, _tree=None) if caller_line else job
    # The claim may rest on an assumption the message states ("if `model` has parameters that require
    # grad"): a stand-in network for that name has them by construction, and shows nothing of the real one.
    assumed = re.match(r"if `([\w.]+)`", job.context.get("assumption") or "")
    stood_in: list = []
    if assumed is not None:  # the name is the caller's where the claim is about what a caller passes
        probe.on_before(caller_line or job.line, lambda frame: stood_in.append(
            isinstance(accumulator_value(frame.f_locals, assumed.group(1), frame.f_globals), standins.StandInNet)))
    try:
        run_loaded(runner, probe)
    except Exception as error:  # noqa: BLE001 - whatever the user's code raises is evidence or a reason
        failure = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
    at_line = [exception for line, exception in probe.raised if line == job.line]
    for exception in at_line:
        if isinstance(exception, RuntimeError) and NUMPY_ERROR in str(exception):
            evidence = f"line {job.line} raised RuntimeError: {str(exception).splitlines()[0]}"
            if stood_in and stood_in[0]:
                raise CannotRun(f"{evidence}; assumed: `{assumed.group(1)}` was a stand-in network, whose "
                                f"parameters require grad by construction (the claim holds {job.context['assumption']}"
                                f"; nothing run shows what the code is given)")
            return confirmed(evidence)
    if at_line:
        first = at_line[0]
        raise CannotRun(f"the line raised {type(first).__name__} before the conversion: {str(first)[:140]}")
    if probe.executed.get(job.line):
        # A refutation needs the tensor itself, read as the line began: it did not require grad.
        if watch.required_grad is False and watch.wrote is not None:  # read as it began, and it finished
            return refuted(f"line {job.line} ran {probe.executed[job.line]} time(s) and converted without the "
                           f"error: `{tensor}` had requires_grad=False there")
        raise CannotRun(f"line {job.line} ran without the error, but `{tensor}` could not be read as it began, "
                        f"to tell why")
    if failure:
        raise CannotRun(f"the code failed before the line: {failure[:160]}")
    raise CannotRun("the flagged line was not reached with the made-up inputs")


def leaf_lost_by_copy(job: Job) -> Outcome:
    """TCL012: the name bound at the flagged line is not a leaf; the optimizer refuses it, or its
    `.grad` is None after the run while the leaf behind it got the gradient."""
    name = job.context.get("name", "")
    if not name.replace(".", "").isidentifier():
        return _comprehension_of_copies(job)  # "the list": a comprehension handed to the optimizer
    probe = LineProbe(job.path)
    seen: dict = {}

    def bound(frame):
        if name.startswith("self."):
            owner = frame.f_locals.get("self")
            value = getattr(owner, name[len("self."):], None)
            seen.setdefault("owner", owner)
        else:
            value = frame.f_locals.get(name)
        if isinstance(value, torch.Tensor) and "tensor" not in seen:
            seen["tensor"] = value

    def before(frame):
        owner = frame.f_locals.get("self") if name.startswith("self.") else None
        value = getattr(owner, name[len("self."):], None) if owner is not None else frame.f_locals.get(name)
        if isinstance(value, torch.Tensor) and "previous" not in seen:
            seen["previous"] = value

    probe.on_before(job.line, before)
    probe.on_after(job.line, bound)
    failure = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the non-leaf `.grad` warning: the evidence is read below
        try:
            run_loaded(job, probe)
        except Exception as error:  # noqa: BLE001
            failure = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
        if "tensor" not in seen:
            raise CannotRun(f"the code failed before the line: {failure[:160]}" if failure
                            else "the flagged line was not reached with the made-up inputs")
        tensor = seen["tensor"]
        if job.context.get("without_grad") and tensor.is_leaf and not tensor.requires_grad:
            return _leaf_dropped_under_no_grad(job, name, tensor, seen.get("previous"))
        owner = seen.get("owner")
        if job.context.get("use") == "registration" and isinstance(owner, nn.Module):
            # The claim is the module's registration, whatever the copy's leaf status: the copy of a
            # parameter made not to require grad (a power iteration's vector) is a leaf too.
            registered = list(owner.parameters())
            if any(parameter is tensor for parameter in registered):
                if job.context.get("condition") and tensor.device.type == "cpu":
                    raise CannotRun(f"on the CPU the conversion returned the parameter itself; the copy is made "
                                    f"only {job.context['condition']} (run with --device cuda)")
                return refuted(f"`{name}` is registered as a parameter of {type(owner).__name__}")
            return confirmed(f"`{name}` after line {job.line}: a {type(tensor).__name__} (is_leaf={tensor.is_leaf}, "
                             f"requires_grad={tensor.requires_grad}), not an nn.Parameter: "
                             f"{type(owner).__name__}.parameters() leaves it out "
                             f"({len(registered)} parameters registered, none of them `{name}`)")
        if tensor.is_leaf or not tensor.requires_grad:
            if job.context.get("condition") and tensor.device.type == "cpu":
                raise CannotRun(f"on the CPU the conversion returned the leaf itself; the copy is made only "
                                f"{job.context['condition']} (run with --device cuda)")
            return refuted(f"`{name}` is a leaf at run time (is_leaf={tensor.is_leaf}, "
                           f"requires_grad={tensor.requires_grad})")
        made = f"`{name}` after line {job.line}: is_leaf=False, grad_fn={type(tensor.grad_fn).__name__}"
        for line, exception in probe.raised:
            if isinstance(exception, ValueError) and NON_LEAF_OPTIMIZER_ERROR in str(exception):
                return confirmed(f"{made}; line {line} raised ValueError: {exception}")
        hidden = [leaf for leaf in _leaves_behind(tensor) if leaf.grad is not None]
        if tensor.grad is None and hidden:
            return confirmed(f"{made}; after backward `{name}.grad` is None while the leaf of shape "
                             f"{tuple(hidden[0].shape)} behind it holds the gradient (norm "
                             f"{hidden[0].grad.norm().item():.4g})")
    if failure:
        raise CannotRun(f"{made}, but the run failed before a backward or optimizer showed the effect: {failure[:140]}")
    raise CannotRun(f"{made}, but no backward reached it in the made-up run")


def _leaf_dropped_under_no_grad(job: Job, name: str, tensor, previous) -> Outcome:
    """Under no-grad the copy is a new leaf that does not require grad: the claim is that the name
    stopped being the trainable leaf it was, measured on the value it held before the line."""
    made = f"`{name}` after line {job.line}: is_leaf=True, requires_grad=False (made under no-grad)"
    if previous is None:
        raise CannotRun(f"{made}, but `{name}` held no tensor as the line began, to compare with")
    if previous is tensor or not previous.requires_grad:
        return refuted(f"{made}; before the line `{name}` did not require grad either "
                       f"(requires_grad={previous.requires_grad})")
    if tensor.grad is not None:
        raise CannotRun(f"{made}, but something set its `.grad` (norm {tensor.grad.norm().item():.4g}) by the end")
    return confirmed(f"{made}, while before it `{name}` was a tensor that required grad (is_leaf="
                     f"{previous.is_leaf}); at the end of the run `{name}.grad` is None")


def _comprehension_of_copies(job: Job) -> Outcome:
    """TCL012 on a comprehension handed straight to an optimizer (`SGD([w.to(dev) for _ in range(3)])`):
    nothing names the list, so it is evaluated in the line's frame as the line begins; its elements
    are leaves or not, and the line itself raises the optimizer's non-leaf error or not."""
    text = _expression_at(job.source, job.span, job.line, (ast.ListComp, ast.GeneratorExp, ast.List, ast.Tuple))
    if text is None:
        raise CannotRun(f"could not find the list the finding names on line {job.line}")
    probe = LineProbe(job.path)
    seen: dict = {}

    def evaluate(frame):
        if "list" in seen or script._nested_code(frame):
            return  # once, in the frame of the statement (not in the comprehension's own)
        try:
            seen["list"] = list(eval(text, {**frame.f_globals, **frame.f_locals}))  # noqa: S307 - the user's list
        except Exception as error:  # noqa: BLE001 - a name not bound yet on this pass
            seen["error"] = f"{type(error).__name__}: {str(error).splitlines()[0][:120] if str(error) else ''}"

    probe.on_before(job.line, evaluate)
    failure = None
    try:
        run_loaded(job, probe)
    except Exception as error:  # noqa: BLE001 - the optimizer's own error is read from the probe
        failure = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
    if "list" not in seen:
        why = seen.get("error") or failure
        raise CannotRun(f"the list at line {job.line} could not be evaluated as the line began"
                        + (f": {why[:160]}" if why else " (the line was not reached)"))
    tensors = [item for item in seen["list"] if isinstance(item, torch.Tensor)]
    if not tensors:
        raise CannotRun(f"the list at line {job.line} holds no tensor")
    copies = [t for t in tensors if not t.is_leaf]
    state = (f"the list at line {job.line}, evaluated as the line began, holds {len(tensors)} tensors, "
             f"{len(copies)} of them not a leaf")
    if copies:
        state += f" (is_leaf=False, grad_fn={type(copies[0].grad_fn).__name__})"
    raised = [(line, e) for line, e in probe.raised if isinstance(e, ValueError) and NON_LEAF_OPTIMIZER_ERROR in str(e)]
    if copies and raised:
        return confirmed(f"{state}; line {raised[0][0]} raised ValueError: {raised[0][1]}")
    if copies:
        raise CannotRun(f"{state}, but the line did not raise the optimizer's error"
                        + (f" (the run failed: {failure[:120]})" if failure else ""))
    if job.context.get("condition") and all(t.device.type == "cpu" for t in tensors):
        raise CannotRun(f"{state}: on the CPU the conversion returned the leaf itself; the copy is made only "
                        f"{job.context['condition']} (run with --device cuda)")
    if probe.executed.get(job.line) and not any(line == job.line for line, _ in probe.raised):
        return refuted(f"{state}: every element is a leaf (requires_grad="
                       f"{all(t.requires_grad for t in tensors)}), and the line ran without the optimizer's error")
    raise CannotRun(f"{state}, but the line did not finish" + (f": {failure[:120]}" if failure else ""))


def _expression_at(source: str, span: Optional[tuple], line: int, kinds: tuple) -> Optional[str]:
    """The source text of the expression of one of `kinds` the diagnosis points at: the one its span
    covers, else the first on its line."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, kinds) and node.lineno == line:
            segment = ast.get_source_segment(source, node)
            if segment is not None:
                found.append((node, segment))
    if not found:
        return None
    if span:
        lines = source.splitlines()
        for node, segment in found:
            text = lines[line - 1]
            start = len(text.encode("utf-8")[:node.col_offset].decode("utf-8", errors="replace")) + 1
            if start == span[1]:
                return segment
    return sorted(found, key=lambda item: item[0].col_offset)[0][1]


def _leaves_behind(tensor: torch.Tensor) -> list:
    """The leaves (AccumulateGrad variables) a non-leaf was computed from."""
    return walk_graph([tensor], limit=1000)[1]


# --------------------------------------------- TCL010 and TCL011: what autograd saved and kept

SECOND_BACKWARD_ERROR = "Trying to backward through the graph a second time"


def data_write_under_autograd(job: Job) -> Outcome:
    """Gradients as written against gradients computed from the values the forward used."""
    backward_line = job.context.get("backward_line")
    written_run = _gradients_after_backward(job, backward_line, snapshot=False)
    correct_run = _gradients_after_backward(job, backward_line, snapshot=True)
    written, changed, total = written_run
    correct, changed, total = correct_run[0], correct_run[1], correct_run[2]
    names = sorted(set(written) & set(correct))
    if not names:
        raise CannotRun("no gradient was visible in the function after the backward")
    differences = {name: (written[name].double() - correct[name].double()).abs().max().item() for name in names}
    worst = max(names, key=lambda name: differences[name])
    if differences[worst] == 0:
        return refuted(f"the write (line {job.line}) and the backward (line {backward_line}) ran; all {len(names)} "
                       f"gradients are bitwise equal to those computed from the values the forward used "
                       f"(the write changed {changed} of {total} saved tensors)")
    scale = correct[worst].abs().max().item()
    wrong = sum(1 for name in names if differences[name] > 0)
    return confirmed(f"the write at line {job.line} changed {changed} of the {total} tensors autograd had saved "
                     f"(their version counters did not move), and the backward at line {backward_line} used the new "
                     f"values: {wrong} of {len(names)} gradients are wrong, largest difference {differences[worst]:.3g} "
                     f"in `{worst}` (whose correct gradient has largest element {scale:.3g})")


def _gradients_after_backward(job: Job, backward_line: Optional[int], snapshot: bool):
    """Run to the first backward after the write; (gradients by name, saved tensors the write changed, saved tensors).

    With `snapshot`, every tensor autograd saves is copied as it is saved and the backward reads the copy:
    the gradient of the forward that ran, whatever was written into the tensors afterwards."""
    probe = LineProbe(job.path)
    wrote = [False]
    seen: dict = {}
    saved = {"changed": 0, "total": 0}
    # The storages the flagged line writes: only their saved values are restored, so that another
    # write in the same function cannot pass for this one's effect.
    written_storages: set = set()

    def pack(tensor):
        saved["total"] += 1
        return tensor, tensor.detach().clone()

    def unpack(packed):
        tensor, copy = packed
        if tensor.untyped_storage().data_ptr() not in written_storages:
            return tensor
        if not same_values(tensor.detach(), copy):
            saved["changed"] += 1
        return copy if snapshot else tensor

    def before_write(frame):
        try:
            target = eval(job.context.get("written", ""), frame.f_globals, frame.f_locals)  # noqa: S307
        except Exception:  # noqa: BLE001 - the name is not there yet: nothing is recorded
            return
        if isinstance(target, torch.Tensor):
            written_storages.add(target.untyped_storage().data_ptr())

    def after_write(frame):
        wrote[0] = True
        before_write(frame)  # `w.data = new` gives `w` a new storage: the saved `w` has it now

    def after_backward(frame):
        if wrote[0] and "gradients" not in seen:
            seen["gradients"] = _visible_gradients(frame)
            raise StopRun

    probe.on_before(job.line, before_write)
    probe.on_after(job.line, after_write)
    probe.on_after(backward_line, after_backward)
    failure = None
    try:
        if snapshot:
            with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
                run_loaded(job, probe)
        else:
            run_loaded(job, probe)
    except StopRun:
        pass
    except RuntimeError as error:
        failure = str(error).splitlines()[0] if str(error) else "RuntimeError"
    if "gradients" not in seen:
        what = "the write" if not wrote[0] else f"the backward at line {backward_line} after the write"
        raise CannotRun(f"{what} was not reached with the made-up inputs" + (f" ({failure[:120]})" if failure else ""))
    if not written_storages:
        raise CannotRun(f"could not tell which tensor `{job.context.get('written')}` is at line {job.line}")
    return seen["gradients"], saved["changed"], saved["total"]


def _visible_gradients(frame) -> dict:
    """The `.grad` of the leaf tensors, modules and optimizers the frame can see, by name."""
    found: dict = {}
    owners = set()

    def add(name: str, tensor) -> None:
        if isinstance(tensor, torch.Tensor) and tensor.grad is not None and id(tensor) not in owners:
            owners.add(id(tensor))
            found[name] = tensor.grad.detach().clone()

    for name, value in frame.f_locals.items():
        if isinstance(value, nn.Module):
            for parameter_name, parameter in value.named_parameters():
                add(f"{name}.{parameter_name}", parameter)
        elif isinstance(value, torch.Tensor) and value.is_leaf:
            add(name, value)
        elif isinstance(value, torch.optim.Optimizer):
            for g, group in enumerate(value.param_groups):
                for i, parameter in enumerate(group["params"]):
                    add(f"{name}.param_groups[{g}][{i}]", parameter)
    return found


class _FailedWithoutRetaining(CannotRun):
    """The run without `retain_graph=True` failed on something else: another setting may fit."""


def retain_graph_workaround(job: Job) -> Outcome:
    """The bytes the retained graph holds, then the run without `retain_graph=True`, with the first
    setting that reaches the backward and whose run without it does not fail on something else."""
    backward_line = job.context.get("backward_line") or job.line
    first_failure = None
    for held, setting, tried in _settings_reaching(job, backward_line):
        try:
            outcome = _retained_graph_outcome(job, backward_line, held, setting)
            as_data = _tensors_as_data(setting) if outcome.status == "refuted" else None
            if as_data is not None:
                # Made-up inputs that require grad tie each step's graph to the next (`adv = clamp(adv, x - eps,
                # x + eps)` of a stand-in `x`): the later backward may need the graph only through them
                # (fresh118: three attacks refuted so). Real inputs are data: they decide.
                held = _retained_after_backward(job, backward_line, as_data)
                if held is None:
                    raise CannotRun(f"{outcome.evidence}; but the made-up inputs required grad, and with them "
                                    f"as data the backward at line {backward_line} was not reached")
                outcome, setting = _retained_graph_outcome(job, backward_line, held, as_data), as_data
                script.note("the made-up tensors were data, requiring no grad, as a program's inputs are")
        except _FailedWithoutRetaining as failure:
            first_failure = first_failure or failure
            continue
        if tried and getattr(setting, "description", ""):
            script.note(f"the backward was reached with {setting.description}")
        return outcome
    if first_failure is not None:
        raise first_failure
    raise CannotRun(f"the backward at line {backward_line} was not reached with the made-up inputs")


def _tensors_as_data(setting: Any) -> Any:
    """The setting with its made-up tensors made as data, leaves that require no grad; None where it
    made none that require grad (a caller's own values, a module-level run)."""
    made = getattr(setting, "standins", None)
    if not isinstance(made, standins.StandIns):
        return None
    plan = made.plan
    made_to_require = tuple(name for name, kind in plan.kinds.items() if kind == "tensor" and name not in plan.leaves)
    if not made_to_require:
        return None
    return _with_plan(setting, dataclasses.replace(plan, leaves=plan.leaves + made_to_require),
                      "its tensors as data, requiring no grad")


def _retained_graph_outcome(job: Job, backward_line: int, held: tuple, setting: Any) -> Outcome:
    activations, activation_count, parameters, parameter_count, empty = held
    made = _prefixed(_made_text_of(setting))  # what stood in, which the setting's name leaves unsaid
    if activation_count == 0 and empty:
        # `batch_size = len(all_obs) // training_iters` of a rollout the experiment cut short: no sample,
        # so nothing saved; the code's own batches would have held some.
        raise CannotRun(f"after the backward at line {backward_line} the retained graph held only empty tensors "
                        f"({empty}): the run's batch had no samples, which shows nothing of the code's own")
    own_fix = ""
    if job.fixed_source is None:
        # No fix came with the diagnosis: the experiment makes its own, `retain_graph=True` dropped at the
        # flagged call (as `retain_graph=None`, its default: line numbers kept), and runs that.
        fixed_source = _without_retain_graph(job.source, backward_line)
        if fixed_source is None:
            raise CannotRun(f"the diagnosis has no fix to run, and no `retain_graph=True` was found at line "
                            f"{backward_line} to drop")
        job = dataclasses.replace(job, fixed_source=fixed_source)
        own_fix = " (the diagnosis has no fix: the experiment dropped it from that call itself)"
    workaround = job.context.get("kind") == "workaround"
    # The workaround's claim is about the generator's later backward: the fixed run goes on until it ran.
    later_line = job.context.get("later_line") if workaround else None
    later, error, reached, cut_short, error_line = _run_without_retaining(job, backward_line, setting,
                                                                          until_line=later_line)
    kept = (f"after the backward at line {backward_line} the retained graph still held {activation_count} saved "
            f"activation tensors ({activations:,} bytes; plus {parameter_count} parameters, {parameters:,} bytes, "
            f"which live anyway)")
    if error is not None and SECOND_BACKWARD_ERROR in error:
        if workaround and own_fix and activation_count and error_line == later_line:
            # Nothing but `retain_graph=True` dropped: that the later backward then fails is the claim
            # itself, that the graph is kept only so that it can run through the generator's output again.
            return confirmed(f"{kept}; without `retain_graph=True` (and no other change: the diagnosis has no fix) "
                             f"the backward at line {later_line} fails: RuntimeError: {error[:140]}{made}")
        if workaround:
            raise CannotRun(f"without `retain_graph=True` the generator's backward still needs the graph, even with "
                            f"the fix's detach: {error[:140]}")
        return refuted(f"without `retain_graph=True`{own_fix}, a later backward needed the graph: RuntimeError: "
                       f"{error[:140]}{made}")
    if error is not None:
        raise _FailedWithoutRetaining(f"the run without `retain_graph=True` failed otherwise: {error[:160]}")
    if activation_count == 0:
        return refuted(f"after the backward at line {backward_line} the retained graph held no saved activations"
                       f"{made}")
    if later_line is not None and not reached:
        raise CannotRun(f"{kept}; without `retain_graph=True` the run ended before the backward at line {later_line}")
    if cut_short:
        raise CannotRun(f"{kept}; without `retain_graph=True` the run went on for {reached} with no second-backward "
                        f"error, but the function did not return: what it does after its loop was not seen")
    if workaround and own_fix:
        raise CannotRun(f"{kept}; without `retain_graph=True` (and no other change) the backward at line {later_line} "
                        f"ran without the second-backward error the message expects")
    detach = f" (with TCL003's `.detach()` at line {job.context.get('detach_line')} applied, as the fix requires)" \
        if workaround else ""
    until = reached or "its end"
    return confirmed(f"{kept}; without `retain_graph=True`{detach}{own_fix} the run went on through {later} later "
                     f"backward(s) to {until} with no second-backward error{made}")


def _without_retain_graph(source: str, line: int) -> Optional[str]:
    """The source with `retain_graph=True` of the call(s) in the statement at `line` made
    `retain_graph=None` (what leaving it out means), also under its name before PyTorch 0.4,
    `retain_variables=True`; None when there is none."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    statement = next((node for node in ast.walk(tree) if isinstance(node, ast.stmt) and node.lineno == line
                      and not isinstance(node, _COMPOUND_STATEMENTS)), None)
    if statement is None:
        return None
    edits = [(keyword.value, "None") for node in ast.walk(statement) if isinstance(node, ast.Call)
             for keyword in node.keywords if keyword.arg in ("retain_graph", "retain_variables")
             and isinstance(keyword.value, ast.Constant) and keyword.value.value is True]
    return replace_nodes(source, edits) if edits else None


_COMPOUND_STATEMENTS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.AsyncFor,
                        ast.While, ast.With, ast.AsyncWith, ast.Try)


@contextlib.contextmanager
def _watching_backwards(path: str, line: int, on_call: Callable):
    """Within: every `torch.autograd.backward` (`loss.backward()`) and `torch.autograd.grad` call the
    file makes is reported, after it ran, as on_call(its outputs, whether it is the one at `line`)."""
    originals = torch.autograd.backward, torch.autograd.grad

    def watched(original: Callable, first: str) -> Callable:
        def watching(*args, **kwargs):
            roots = args[0] if args else kwargs.get(first)
            result = original(*args, **kwargs)
            frame = sys._getframe(1)
            depth = 0
            while frame is not None and depth < 12:
                if frame.f_code.co_filename == path:
                    on_call(roots, frame.f_lineno == line)
                    break
                frame, depth = frame.f_back, depth + 1
            return result
        return watching

    torch.autograd.backward = watched(originals[0], "tensors")
    torch.autograd.grad = watched(originals[1], "outputs")
    try:
        yield
    finally:
        torch.autograd.backward, torch.autograd.grad = originals


MAX_RETAIN_SETTINGS = 4  # settings tried in turn until one reaches the retaining backward


def _settings_reaching(job: Job, line: int):
    """(what the graph held after the backward at `line`, the setting that ran to it, how many were tried
    before it), for each setting that reaches it: a function's settings in turn (its callers' arguments,
    stand-ins, batches of one sample: Grad-CAM's `output.argmax(dim=1).item()` takes one image; past
    MAX_RETAIN_SETTINGS, only the program's own way there). Where none does, the first failure is raised."""
    if _is_module_level(job.target):
        held = _retained_after_backward(job, line)
        if held is not None:
            yield held, None, 0
        return
    failures, reached = [], False
    for tried, setting in enumerate(settings(job, _load(job))):
        if tried >= MAX_RETAIN_SETTINGS and not isinstance(setting, ThroughCaller):
            continue  # but the program's own way there, a caller the script runs, which comes last
        try:
            held = _retained_after_backward(job, line, setting)
        except Exception as reason:  # noqa: BLE001 - the next setting may run; the first failure is the one told
            failures.append(reason)
            continue
        if held is not None:
            reached = True
            yield held, setting, tried
    if failures and not reached:
        first = failures[0]
        if isinstance(first, CannotRun) and len(failures) > 1:
            # Told as the first failure; every setting's error (and each one's own) for the next try to learn from.
            every_error = tuple(text for failure in failures
                                for text in (str(failure), *getattr(failure, "every_error", ())))
            raise CannotRun(str(first), every_error) from first
        raise first


def _retained_after_backward(job: Job, line: int, setting: Any = None):
    """(activation bytes, activation tensors, parameter bytes, parameters) the graph holds after the backward."""
    seen: dict = {}

    def on_call(tensors, flagged: bool):
        if flagged and "held" not in seen:
            roots = [tensors] if isinstance(tensors, torch.Tensor) else list(tensors)
            seen["held"] = _saved_bytes(roots)
            raise StopRun

    try:
        with _watching_backwards(job.path, line, on_call):
            run_loaded(job, setting=setting)
    except StopRun:
        pass
    except RuntimeError as error:
        if "held" not in seen:
            raise CannotRun(f"the code failed before the backward: {str(error).splitlines()[0][:160]}") from error
    return seen.get("held")


def _saved_bytes(roots: list) -> tuple[int, int, int, int, int]:
    """What the graph of `roots` still holds: saved tensors that are not leaves' memory (activations), and
    those that share a leaf's storage (a parameter, or a view of one such as `weight.t()`), as (bytes,
    count) of each; then how many saved tensors were empty (a batch of no samples)."""
    nodes = []
    pending = [root.grad_fn for root in roots if isinstance(root, torch.Tensor) and root.grad_fn is not None]
    visited = set()
    leaf_storages = set()
    while pending:
        node = pending.pop()
        if node is None or node in visited:
            continue
        visited.add(node)
        nodes.append(node)
        variable = getattr(node, "variable", None)  # AccumulateGrad: the leaf itself
        if isinstance(variable, torch.Tensor):
            leaf_storages.add(variable.untyped_storage().data_ptr())
        pending.extend(next_node for next_node, _ in node.next_functions)
    activations = parameters = activation_count = parameter_count = empty = 0
    counted = set()
    for node in nodes:
        for attribute in dir(node):
            if not attribute.startswith("_saved_"):
                continue
            try:
                value = getattr(node, attribute)
            except RuntimeError:
                continue  # freed by the backward: not held
            for tensor in value if isinstance(value, (tuple, list)) else (value,):
                if not isinstance(tensor, torch.Tensor):
                    continue
                if tensor.numel() == 0:
                    empty += 1
                    continue
                storage = tensor.untyped_storage()
                if storage.data_ptr() in counted:
                    continue
                counted.add(storage.data_ptr())
                if storage.data_ptr() in leaf_storages or tensor.is_leaf:
                    parameters, parameter_count = parameters + storage.nbytes(), parameter_count + 1
                else:
                    activations, activation_count = activations + storage.nbytes(), activation_count + 1
    return activations, activation_count, parameters, parameter_count, empty


# How many passes over the flagged backward the run without `retain_graph=True` watches before the function
# that runs it returns: 12, and on while they take under PASSES_BUDGET_SECONDS in all, up to the most an
# attack's loop runs (`max_iterations=50`, 100 PGD steps), so that its return is seen.
MAX_PASSES_WITHOUT_RETAINING = 12
MOST_PASSES_WITHOUT_RETAINING = 200
PASSES_BUDGET_SECONDS = 5.0


def _run_without_retaining(job: Job, line: int, setting: Any = None,
                           until_line: Optional[int] = None) -> tuple[int, Optional[str], str, bool, Optional[int]]:
    """Run the fixed code until the function of the flagged backward returns (or it has run that backward
    MAX_PASSES_WITHOUT_RETAINING times), or, with `until_line`, until the backward there has run: (later
    backwards, error, where it stopped ("" for the run's end), whether it stopped at the cap before the
    function returned, the line of the code's file the error was raised at)."""
    fixed = Job(job.path, job.fixed_source, None, job.code, job.line, job.context, job.device, job.factories,
                importers=job.importers)
    counts = {"flagged": 0, "later": 0}

    def on_call(tensors, flagged: bool):
        if flagged:
            counts["flagged"] += 1
        elif counts["flagged"]:
            counts["later"] += 1

    probe = LineProbe(job.path)
    runs = [0]
    came = [""]
    cut_short = [False]

    started = time.perf_counter()

    def before(frame):
        runs[0] += 1
        if until_line is None and runs[0] > MAX_PASSES_WITHOUT_RETAINING and (
                runs[0] > MOST_PASSES_WITHOUT_RETAINING or time.perf_counter() - started > PASSES_BUDGET_SECONDS):
            came[0], cut_short[0] = f"{runs[0] - 1} passes over that line", True
            raise StopRun

    def returned(frame):
        # The function of the flagged backward returns: what it does after its loop (a Hessian of the last
        # batch's loss, taken through the graph the last backward kept) has run too.
        came[0] = f"the return of `{frame.f_code.co_name}`"
        raise StopRun

    def after_later(frame):
        if runs[0]:
            came[0] = f"the backward at line {until_line}"
            raise StopRun

    probe.on_before(line, before)
    if until_line is not None:
        probe.on_after(until_line, after_later)
    else:
        probe.on_return_of(line, returned)
    error = None
    try:
        with _watching_backwards(job.path, line, on_call):
            run_loaded(fixed, probe, setting=setting)
    except StopRun:
        pass
    except RuntimeError as raised:
        error = str(raised).splitlines()[0] if str(raised) else "RuntimeError"
        error_line = next((frame.lineno for frame in reversed(traceback.extract_tb(raised.__traceback__))
                           if os.path.abspath(frame.filename) == os.path.abspath(job.path)), None)
    if not runs[0]:
        raise CannotRun(f"the backward at line {line} was not reached in the fixed code")
    return counts["later"], error, came[0], cut_short[0], error_line if error is not None else None


RESHAPE_TRIES = 5  # tries of an experiment that failed on a reshape of a stand-in batch, or on images too small


def _guarding_names(job: Job) -> frozenset:
    """The names read by the tests of the `if`s and `while`s whose body holds a line of the claim: the
    attributes (`if opts.use_diffaug:` -> "use_diffaug": the script's options of those names may take the
    path) and plain names (`if use_rand_start:`: a default of the method's to try with every setting)."""
    try:
        tree = job.tree
    except SyntaxError:
        return frozenset()
    first, last = _claim_span(job)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While)) and node.lineno < last and first <= (node.end_lineno or node.lineno):
            found |= {sub.attr if isinstance(sub, ast.Attribute) else sub.id for sub in ast.walk(node.test)
                      if isinstance(sub, ast.Attribute) or isinstance(sub, ast.Name) and sub.id != "self"}
    return frozenset(found)


def _honouring_reach(experiment: Callable[[Job], Outcome]) -> Callable[[Job], Outcome]:
    """`not reached` from an experiment whose flagged line never ran in any setting; every verdict
    and reason ends with what stood in (verify/script.py). An experiment that did not decide because
    the code failed to reshape a stand-in batch (`imgs.view(-1, 784)` on 3x64x64 samples) is tried
    again with data shaped for that reshape; one whose flagged line no run reached on batches cut small,
    with batches of the size the code asks for."""
    def run(job: Job) -> Outcome:
        guards = _guarding_names(job)
        script.begin(source=job.source, guards=guards)
        for attempt in range(RESHAPE_TRIES):
            last = attempt == RESHAPE_TRIES - 1
            try:
                outcome = experiment(job)
                if outcome.status in ("confirmed", "refuted") or last or not (
                        script.learn_from(outcome.evidence)
                        or outcome.status == "not reached" and script.full_batches_next()):
                    return script.with_stand_ins(outcome)
            except NotReached as reason:
                if last or not (script.learn_from(str(reason)) or script.full_batches_next()):
                    return script.with_stand_ins(not_reached(str(reason)))
            except CannotRun as reason:
                # Every setting's error: the one the next try can learn from may not be the first shown.
                if last or not script.learn_from("\n".join((str(reason), *reason.every_error))):
                    raise CannotRun(script.explain_failure(str(reason))) from reason
            except Exception as error:  # noqa: BLE001 - the code's own error, out of an experiment that runs it
                # (a critic's instance norm on what 32-pixel stand-in images leave: larger ones next)
                if last or not script.learn_from(f"{type(error).__name__}: {error}"):
                    raise
            script.begin(keep_learned=True, source=job.source, guards=guards)
        raise CannotRun("no try of the experiment decided")  # not reached: the last try returns or raises
    run.__name__ = experiment.__name__
    return run


EXPERIMENTS: dict[str, Callable[[Job], Outcome]] = {
    "TCL001": _honouring_reach(redundant_clone),
    "TCL002": _honouring_reach(alias_mutated),
    "TCL003": _honouring_reach(discriminator_without_detach),
    "TCL004": _honouring_reach(inplace_on_leaf),
    "TCL005": _honouring_reach(clone_detach_order),
    "TCL006": _honouring_reach(detached_alias_mutated),
    "TCL007": _honouring_reach(graph_kept_alive),
    "TCL008": _honouring_reach(tensor_copy_construct),
    "TCL009": _honouring_reach(numpy_of_grad_tensor),
    "TCL010": _honouring_reach(data_write_under_autograd),
    "TCL011": _honouring_reach(retain_graph_workaround),
    "TCL012": _honouring_reach(leaf_lost_by_copy),
}
