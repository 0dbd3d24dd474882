"""No import cycles inside `torchcopylint/` (DESIGN.md section 2: lower layers never import higher ones).

The graph is read statically from every module's source, so it sees what a run may never execute:

- every `import` and `from ... import` statement counts, wherever it stands: at the top, inside a
  function (a lazy import that breaks a cycle at run time is still a dependency of the lower
  layer on the higher one), and under `if TYPE_CHECKING:` (an annotation that names a higher
  layer's class is a dependency too: the lower layer cannot be read, type-checked or moved
  without the higher one);
- `from package import name` is an edge to `package.name` when that is a module of the package,
  else to the package's `__init__`; relative imports are resolved against the importing module;
- `importlib.import_module("torchcopylint.x")` with a literal name counts, and so does
  `importlib.import_module(f"{__name__}.{name}")` (a package loading one of its modules by name:
  an edge to each module directly in the package); any other computed name is not followed;
- importing `a.b.c` loads the packages `a` and `a.b` first, but that implicit load is not an edge:
  a package's `__init__` is a module like any other, and it may import its submodules.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = "torchcopylint"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE


def _modules(root: Path) -> dict[str, Path]:
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _is_package(name: str, modules: dict[str, Path]) -> bool:
    return modules[name].name == "__init__.py"


def _absolute(module: str, level: int, target: str | None, modules: dict[str, Path]) -> str:
    """The absolute name `from <dots><target> import ...` refers to, in `module`."""
    if level == 0:
        return target or ""
    base = module.split(".")
    if not _is_package(module, modules):
        base = base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def imports_of(module: str, modules: dict[str, Path]) -> set[str]:
    """The package's modules that `module` imports, anywhere in its source."""
    tree = ast.parse(modules[module].read_text(encoding="utf-8"), filename=str(modules[module]))
    edges: set[str] = set()

    def add(name: str) -> None:
        # `import torchcopylint.analysis.facts` -> that module; a name that is not a module of
        # the package (a class, a function) -> the closest enclosing module.
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name.startswith(PACKAGE) and name != module:
            edges.add(name)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, node.level, node.module, modules)
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                add(submodule if submodule in modules else source)
        elif isinstance(node, ast.Call) and _is_import_module(node.func) and node.args:
            name = node.args[0]
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                add(name.value)
            elif _spells_a_module_of(name) and _is_package(module, modules):
                for other in modules:
                    if other.rpartition(".")[0] == module:
                        add(other)
    return edges


def _spells_a_module_of(name: ast.expr) -> bool:
    """`f"{__name__}.{something}"`: one of the package's own modules."""
    return isinstance(name, ast.JoinedStr) and len(name.values) >= 2 \
        and isinstance(name.values[0], ast.FormattedValue) and isinstance(name.values[0].value, ast.Name) \
        and name.values[0].value.id == "__name__" and isinstance(name.values[1], ast.Constant) \
        and str(name.values[1].value).startswith(".")


def _is_import_module(func: ast.expr) -> bool:
    return (isinstance(func, ast.Attribute) and func.attr == "import_module"
            and isinstance(func.value, ast.Name) and func.value.id == "importlib") or \
        (isinstance(func, ast.Name) and func.id == "import_module")


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    modules = _modules(root)
    return {module: imports_of(module, modules) for module in modules}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph.get(node, ())):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _path_through(component: list[str], graph: dict[str, set[str]]) -> str:
    """One closed path through a cycle, for the failure message: a -> b -> a."""
    members = set(component)
    start = component[0]
    path = [start]
    seen = {start}
    node = start
    while True:
        successors = sorted(graph[node] & members)
        if start in successors and len(path) > 1:
            return " -> ".join(path + [start])
        following = next((s for s in successors if s not in seen), None)
        if following is None:
            return " -> ".join(path + [successors[0]])
        path.append(following)
        seen.add(following)
        node = following


def test_the_package_has_no_import_cycle():
    graph = import_graph()
    found = cycles(graph)
    assert not found, "import cycles inside torchcopylint/:\n" + "\n".join(
        f"  {_path_through(component, graph)}" for component in found)


def test_analysis_never_imports_a_higher_layer():
    """analysis/ is read by rules, the engine and the reporters; it never reads them."""
    higher = ("torchcopylint.rules", "torchcopylint.engine", "torchcopylint.report", "torchcopylint.cli",
              "torchcopylint.verify", "torchcopylint.fix")
    graph = import_graph()
    wrong = sorted(f"{module} imports {target}" for module, targets in graph.items()
                   if module.startswith("torchcopylint.analysis") for target in targets
                   if target.startswith(higher))
    assert not wrong, "\n".join(wrong)


def test_rules_never_import_each_other():
    """A fact two rules need belongs in analysis/: a rule reads only analysis/ and the rule base."""
    shared = ("torchcopylint.rules.base", "torchcopylint.rules.edits")
    graph = import_graph()
    wrong = sorted(f"{module} imports {target}" for module, targets in graph.items()
                   if module.startswith("torchcopylint.rules.") and module not in shared
                   for target in targets if target.startswith("torchcopylint.rules.") and target not in shared)
    assert not wrong, "\n".join(wrong)


# --- the reader itself: it must see each kind of import, or the tests above prove nothing ------


def _graph_of(tmp_path: Path, files: dict[str, str]) -> dict[str, set[str]]:
    package = tmp_path / PACKAGE
    for name, text in files.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return import_graph(package)


@pytest.mark.parametrize("spelling", [
    "from torchcopylint.low import thing\n",
    "import torchcopylint.low\n",
    "from torchcopylint import low\n",
    "from . import low\n",
    "from .low import thing\n",
    "def f():\n    from torchcopylint.low import thing\n",
    "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from torchcopylint.low import Thing\n",
    "import importlib\nmodule = importlib.import_module('torchcopylint.low')\n",
])
def test_every_spelling_of_an_import_is_an_edge(tmp_path, spelling):
    graph = _graph_of(tmp_path, {"__init__.py": "", "low.py": "from torchcopylint.high import x\n",
                                 "high.py": spelling})
    assert graph["torchcopylint.high"] == {"torchcopylint.low"}
    assert cycles(graph) == [["torchcopylint.high", "torchcopylint.low"]]


def test_a_package_loading_its_modules_by_name_is_an_edge_to_each(tmp_path):
    graph = _graph_of(tmp_path, {"__init__.py": "", "sub/__init__.py":
                                 "import importlib\ndef load(n):\n    return importlib.import_module(f'{__name__}.{n}')\n",
                                 "sub/a.py": "from torchcopylint.sub import helper\n", "sub/b.py": "B = 1\n"})
    assert graph["torchcopylint.sub"] == {"torchcopylint.sub.a", "torchcopylint.sub.b"}
    assert cycles(graph) == [["torchcopylint.sub", "torchcopylint.sub.a"]]


def test_a_package_importing_its_modules_is_not_a_cycle_by_itself(tmp_path):
    graph = _graph_of(tmp_path, {"__init__.py": "", "sub/__init__.py": "from .a import A\n",
                                 "sub/a.py": "from torchcopylint.sub.b import B\n", "sub/b.py": "B = 1\n"})
    assert graph["torchcopylint.sub"] == {"torchcopylint.sub.a"}
    assert graph["torchcopylint.sub.a"] == {"torchcopylint.sub.b"}
    assert cycles(graph) == []
