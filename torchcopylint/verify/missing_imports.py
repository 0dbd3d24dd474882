"""Load a snippet whose imports partly fail, for code that runs on stand-ins.

Runs in the verification child process. A trainer whose networks come from a
package that is not installed can still run its step code on stand-in networks:
the names whose import failed are left out (bound to an object that names the
failed import if the code does use one), the others are imported as written.
"""

from __future__ import annotations

import ast
import importlib
from typing import Callable

from torchcopylint.verify.inputs import CannotRun


class NotImported:
    """Stands for a name whose import failed: any use says which import, instead of a `None` error."""

    def __init__(self, name: str, statement: str):
        self._name = name
        self._statement = statement

    def _fail(self, *args, **kwargs):
        raise ImportError(f"`{self._name}` is needed, and `{self._statement}` failed")

    __call__ = _fail

    def __getattr__(self, attribute):
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        self._fail()


def load_without_missing_imports(source: str, path: str, roots: set[str], load: Callable[..., dict]) -> dict:
    """`load(source, path, roots)`, and if an import fails, again without the names that fail to import.

    For running a method whose instance is made of stand-ins: the classes its `__init__` would have
    built come from a package that is not there, and what runs may not need them. A name whose
    import failed raises an ImportError naming that import when the code does use it.
    """
    try:
        return load(source, path, roots)
    except CannotRun as reason:
        if "import" not in str(reason):
            raise
    lines = source.splitlines(keepends=True)
    missing: dict[str, str] = {}
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        failing = [alias for alias in node.names if alias.name != "*" and not _importable(node, alias)]
        if not failing:
            continue
        kept = [alias for alias in node.names if alias not in failing]
        names = [(alias.asname or alias.name).split(".")[0] for alias in failing]
        statement = ast.unparse(node)
        missing.update({name: statement for name in names})
        first = node.lineno - 1
        indent = lines[first][:len(lines[first]) - len(lines[first].lstrip())]
        # The names that import stay imported; the others are bound to None, on the statement's first line.
        rebuilt = ast.unparse(type(node)(**{**node.__dict__, "names": kept})) + "; " if kept else ""
        lines[first] = f"{indent}{rebuilt}{' = '.join(names)} = None\n"
        for index in range(first + 1, node.end_lineno or node.lineno):
            lines[index] = "\n"
    namespace = load("".join(lines), path, roots)
    for name, statement in missing.items():
        if name in namespace and namespace[name] is None:
            namespace[name] = NotImported(name, statement)
    return namespace


def _importable(node: ast.AST, alias: ast.alias) -> bool:
    try:
        if isinstance(node, ast.Import):
            importlib.import_module(alias.name)
            return True
        if node.level:
            return False  # relative: the import context decides, and it already failed
        module = importlib.import_module(node.module or "")
        if not hasattr(module, alias.name):
            importlib.import_module(f"{node.module}.{alias.name}")
        return True
    except Exception:  # noqa: BLE001 - ImportError, or the package failing as it imports
        return False
