"""Build a runnable snippet from a module: the flagged function or class and what it depends on.

The snippet keeps the file's line numbers (statements left out become blank
lines), so tracebacks and line probes point at the user's real lines. The
script's other top-level statements (a training loop, `if __name__ == ...`)
are never included.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Target:
    """Where a line sits: the top-level class and method, or the top-level function."""

    class_name: Optional[str]
    function_name: Optional[str]  # the method or function containing the line; None at module level


def enclosing(tree: ast.Module, line: int) -> Target:
    for node in tree.body:
        if not (node.lineno <= line <= (node.end_lineno or node.lineno)):
            continue
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                        item.lineno <= line <= (item.end_lineno or item.lineno):
                    return Target(node.name, item.name)
            return Target(node.name, None)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return Target(None, node.name)
    return Target(None, None)


def without_later_definitions(source: str, line: int) -> str:
    """The file with the top-level definitions that redefine the one around `line` (a notebook's later
    cell that defines the class again, a script with two `class EWC`) blanked, line numbers kept: run
    as written, the last definition would be the one the experiment builds, and `line` would never run."""
    tree = ast.parse(source)
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    flagged = next((node for node in tree.body if isinstance(node, kinds)
                    and node.lineno <= line <= (node.end_lineno or node.lineno)), None)
    if flagged is None:
        return source
    later = [node for node in tree.body if isinstance(node, kinds) and node.name == flagged.name
             and node.lineno > (flagged.end_lineno or flagged.lineno)]
    if not later:
        return source
    lines = source.splitlines(keepends=True)
    for node in later:
        start = (node.decorator_list[0].lineno if node.decorator_list else node.lineno) - 1
        for index in range(start, node.end_lineno or node.lineno):
            lines[index] = "\n"
    return "".join(lines)


def _bound_names(node: ast.stmt) -> set[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    if isinstance(node, ast.Try):  # an import with a fallback: what either branch binds
        return {name for statement in (*node.body, *(s for h in node.handlers for s in h.body))
                if isinstance(statement, (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign))
                for name in _bound_names(statement)}
    names = set()
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    for target in targets:
        for sub in ast.walk(target) if target is not None else ():
            if isinstance(sub, ast.Name):
                names.add(sub.id)
    return names


def module_names_read(node: ast.AST, local: frozenset = frozenset()) -> set[str]:
    """The names `node` may read from the module: inside a function, not its parameters nor the
    names it assigns (a method's `x` is not the notebook's `x = batch[0]`, which may not run here)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        arguments = node.args
        outer = [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]
        if not isinstance(node, ast.Lambda):
            outer += [*node.decorator_list, *(a.annotation for a in (*arguments.posonlyargs, *arguments.args,
                                                                    *arguments.kwonlyargs) if a.annotation)]
        parameters = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                                      arguments.vararg, arguments.kwarg) if a is not None}
        body = node.body if isinstance(node.body, list) else [node.body]
        declared = {name for sub in ast.walk(node) if isinstance(sub, (ast.Global, ast.Nonlocal)) for name in sub.names}
        assigned = {sub.id for statement in body for sub in ast.walk(statement)
                    if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store)} - declared
        inner = local | parameters | assigned
        found = {name for expression in outer for name in module_names_read(expression, local)}
        return found | {name for statement in body for name in module_names_read(statement, frozenset(inner))}
    if isinstance(node, ast.Name):
        return set() if node.id in local else {node.id}
    return {name for child in ast.iter_child_nodes(node) for name in module_names_read(child, local)}


def _is_definition(node: ast.stmt) -> bool:
    """Statements a snippet may carry: imports, defs, classes and plain assignments of constants."""
    if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return True
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and getattr(node, "value", None) is not None:
        # No calls: `NZ = 100`, `SHAPES = (1, 2)` yes; `model = Net()`, `data = load()` no.
        return not any(isinstance(sub, (ast.Call, ast.Await, ast.Yield)) for sub in ast.walk(node.value))
    return False


def _definitions(body: list) -> list:
    """Top-level definitions, looking inside `try:`/`if` blocks that only guard imports."""
    found = []
    for node in body:
        if isinstance(node, ast.Try) and _is_import_fallback(node):
            found.append(node)  # kept whole: when the package is missing, the fallback runs as in the project
        elif isinstance(node, ast.Try):
            found.extend(n for n in _definitions(node.body) if isinstance(n, (ast.Import, ast.ImportFrom)))
        elif isinstance(node, ast.If):
            # Also a main guard's (`import argparse` above its parser, which a function's experiment may
            # run for the arguments the guard's call passes): kept only where a kept statement reads them.
            found.extend(n for n in _definitions(node.body) if isinstance(n, (ast.Import, ast.ImportFrom)))
        elif _is_definition(node):
            found.append(node)
    return found


def _is_import_fallback(node: ast.Try) -> bool:
    """`try: import apex` / `except ImportError: apex = None`: imports guarded by a handler for
    ImportError (or any exception) that binds a fallback, with nothing else in either branch."""
    simple = (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign, ast.Pass, ast.Expr)
    catches = all(handler.type is None or any(isinstance(name, ast.Name) and name.id in (
        "ImportError", "ModuleNotFoundError", "Exception") for name in ast.walk(handler.type))
        for handler in node.handlers)
    return bool(node.handlers) and catches and not node.finalbody and not node.orelse and \
        any(isinstance(statement, (ast.Import, ast.ImportFrom)) for statement in node.body) and \
        all(isinstance(statement, simple) for statement in (*node.body, *(s for h in node.handlers for s in h.body)))


def snippet_source(source: str, roots: set[str]) -> str:
    """The module's text with only the definitions `roots` need (transitively); line numbers kept."""
    tree = ast.parse(source)
    definitions = _definitions(tree.body)
    by_name: dict[str, list] = {}
    for node in definitions:
        for name in _bound_names(node):
            by_name.setdefault(name, []).append(node)
    keep: set[int] = set()
    pending = list(roots)
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        for node in by_name.get(name, ()):
            if id(node) not in keep:
                keep.add(id(node))
                pending.extend(module_names_read(node))
    lines = source.splitlines(keepends=True)
    kept = [""] * len(lines)
    for node in definitions:
        is_future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
        # `from utils import *` binds names nobody can list without running it: always kept.
        is_star = isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)
        if id(node) in keep or is_future or is_star:
            start = (node.decorator_list[0].lineno if getattr(node, "decorator_list", None) else node.lineno) - 1
            indent = len(lines[start]) - len(lines[start].lstrip())
            for index in range(start, node.end_lineno or node.lineno):
                # Imports from inside a try/if block are lifted to column 0.
                kept[index] = lines[index][indent:] if indent else lines[index]
    return "".join(line if line else "\n" for line in kept)


@dataclass(frozen=True)
class FileClass:
    """A class of the file given to a constructor (`ResNet(BasicBlock, [2, 2, 2, 2])`), by name: the
    class itself is the one the run loaded (`resolved`)."""

    name: str

    def __repr__(self) -> str:
        return self.name


def resolved(value, owner: type):
    """The value a constructor is called with: a FileClass becomes the class of `owner`'s module."""
    if isinstance(value, FileClass):
        return getattr(sys.modules[owner.__module__], value.name)
    return value


def literal_calls(source: str, class_name: str) -> list[tuple[list, dict]]:
    """Arguments of every `ClassName(...)` call in the file whose arguments are all literals or
    classes the file defines (as FileClass); at the top level (a main guard's too), also names the
    module binds once, to a literal (`layers = [1, 64, 64, 3]`, then `PINN = FCN(layers)`)."""
    tree = ast.parse(source)
    classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    top_level_calls = {id(node) for statement in _top_level_statements(tree.body) for node in _walk_outside_definitions(statement)
                       if isinstance(node, ast.Call)}
    constants = _module_constants(tree)

    def value(node: ast.AST, top_level: bool):
        if isinstance(node, ast.Name) and node.id in classes:
            return FileClass(node.id)
        if top_level and isinstance(node, ast.Name) and node.id in constants:
            return constants[node.id]
        return ast.literal_eval(node)

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == class_name:
            top_level = id(node) in top_level_calls
            try:
                args = [value(arg, top_level) for arg in node.args]
                kwargs = {kw.arg: value(kw.value, top_level) for kw in node.keywords if kw.arg}
            except (ValueError, SyntaxError):
                continue
            if (args, kwargs) not in found:
                found.append((args, kwargs))
    return found


def literal_keywords(source: str, class_name: str) -> list[dict]:
    """The literal keyword arguments of each call of the class in a file that imports its module
    (`blocks.ResidualBlock(out_ch, kernel_size=3, padding=1)` -> {"kernel_size": 3, "padding": 1});
    its arguments that are not literals are left out, and a call with no literal keyword is not listed."""
    found: list[dict] = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and (isinstance(node.func, ast.Name) and node.func.id == class_name or
                                                isinstance(node.func, ast.Attribute) and node.func.attr == class_name)):
            continue
        keywords = {}
        for keyword in node.keywords:
            try:
                if keyword.arg:
                    keywords[keyword.arg] = ast.literal_eval(keyword.value)
            except (ValueError, SyntaxError):
                continue
        if keywords and keywords not in found:
            found.append(keywords)
    return found


def _top_level_statements(body: list) -> list:
    """The module's statements, with those of its `if` blocks (a main guard's, a flag's)."""
    found = []
    for node in body:
        found.append(node)
        if isinstance(node, ast.If):
            found += _top_level_statements(node.body) + _top_level_statements(node.orelse)
    return found


def _walk_outside_definitions(node: ast.AST):
    """The nodes of a top-level statement, not those of the functions and classes it defines."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
        return
    yield node
    if isinstance(node, ast.If):
        yield from _walk_outside_definitions(node.test)  # (its body's statements are listed on their own)
        return
    for child in ast.iter_child_nodes(node):
        yield from _walk_outside_definitions(child)


def _module_constants(tree: ast.Module) -> dict:
    """Names the module's top level binds exactly once, to a literal, and nothing else binds at that level."""
    values: dict = {}
    counts: dict = {}
    for statement in _top_level_statements(tree.body):
        for node in _walk_outside_definitions(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                counts[node.id] = counts.get(node.id, 0) + 1
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            try:
                values[statement.targets[0].id] = ast.literal_eval(statement.value)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                pass
    return {name: value for name, value in values.items() if counts.get(name) == 1}


def classes_given_to(source: str, class_name: Optional[str]) -> tuple[str, ...]:
    """The file's classes its calls of `class_name` are given (`ResNet(BasicBlock, ...)`): loaded with
    it, so that a configuration found in the file can be built."""
    if class_name is None:
        return ()
    given = [value.name for args, kwargs in literal_calls(source, class_name) for value in [*args, *kwargs.values()]
             if isinstance(value, FileClass)]
    return tuple(dict.fromkeys(given))


def class_built_for(source: str, key: str) -> Optional[str]:
    """The class a module name is built from: `netG = Generator(...)` / `self.G = Generator(...)` -> "Generator"."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or not isinstance(getattr(node, "value", None), ast.Call):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            if ast.unparse(target) == key:
                func = node.value.func
                # `Generator(...).to(device)` / `.apply(weights_init)`: look through the chain.
                while isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
                    func = func.value.func
                if isinstance(func, ast.Name):
                    return func.id
    return None


def callers_without_arguments(source: str, function_name: str) -> list[str]:
    """Top-level functions that take no required argument and call `function_name` (e.g. `main()`)."""
    found = []
    for node in ast.parse(source).body:
        if not isinstance(node, ast.FunctionDef) or node.name == function_name:
            continue
        arguments = node.args
        required = len(arguments.posonlyargs) + len(arguments.args) - len(arguments.defaults)
        required += sum(1 for default in arguments.kw_defaults if default is None)
        if required:
            continue
        if any(isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == function_name
               for sub in ast.walk(node)):
            found.append(node.name)
    return found


@dataclass(frozen=True)
class Caller:
    """A place in the file that calls the flagged function: the line of the call, and who calls."""

    line: int
    name: str  # the calling function or method (`Class.method`); "" for a top-level statement
    # The calling function takes arguments (beyond `self`): a helper, run on stand-ins of them. One
    # that takes none is a program (`main()`, `train(self)`): it may read data or train, so it is not run.
    takes_arguments: bool = True

    @property
    def description(self) -> str:
        return f"`{self.name}()` at line {self.line}" if self.name else f"the top-level call at line {self.line}"


def callers_in_file(source: str, target: Target, limit: int = 4) -> list[Caller]:
    """The calls of the function or method holding a line from elsewhere in the file, one per
    calling function (or top-level statement), in file order: `snapshot(v)` for a function,
    `self.snapshot(v)` in the same class for a method. Calls from the function itself are left out."""
    if target.function_name is None:
        return []
    tree = ast.parse(source)
    found: list[Caller] = []
    seen: set = set()
    guarded: set = set()
    for node in tree.body:
        if target.class_name is not None and not (isinstance(node, ast.ClassDef) and node.name == target.class_name):
            continue  # `self.method(...)` is the flagged method only inside its own class
        for caller_name, scope in _scopes(node):
            if (target.class_name, target.function_name) == _scope_key(node, caller_name):
                continue
            for call in ast.walk(scope):
                if not isinstance(call, ast.Call) or not _calls(call.func, target):
                    continue
                key = caller_name or call.lineno
                if key in seen:
                    continue
                seen.add(key)
                found.append(Caller(call.lineno, caller_name, _takes_arguments(scope)))
                if not caller_name and not isinstance(scope, SIMPLE_STATEMENTS):
                    guarded.add(call.lineno)
    # A top-level call inside a loop or a branch (`if step % 400 == 0: show(target)`) may not run in
    # the experiment's cut of it: the plain statements' calls come first.
    found.sort(key=lambda caller: (caller.line in guarded, caller.line))
    return found[:limit]


SIMPLE_STATEMENTS = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign)


def _takes_arguments(scope: ast.AST) -> bool:
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return True  # a top-level statement runs through its backward slice only
    arguments = scope.args
    names = [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
    return bool([name for name in names if name not in ("self", "cls")] or arguments.vararg or arguments.kwarg)


def _scopes(node: ast.stmt):
    """(name, node) for a top-level function, each method of a class, or a top-level statement."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        yield node.name, node
    elif isinstance(node, ast.ClassDef):
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield f"{node.name}.{item.name}", item
    else:
        yield "", node


def _scope_key(node: ast.stmt, caller_name: str) -> tuple:
    if isinstance(node, ast.ClassDef):
        return node.name, caller_name.split(".", 1)[1]
    return None, caller_name or None


def _calls(func: ast.AST, target: Target) -> bool:
    if target.class_name is None:
        return isinstance(func, ast.Name) and func.id == target.function_name
    return isinstance(func, ast.Attribute) and func.attr == target.function_name and \
        isinstance(func.value, ast.Name) and func.value.id == "self"
