"""What a name means: which local names stand for torch, torch.nn, F and their members.

Resolved from the module's own import statements, so that no metadata provider
(a full extra pass over the tree) is needed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import re
from typing import Optional, Union

import libcst as cst

from torchcopylint.analysis.syntax import walk

ROOT_PACKAGE = "torch"
# Other tensor frameworks, whose `loss.backward()`, `x.grad` and `.copy_()` read like torch's: a module
# that imports one of them and not torch is their code.
OTHER_FRAMEWORKS = frozenset({"mxnet", "tensorflow", "keras", "jax", "flax", "paddle", "mindspore", "chainer",
                              "theano"})


def dotted_name(node: cst.CSTNode) -> Optional[str]:
    """`a.b.c` for a Name/Attribute chain, None for anything else."""
    # Exact type tests: libcst's classes are ABCs, whose isinstance is slow, and this runs on
    # most expressions of a module.
    parts = []
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name:
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def _module_name(node: Union[cst.Attribute, cst.Name]) -> str:
    return dotted_name(node) or ""


# Calls that import a module by its name and return it: a test file's `torch = pytest.importorskip("torch")`.
IMPORTING_CALLS = frozenset({"pytest.importorskip", "importorskip", "importlib.import_module", "import_module"})


def _imported_by_calls(body) -> dict[str, str]:
    """`torch = pytest.importorskip("torch")`, `F = importlib.import_module("torch.nn.functional")` at the
    top level: local name -> the torch module it binds."""
    found = {}
    for line in body:
        if type(line) is not cst.SimpleStatementLine:
            continue
        for statement in line.body:
            if not (type(statement) is cst.Assign and len(statement.targets) == 1
                    and type(statement.targets[0].target) is cst.Name and type(statement.value) is cst.Call
                    and dotted_name(statement.value.func) in IMPORTING_CALLS and statement.value.args
                    and type(statement.value.args[0].value) is cst.SimpleString):
                continue
            imported = statement.value.args[0].value.evaluated_value
            if isinstance(imported, str) and (imported == ROOT_PACKAGE or imported.startswith(ROOT_PACKAGE + ".")):
                found[statement.targets[0].target.value] = imported
    return found


@dataclass
class TorchNames:
    """Local name -> fully qualified torch name, e.g. {"nn": "torch.nn", "F": "torch.nn.functional"}."""

    aliases: dict[str, str] = field(default_factory=dict)
    # `from utils import *` of a module other than torch's: a name the file reads and binds nowhere
    # may be anything that module defines.
    star_import: bool = False
    # The first of OTHER_FRAMEWORKS the module imports ("mxnet"), if any.
    other_framework: Optional[str] = None

    @classmethod
    def from_module(cls, module: cst.Module, source: Optional[str] = None) -> "TorchNames":
        """`source`: the module's text, if known (a cheap first look for `torch.` read unimported)."""
        names = cls()
        star = False
        for statement in _import_statements(module.body):
            names._record(statement)
            names.other_framework = names.other_framework or _framework_imported(statement)
            star = star or (type(statement) is cst.ImportFrom and type(statement.names) is cst.ImportStar)
            names.star_import = names.star_import or (
                type(statement) is cst.ImportFrom and type(statement.names) is cst.ImportStar and
                not (statement.module is not None and _module_name(statement.module).split(".")[0] == ROOT_PACKAGE))
        names.aliases.update(_imported_by_calls(module.body))
        # `def f(m): import torch; with torch.no_grad(): ...`: a module that imports torch only inside
        # functions (lazily, or in a test helper) spells the same names there. (Read only then: the walk
        # over every function body is not free, and a module that imports torch at its top rarely
        # imports more of it inside.)
        if not names.aliases:
            for statement in _imports_in_functions(module):
                names._record(statement)
        elif source is not None and TORCH_IMPORTED_INSIDE.search(source):
            # `from torch import autograd` inside a gradient penalty, beside `import torch` at the top: the
            # names it binds there are torch's too (those the top level binds keep their meaning).
            inner = type(names)()
            for statement in _imports_in_functions(module):
                inner._record(statement)
            for local, qualified in inner.aliases.items():
                names.aliases.setdefault(local, qualified)
        if star and ROOT_PACKAGE not in names.aliases and _reads_name(module, ROOT_PACKAGE):
            # `from utils import *` where utils imports torch: `torch.no_grad()` is torch's, as the name
            # can come from nowhere else.
            names.aliases[ROOT_PACKAGE] = ROOT_PACKAGE
        elif ROOT_PACKAGE not in names.aliases and names.other_framework is None and source is not None \
                and TORCH_READ.search(source) and not TORCH_BOUND.search(source):
            # A notebook's cells split into files, or a file run with `%run`: it reads `torch` and binds
            # it nowhere, so the name is the torch the session imported before (`with torch.no_grad():`).
            names.aliases[ROOT_PACKAGE] = ROOT_PACKAGE
        return names

    @property
    def another_frameworks_code(self) -> bool:
        """The module imports another tensor framework and nothing of torch: its tensors are not torch's."""
        return self.other_framework is not None and not self.aliases

    def _record(self, statement: Union[cst.Import, cst.ImportFrom]) -> None:
        if type(statement) is cst.Import:
            for alias in statement.names:
                full = _module_name(alias.name)
                if full != ROOT_PACKAGE and not full.startswith(ROOT_PACKAGE + "."):
                    continue
                if alias.asname is not None and type(alias.asname.name) is cst.Name:
                    self.aliases[alias.asname.name.value] = full
                else:
                    # `import torch.nn` binds `torch`.
                    self.aliases[full.split(".")[0]] = ROOT_PACKAGE
            return
        if statement.relative or statement.module is None:
            return
        base = _module_name(statement.module)
        if base != ROOT_PACKAGE and not base.startswith(ROOT_PACKAGE + "."):
            return
        if type(statement.names) is cst.ImportStar:
            return
        for alias in statement.names:
            if type(alias.name) is not cst.Name:
                continue
            local = alias.name.value
            if alias.asname is not None and type(alias.asname.name) is cst.Name:
                local = alias.asname.name.value
            self.aliases[local] = f"{base}.{alias.name.value}"

    @property
    def imports_torch(self) -> bool:
        return bool(self.aliases)

    def qualified_name(self, node: cst.CSTNode) -> Optional[str]:
        """The torch name an expression spells, or None: `nn.ReLU` -> "torch.nn.ReLU"."""
        head = node
        while type(head) is cst.Attribute:
            head = head.value
        if type(head) is not cst.Name or head.value not in self.aliases:
            return None
        dotted = dotted_name(node)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        resolved = self.aliases.get(head)
        if resolved is None:
            return None
        return f"{resolved}.{rest}" if rest else resolved

    def local_name_of(self, qualified: str) -> Optional[str]:
        """The local name bound to a torch module or object (`t` after `import torch as t`)."""
        for local, full in self.aliases.items():
            if full == qualified:
                return local
        return None

    def is_name(self, node: cst.CSTNode, *qualified: str) -> bool:
        return self.qualified_name(node) in qualified


# Runtimes that load a model exported from torch or elsewhere (`ct.models.MLModel(w)`,
# `ort.InferenceSession(w)`): what they return runs outside autograd.
# nn.Module's methods that return the module itself: `TwoLayer().to(device).eval()` is a `TwoLayer`.
MODULE_RETURNING_METHODS = frozenset({"to", "cuda", "cpu", "train", "eval", "float", "double", "half", "bfloat16",
                                      "requires_grad_", "share_memory", "type"})
MODEL_RUNTIMES = frozenset({"coremltools", "onnxruntime", "openvino", "tensorrt", "tflite_runtime", "onnx", "ncnn"})


def foreign_imports(statement: Union[cst.Import, cst.ImportFrom]) -> set[str]:
    """The local names an import binds to another tensor framework or a model runtime."""
    return {local for package, local in _bound_packages(statement)
            if local and package in OTHER_FRAMEWORKS | MODEL_RUNTIMES}


def _framework_imported(statement: Union[cst.Import, cst.ImportFrom]) -> Optional[str]:
    return next((package for package, _ in _bound_packages(statement) if package in OTHER_FRAMEWORKS), None)


def _bound_packages(statement: Union[cst.Import, cst.ImportFrom]) -> list[tuple[str, str]]:
    """(top-level package, local name) for each name an absolute import binds (`import tensorflow as
    tf` -> ("tensorflow", "tf"), `from mxnet import gluon` -> ("mxnet", "gluon"))."""
    if type(statement) is cst.Import:
        return [(_module_name(alias.name).split(".")[0],
                 _module_name(alias.asname.name) if alias.asname is not None and type(alias.asname.name) is cst.Name
                 else _module_name(alias.name).split(".")[0]) for alias in statement.names]
    if statement.relative or statement.module is None:
        return []
    package = _module_name(statement.module).split(".")[0]
    if type(statement.names) is cst.ImportStar:
        return [(package, "")]  # names not in sight
    return [(package, _module_name(alias.asname.name) if alias.asname is not None and type(alias.asname.name) is cst.Name
             else _module_name(alias.name).split(".")[-1]) for alias in statement.names]


def _import_statements(body) -> list:
    """Imports at module level, including those inside top-level if/try blocks."""
    found: list = []
    for statement in body:
        if type(statement) is cst.SimpleStatementLine:
            found.extend(s for s in statement.body if type(s) in (cst.Import, cst.ImportFrom))
        elif type(statement) is cst.If:
            found.extend(_import_statements(statement.body.body))
            if statement.orelse is not None:
                found.extend(_import_statements(statement.orelse.body.body if type(statement.orelse) is cst.Else else [statement.orelse]))
        elif type(statement) is cst.Try:
            found.extend(_import_statements(statement.body.body))
            for handler in statement.handlers:
                found.extend(_import_statements(handler.body.body))
    return found


def _imports_in_functions(module: cst.Module) -> list:
    """Import statements written inside function bodies, anywhere in the module."""
    found: list = []
    pending = list(module.body)
    while pending:
        statement = pending.pop()
        if type(statement) is cst.FunctionDef:
            found.extend(node for node in walk(statement.body) if type(node) in (cst.Import, cst.ImportFrom))
        elif type(statement) is cst.ClassDef:
            pending.extend(statement.body.body)
        elif type(statement) in (cst.If, cst.Try, cst.With, cst.For, cst.While):
            pending.extend(node for node in walk(statement) if type(node) in (cst.FunctionDef, cst.ClassDef))
    return found


def library_names(module: cst.Module, library: str = "numpy") -> dict[str, str]:
    """Local name -> the library's name, from the module's imports of it and of its submodules: for
    NumPy {"np": "numpy", "asarray": "numpy.asarray"}, for pandas {"pd": "pandas"}, for torchvision
    {"MNIST": "torchvision.datasets.MNIST"}."""
    found: dict[str, str] = {}
    for statement in _import_statements(module.body):
        if type(statement) is cst.Import:
            for alias in statement.names:
                full = _module_name(alias.name)
                if full != library and not full.startswith(library + "."):
                    continue
                if alias.asname is not None and type(alias.asname.name) is cst.Name:
                    found[alias.asname.name.value] = full  # `import torchvision.datasets as dsets`
                else:
                    found[library] = library  # `import numpy.linalg` binds `numpy`
        elif not statement.relative and statement.module is not None and type(statement.names) is not cst.ImportStar \
                and (_module_name(statement.module) + ".").startswith(library + "."):
            library_module = _module_name(statement.module)  # `from torchvision.datasets import MNIST`
            for alias in statement.names:
                if type(alias.name) is cst.Name:
                    local = alias.asname.name.value if alias.asname is not None and type(alias.asname.name) is cst.Name \
                        else alias.name.value
                    found[local] = f"{library_module}.{alias.name.value}"
    return found


def numpy_name(func: cst.BaseExpression, numpy: dict[str, str]) -> Optional[str]:
    """The library's name for a callee, given the module's `library_names` of it (`np.random.randn` ->
    "numpy.random.randn", `asarray` -> "numpy.asarray"); None for anything else."""
    dotted = dotted_name(func)
    if dotted is None:
        return None
    head, _, rest = dotted.partition(".")
    resolved = numpy.get(head)
    if resolved is None:
        return None
    return f"{resolved}.{rest}" if rest else resolved


# `torch.` read as a name of its own, and anything that could bind `torch` otherwise (an assignment, a
# parameter, a loop, an alias of another module, a `def` or `class` of that name).
TORCH_READ = re.compile(r"(?<![\w.])torch\.")
# An indented import of torch (a cheap first look before walking every function body for it).
TORCH_IMPORTED_INSIDE = re.compile(r"(?m)^[ \t]+(from[ \t]+torch\b|import[ \t]+torch\b)")
TORCH_BOUND = re.compile(r"(?<![\w.])torch\s*(=[^=]|:|,|\)|\bin\b)|\bas\s+torch\b|\b(def|class)\s+torch\b")


def _reads_name(module: cst.Module, name: str) -> bool:
    """Does the module spell `name.` anywhere? (Asked only of a module with a star import and no
    import of torch: rare, so rendering its code is cheap enough.)"""
    return f"{name}." in module.code


# Callee names that denote a loss function (`criterion`, `loss_fn`, `self.recon_loss`, `compute_loss`),
# and name parts that say the callee reports on a loss instead (`loss_value`, `log_loss_stats`).
LOSS_FUNCTION_NAME = re.compile(
    r"^(criterion\w*|\w+_criterion|criteria|loss|losses|loss_?f(n|unc|unction)\w*|\w+_loss|"
    r"(compute|calc|calculate|get)_loss\w*|objective)$")
NOT_A_LOSS_PARTS = frozenset({"value", "values", "item", "items", "stat", "stats", "meter", "avg", "print", "record",
                              "track", "history", "log", "logs", "logger", "plot", "show"})


def loss_function_name(key: Optional[str]) -> bool:
    """`criterion`, `self.loss_fn`, `mse_loss`, `recon_criterion`: a callee named as a loss function
    (whose value is computed from its inputs)."""
    if not key:
        return False
    last = key.rpartition(".")[2].lower()
    return bool(LOSS_FUNCTION_NAME.match(last)) and not NOT_A_LOSS_PARTS & set(last.split("_"))
