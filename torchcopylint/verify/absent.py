"""Stand-ins for packages that are not installed, so code that imports but never uses them can run.

Research code often imports, at the top of a shared `utils.py`, packages that the
flagged code never touches (`scipy.misc`, `imageio`, a logger). Python would stop
at the import; the verifier first tries exactly that, and only when the import of a
package that is nowhere on the import path fails does it run the code again with a
stand-in for that package. The stand-in imports, and any attribute of it can be
named (`from torchvision import datasets`), but using one (calling it, iterating,
subclassing, testing its truth, ...) raises AbsentPackageUsed, a BaseException, so
the code under test cannot catch it with `except Exception` and carry on: the
verdict is then `unverified`, naming the package. A verdict reached with a stand-in
installed comes from code that never used it.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types


class AbsentPackageUsed(BaseException):
    """The code used something from a package that is not installed."""

    def __init__(self, qualified_name: str) -> None:
        package = qualified_name.split(".")[0]
        super().__init__(f"needs `{package}`, which is not installed (the code used `{qualified_name}`)")


# Special attributes that code reads to use a value (`opt.__name__`, a version check); any other
# special attribute is absent, as it is on a plain object, so that copy, inspect, numpy and
# torch probing a value (`__deepcopy__`, `__wrapped__`, `__array__`, `__torch_function__`) see one.
_READ_AS_USE = frozenset({"__name__", "__qualname__", "__version__"})


def _is_special(attribute: str) -> bool:
    return attribute.startswith("__") and attribute.endswith("__")


class AbsentName:
    """Any name reached from an absent package: naming it is fine, using it raises."""

    def __init__(self, qualified_name: str) -> None:
        object.__setattr__(self, "_qualified_name", qualified_name)

    def __getattr__(self, attribute: str):
        if attribute in _READ_AS_USE:
            raise AbsentPackageUsed(f"{self._qualified_name}.{attribute}")
        if _is_special(attribute):
            raise AttributeError(attribute)
        return AbsentName(f"{self._qualified_name}.{attribute}")

    def _used(self, *args, **kwargs):
        raise AbsentPackageUsed(self._qualified_name)

    # Every way of using a value rather than naming it.
    __call__ = __iter__ = __next__ = __len__ = __bool__ = __contains__ = _used
    __getitem__ = __setitem__ = __delitem__ = __setattr__ = __enter__ = __exit__ = _used
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _used
    __matmul__ = __rmatmul__ = __pow__ = __neg__ = __lt__ = __le__ = __gt__ = __ge__ = _used
    __int__ = __float__ = __index__ = __str__ = __format__ = _used
    __mro_entries__ = __instancecheck__ = __subclasscheck__ = _used  # class Net(absent.Base), isinstance

    def __repr__(self) -> str:
        return f"<not installed: {self._qualified_name}>"


class AbsentModule(types.ModuleType):
    """The module object a stand-in import yields: its attributes are AbsentNames."""

    def __getattr__(self, attribute: str):
        if attribute in _READ_AS_USE:
            raise AbsentPackageUsed(f"{self.__name__}.{attribute}")
        if _is_special(attribute):
            raise AttributeError(attribute)  # `__all__` for `import *`, `__file__` for inspect
        return AbsentName(f"{self.__name__}.{attribute}")


def stand_in_for(package: str) -> None:
    """From now on in this process, `import package` (and its submodules) yields a stand-in."""
    finder = next((entry for entry in sys.meta_path if isinstance(entry, AbsentPackages)), None)
    if finder is None:
        finder = AbsentPackages()
        sys.meta_path.append(finder)  # last: asked only when no real finder has the module
    finder.names.add(package)


class AbsentPackages(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """A finder, last on sys.meta_path, that answers only for the packages named to it."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] not in self.names:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        return AbsentModule(spec.name)

    def exec_module(self, module) -> None:
        module.__path__ = []  # a package, so `import scipy.misc` finds its submodule here too
