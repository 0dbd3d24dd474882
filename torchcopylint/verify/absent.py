"""Stand-ins for imports that fail, so code that imports but never uses them can run.

Research code often imports, at the top of a shared `utils.py`, packages that the
flagged code never touches (`scipy.misc`, `imageio`, a logger). Python would stop
at the import; the verifier first tries exactly that, and only when the import of a
package that is nowhere on the import path fails does it run the code again with a
stand-in for that package. The stand-in imports, and any attribute of it can be
named (`from torchvision import datasets`), but using one (calling it, iterating,
testing its truth, what a class derived from it gets from it, ...) raises
AbsentPackageUsed, a BaseException, so
the code under test cannot catch it with `except Exception` and carry on: the
verdict is then `unverified`, naming the package, and the file that imported it
when that is not the flagged file (`needs PIL (imported by utils.py)`). A verdict
reached with a stand-in installed comes from code that never used it. Defining a
class on an absent base, and filing one in an absent registry (`@MODELS.register_module()`),
are not uses: a sibling module the package's `__init__.py` imports may do them.

The same stand-in, with its own message, serves an argument of the flagged function
that nothing in the code's use says the kind of (`unknown_argument`): the run may reach
the flagged line before the code uses it.

The same stand-in serves an import statement of the flagged file that fails for any
other reason (a project module off the import path, an installed package that breaks
as it imports): `stand_in_failed_imports` rewrites such statements to bind stand-ins,
for an experiment that runs the code on stand-ins of what those imports would give
(TCL003's step code on stand-in networks when the real classes cannot be imported).
"""

from __future__ import annotations

import ast
import importlib
import importlib.abc
import importlib.machinery
import re
import sys
import types
from typing import Optional

from torchcopylint.verify.importing import importer_name, in_import_system


class AbsentPackageUsed(BaseException):
    """The code used something from a package that is not installed (or whose import failed)."""

    def __init__(self, qualified_name: str, importer: Optional[str] = None, failed: Optional[str] = None,
                 said: Optional[str] = None) -> None:
        left_out = left_out_of_project(qualified_name)
        self.package = left_out or qualified_name.split(".")[0]
        self.importer = importer
        by = f" (imported by {importer})" if importer else ""
        if said is not None:
            message = said
        elif failed is not None:
            message = f"needs `{qualified_name}`, and `{failed}` failed"
        elif left_out is not None:
            message = f"needs `{left_out}`{by}, which the project does not hold (the code used `{qualified_name}`)"
        else:
            message = f"needs `{self.package}`{by}, which is not installed (the code used `{qualified_name}`)"
        super().__init__(message)


class UnknownArgumentUsed(AbsentPackageUsed):
    """The code used an argument the experiment could not make (absent.unknown_argument): this
    setting cannot decide; another may (a caller that makes it)."""


# Special attributes that code reads to use a value (`opt.__name__`, a version check); any other
# special attribute is absent, as it is on a plain object, so that copy, inspect, numpy and
# torch probing a value (`__deepcopy__`, `__wrapped__`, `__array__`, `__torch_function__`) see one.
_READ_AS_USE = frozenset({"__name__", "__qualname__", "__version__"})


EXCEPTION_NAME = re.compile(r"^[A-Z]\w*(Error|Exception|NotFound|Warning)$")


def exception_class(name: str, module: str) -> type:
    """A class of its own for an exception or warning an absent package names: a `Warning` for one
    named so (`warnings.filterwarnings(..., category=...)` takes nothing else), else an `Exception`."""
    return type(name, (Warning if name.endswith("Warning") else Exception,), {"__module__": module})


def _is_special(attribute: str) -> bool:
    return attribute.startswith("__") and attribute.endswith("__")


class AbsentName:
    """Any name reached from an absent package: naming it is fine, using it raises."""

    def __init__(self, qualified_name: str, importer: Optional[str] = None, failed: Optional[str] = None) -> None:
        object.__setattr__(self, "_qualified_name", qualified_name)
        object.__setattr__(self, "_importer", importer)
        object.__setattr__(self, "_failed", failed)

    _said: Optional[str] = None  # what a use says instead of naming a package (UnknownArgument)
    # What a use raises instead: the failure of the statement that could not make the value (script._unbuilt),
    # after `_on_use` (which takes back what the evidence said of the value standing in).
    _failure: Optional[BaseException] = None
    _on_use: Optional[object] = None

    def __getattr__(self, attribute: str):
        if attribute in _READ_AS_USE:
            self._used()
        if _is_special(attribute):
            raise AttributeError(attribute)
        if EXCEPTION_NAME.search(attribute):
            # `except pkg_resources.DistributionNotFound:` evaluates the class as an exception passes:
            # one of its own, which the use of the absent package (a BaseException) is not.
            return exception_class(attribute, self._qualified_name)
        named = AbsentName(f"{self._qualified_name}.{attribute}", self._importer, self._failed)
        for kept in ("_said", "_failure", "_on_use"):
            object.__setattr__(named, kept, getattr(self, kept))
        return named

    def _used(self, *args, **kwargs):
        if self._failure is not None:
            if self._on_use is not None:
                self._on_use()
            raise self._failure
        if self._said is not None:
            raise UnknownArgumentUsed(self._qualified_name, said=self._said)
        raise AbsentPackageUsed(self._qualified_name, self._importer, self._failed)

    def __call__(self, *args, **kwargs):
        if self._said is not None or not REGISTRATION.match(self._qualified_name.rsplit(".", 1)[-1]):
            self._used()
        # A registry's decorator (`@DATASETS.register_module()`, `@register_model`) only files the class
        # in the absent package's registry; the class itself is what the module defines. Code that
        # looks it up again goes through the absent package, and is reported there.
        if len(args) == 1 and not kwargs and callable(args[0]) and not isinstance(args[0], AbsentName):
            return args[0]
        return _pass_through

    # Every way of using a value rather than naming it.
    __iter__ = __next__ = __len__ = __bool__ = __contains__ = _used
    __getitem__ = __setitem__ = __delitem__ = __setattr__ = __enter__ = __exit__ = _used
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _used
    __matmul__ = __rmatmul__ = __pow__ = __neg__ = __lt__ = __le__ = __gt__ = __ge__ = _used
    __int__ = __float__ = __index__ = __str__ = __format__ = _used
    __instancecheck__ = __subclasscheck__ = _used  # isinstance(x, absent.Base)

    def __or__(self, other):
        # `Image.Image | None` in an annotation names the type, as `Optional[Image.Image]` does; an
        # unknown argument's `x | y` is a use.
        if self._said is not None:
            self._used()
        return self

    __ror__ = __or__

    def __mro_entries__(self, bases):
        # `class CocoDataset(BaseDetDataset)` in a module the flagged code never uses may be defined;
        # making one (or calling a method the base would give) is using the package.
        return (_absent_base(self._qualified_name, self._importer, self._failed),)

    def __repr__(self) -> str:
        return f"<not made: {self._said}>" if self._said else f"<not installed: {self._qualified_name}>"


def unknown_argument(name: str) -> AbsentName:
    """A stand-in for an argument nothing in the code's use says the kind of (`model` whose only use
    is `model.loss(x, y)`): the run may reach the flagged line before the code uses it; a use ends
    the run, unverified, saying why."""
    unknown = AbsentName(name)
    object.__setattr__(unknown, "_said", f"needs `{name}`, and nothing in how the code uses it says what it is")
    return unknown


class RemovedName(AbsentName):
    """A name that the installed version of a package no longer has (`from torch._six import
    string_classes`, `from scipy.optimize.optimize import _status_message`: code written for an older
    one): the import succeeds, and a use raises, saying so."""

    def __getattr__(self, attribute: str):
        if _is_special(attribute) and attribute not in _READ_AS_USE:
            raise AttributeError(attribute)
        return RemovedName(f"{self._qualified_name}.{attribute}", self._importer)

    def _used(self, *args, **kwargs):
        package = self._qualified_name.split(".")[0]
        raise AbsentPackageUsed(self._qualified_name, self._importer, said=(
            f"needs `{self._qualified_name}`, which the installed `{package}` no longer has (the code was written "
            f"for an older version)"))


class RemovedModule(types.ModuleType):
    """A submodule the installed version of its package no longer has (`torch._six`): its names are
    RemovedNames."""

    def __getattr__(self, attribute: str):
        if _is_special(attribute):
            raise AttributeError(attribute)
        return RemovedName(f"{self.__name__}.{attribute}")


def stand_in_removed(module: str, name: Optional[str]) -> str:
    """From now on in this process, `from module import name` succeeds with a RemovedName (with `name`
    None, `module` is a submodule that is gone: `import module` yields a RemovedModule); what the
    evidence says of it."""
    if name is None:
        removed = RemovedModule(module)
        removed.__path__ = []  # a package, so `from torch._six.x import y` finds nothing but a stand-in
        sys.modules[module] = removed
        parent, _, last = module.rpartition(".")
        if parent in sys.modules:
            setattr(sys.modules[parent], last, removed)
        return f"`{module}` is gone from the installed `{module.split('.')[0]}` (code written for an older version): " \
               f"a stand-in whose names fail when used"
    setattr(sys.modules[module], name, RemovedName(f"{module}.{name}"))
    return f"`{module}` of the installed `{module.split('.')[0]}` no longer has `{name}` (code written for an older " \
           f"version): a stand-in that fails when used"


class UnreadData(AbsentName):
    """What a reader of a data file returned, not read (its class's name is what a C function that
    rejects it names: `expected np.ndarray (got UnreadData)`)."""


class UnreadMapping(UnreadData):
    """What a reader of a file of named arrays returned, not read (`scio.loadmat(path)`): taking an
    array out of it by its name (`["label"]`) is no use yet, but gives that array, not read."""

    def __getitem__(self, key):
        if not isinstance(key, str):
            self._used()
        return unread_data(f"{self._qualified_name}[{key!r}]", self._line)


def unread_data(call: str, line: int, named_arrays: bool = False) -> AbsentName:
    """A stand-in for what a reader of a data file returns (`np.loadtxt(path)`): the file is not read,
    and the shape of what it holds is nowhere in the code; the run may reach the flagged line before
    the code uses it, and a use ends the run, unverified, saying so. `named_arrays`: a file of arrays by
    name (a MATLAB file), from which the code may take one before it uses it."""
    unread = (UnreadMapping if named_arrays else UnreadData)(call)
    object.__setattr__(unread, "_said", f"needs the data `{call}` reads at line {line}, which is not read")
    object.__setattr__(unread, "_line", line)
    return unread


def _absent_base(qualified_name: str, importer: Optional[str], failed: Optional[str]) -> type:
    """A base class standing for an absent one: a class can derive from it, and an object of it be made
    by the class's own `__init__` where that never calls the base's (a federated client's constructor
    that only keeps what it is given); what the base would give is a use: its `__init__` (also as the
    class's own, when it has none), and any attribute the object and its class do not have."""
    def used(*args, **kwargs):
        raise AbsentPackageUsed(qualified_name, importer, failed)

    def missing(self, attribute: str):
        if _is_special(attribute):
            raise AttributeError(attribute)
        raise AbsentPackageUsed(qualified_name, importer, failed)

    return type(qualified_name.rsplit(".", 1)[-1], (), {"__init__": used, "__getattr__": missing, ABSENT_BASE: True})


ABSENT_BASE = "_torchcopylint_absent_base"  # set on the classes `_absent_base` makes


# A registry's decorator, called on an absent registry or written on a class (`register_module`,
# `register_model`, `register`).
REGISTRATION = re.compile(r"^register(_\w+)?$")


def _pass_through(decorated):
    return decorated


class AbsentModule(types.ModuleType):
    """The module object a stand-in import yields: its attributes are AbsentNames."""

    def __getattr__(self, attribute: str):
        importer = self.__dict__.get("_importer")
        if attribute in _READ_AS_USE:
            raise AbsentPackageUsed(f"{self.__name__}.{attribute}", importer)
        if _is_special(attribute) or attribute == "_importer":
            raise AttributeError(attribute)  # `__all__` for `import *`, `__file__` for inspect
        return AbsentName(f"{self.__name__}.{attribute}", importer)


def stand_in_for(package: str, home: Optional[str] = None) -> None:
    """From now on in this process, `import package` (and its submodules) yields a stand-in.
    `home` is the flagged file: an import from any other file is named in the message."""
    finder = next((entry for entry in sys.meta_path if isinstance(entry, AbsentPackages)), None)
    if finder is None:
        finder = AbsentPackages()
        sys.meta_path.append(finder)  # last: asked only when no real finder has the module
    finder.names.add(package)
    if home is not None:
        finder.home = home


class AbsentPackages(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """A finder, last on sys.meta_path, that answers only for the packages named to it."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.home: Optional[str] = None

    def find_spec(self, fullname, path=None, target=None):
        if stood_in_name(fullname, self.names) is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        module = AbsentModule(spec.name)
        module.__dict__["_importer"] = importer_name(_importing_file(), self.home)
        return module

    def exec_module(self, module) -> None:
        module.__path__ = []  # a package, so `import scipy.misc` finds its submodule here too


def stood_in_name(fullname: str, names) -> Optional[str]:
    """The stand-in `fullname` is part of: a package (`scipy` for `scipy.misc`), or a module the project
    left out (`CLB_pack.models`, whose package is the project's own)."""
    return next((name for name in names if fullname == name or fullname.startswith(name + ".")), None)


def left_out_of_project(qualified_name: str) -> Optional[str]:
    """The left-out project module a stand-in's name is of (`CLB_pack.models` of `CLB_pack.models.resnet`)."""
    finder = next((entry for entry in sys.meta_path if isinstance(entry, AbsentPackages)), None)
    name = stood_in_name(qualified_name, finder.names) if finder is not None else None
    return name if name is not None and "." in name else None


class MissingImports(importlib.abc.MetaPathFinder):
    """Last on sys.meta_path: notes each top-level module an import asked for that no finder had (a
    package's own check, `try: __import__("yaml") except ImportError: missing.append(...)`, then
    `sys.exit(1)`, asks so without letting the ImportError out). It never finds anything itself."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def find_spec(self, fullname, path=None, target=None):
        if path is None and "." not in fullname:
            self.names.append(fullname)  # each time asked: a later import's own asks are told apart
        return None


def missing_imports() -> MissingImports:
    """The process's MissingImports finder, put last on sys.meta_path on first use."""
    finder = next((entry for entry in sys.meta_path if isinstance(entry, MissingImports)), None)
    if finder is None:
        finder = MissingImports()
        sys.meta_path.append(finder)
    return finder


def _importing_file() -> Optional[str]:
    """The file whose import statement is running: the innermost frame outside the import system."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not (in_import_system(filename) or filename == __file__):
            return filename
        frame = frame.f_back
    return None


# ------------------------------------------------------- import statements that fail otherwise


def stand_in_failed_imports(source: str, package: Optional[str] = None) -> tuple[str, dict]:
    """`source` with each import statement that fails here rewritten to bind stand-ins for the names
    it could not import (the names that do import stay imported); line numbers are kept. Returns the
    text and {name: the failed statement}. A stand-in raises AbsentPackageUsed, naming the statement,
    when the code uses it."""
    lines = source.splitlines(keepends=True)
    failed: dict[str, str] = {}
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        failing = [alias for alias in node.names if alias.name != "*" and not _importable(node, alias, package)]
        if not failing:
            continue
        kept = [alias for alias in node.names if alias not in failing]
        statement = ast.unparse(node)
        names = [(alias.asname or alias.name).split(".")[0] for alias in failing]
        failed.update({name: statement for name in names})
        first = node.lineno - 1
        indent = lines[first][:len(lines[first]) - len(lines[first].lstrip())]
        rebuilt = ast.unparse(type(node)(**{**node.__dict__, "names": kept})) + "; " if kept else ""
        bindings = "; ".join(f"{name} = __import__({__name__!r}).verify.absent.AbsentName({name!r}, None, "
                             f"{statement!r})" for name in dict.fromkeys(names))
        lines[first] = f"{indent}{rebuilt}{bindings}\n"
        for index in range(first + 1, node.end_lineno or node.lineno):
            lines[index] = "\n"
    return "".join(lines), failed


def _importable(node: ast.AST, alias: ast.alias, package: Optional[str]) -> bool:
    try:
        if isinstance(node, ast.Import):
            importlib.import_module(alias.name)
            return True
        if node.level and not package:
            return False  # relative, outside a package: it cannot import
        base = "." * node.level + (node.module or "")
        module = importlib.import_module(base, package if node.level else None)
        if not hasattr(module, alias.name):
            importlib.import_module(f"{module.__name__}.{alias.name}")
        return True
    except (Exception, AbsentPackageUsed):  # noqa: BLE001 - ImportError, or the package failing as it imports
        return False
