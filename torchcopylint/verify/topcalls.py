"""Arguments from a top-level call site: a script's function run with what its top-level call passes.

Runs in the verification child process (the finding is static: the syntax tree only). A notebook or
a script defines `train(model, device, train_loader, optimizer, epoch)` and calls it from its epoch
loop at the top level, with the network, the optimizer and the loader the top level built. Those
are what the function really receives: the experiment runs it with them, built by the slice of the
top level that defines them (verify/script.py `function_text`, with the loader on stand-in batches,
verify/datasites.py), never by running the loop around the call:

- the loop's own targets (`epoch`, `for x, y in loader`) take the first value of the loop's
  iterable (`range(1, args.epochs + 1)` -> 1, a stand-in loader -> its first batch);
- simple assignments in the loop before the call (`real = data.to(device)`) run, in order, once;
- an argument that still cannot be made (a name no statement the experiment may run binds) is left
  to the stand-ins from use (verify/standins.py), and the evidence says which.

Calls in the module's body (or its main guard, or loops and branches there) come first; then calls
in the module's program functions (`def main():`, which take no arguments), whose body before the
call is read as a top level's: of it, only the assignments the arguments need run (plain ones, once).
A call in any other function is not a call site.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import functools
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import torch
from torch import nn

from torchcopylint.verify.absent import AbsentPackageUsed
from torchcopylint.verify.datasites import DATA_HELPER, FILE_READING_CALLS, rewrite_data

_BUILTINS = frozenset(dir(builtins))
_BLOCKS = (ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.AsyncWith, ast.Try)


@dataclass(frozen=True)
class TopLevelCall:
    """One top-level call of the function: its arguments by parameter, and how to make the loop names they read."""

    line: int
    arguments: tuple  # (parameter name, expression text), in the call's order
    loops: tuple      # (target text, iterable text) of the loops around the call, outermost first
    before: tuple     # (target names, statement text, line, runnable) of the loops' assignments before the call
    reads: frozenset  # the module-level names all of those read
    path: str = ""    # the file the call is in, when not the function's own (`source` is its text)
    source: str = ""
    avoided: frozenset = frozenset()  # there, the names it imports from the function's module
    cells: tuple = ()  # for a notebook, (first line, line count, number) of each code cell of `source`
    caller: str = ""  # the program function (`main()`) whose body makes the call; "" for the module's body

    @property
    def where(self) -> str:
        return self.place(self.line) if self.path else f"line {self.line}"

    @property
    def described(self) -> str:
        """`the top-level call at line 12`, `the call in `main()` at line 40`."""
        return f"the call in `{self.caller}()` at {self.where}" if self.caller else f"the top-level call at {self.where}"

    def place(self, line: int) -> str:
        """Where line `line` of `source` is, in its file: `main.py, line 12`, `demo.ipynb, cell 4, line 2`."""
        name = Path(self.path).name
        cell = next(((first, number) for first, count, number in self.cells if first <= line < first + count), None)
        return f"{name}, cell {cell[1]}, line {line - cell[0] + 1}" if cell else f"{name}, line {line}"

    def loop_names(self) -> set[str]:
        names = set()
        for target, _ in self.loops:
            names |= {node.id for node in ast.walk(ast.parse(target, mode="eval")) if isinstance(node, ast.Name)}
        for bound, *_ in self.before:
            names |= set(bound)
        return names


@functools.lru_cache(maxsize=32)
def top_level_calls(source: str, function_name: str, defined_in: Optional[str] = None,
                    called_as: Optional[str] = None) -> tuple:
    """The top-level calls of `function_name` (a module-level function, or a class: the calls that build
    it, by its own `__init__`) in `source`, in file order; with `defined_in`, the function is that
    source's and `source` calls it by the name `called_as`."""
    try:
        tree = ast.parse(source)
        definition = _definition(ast.parse(defined_in) if defined_in is not None else tree, function_name)
    except SyntaxError:
        return ()
    if definition is None:
        return ()
    called_as = called_as or function_name
    makers = _data_makers(tree) | _loader_makers(tree, source)
    namespaces = _namespace_dicts(tree)  # `kwargs = vars(args)`, then `train(**kwargs)`
    found = [_site(call, definition, loops, before, called_as, namespaces=namespaces)
             for call, loops, before in _calls_in(tree.body, called_as, (), (), makers=makers)]
    # Then the calls in the module's program functions (`def main():`, which take nothing): the body
    # before the call makes what it passes (`x = torch.randn(..., requires_grad=True)`); only the
    # assignments its arguments need run, once, and those that call a function of the file never.
    for program in tree.body:
        if not isinstance(program, (ast.FunctionDef, ast.AsyncFunctionDef)) or program.name == called_as \
                or _required_parameters(program) or program is definition:
            continue
        local = _bound_in(program)
        for call, loops, before in _calls_in(program.body, called_as, (), (), everywhere=True, makers=makers):
            needed = _needed(call, loops, _on_stand_in_data(before, source))
            site = _site(call, definition, loops, needed, called_as, local, program.name, namespaces)
            found.append(site)
    return tuple(site for site in found if site is not None)


def _on_stand_in_data(before: tuple, source: str) -> tuple:
    """The assignments of a program function's body that make a dataset or a loader over one
    (`train_loader = DataLoader(datasets.MNIST(...), batch_size=64)` in `main()`): as the experiment's
    code has them, on stand-in data (verify/datasites.py), runnable; the others as they are."""
    if not before:
        return before
    rewritten = rewrite_data(source)
    first_lines = {site.line: site for site in rewritten.sites if site.kind in ("dataset", "loader")}
    if not first_lines:
        return before
    lines = rewritten.text.splitlines()
    replaced = []
    for bound, text, line, runnable in before:
        site = first_lines.get(line)
        if site is not None and set(bound) == {name.strip() for name in site.target.split(",")}:
            statement = textwrap.dedent("\n".join(lines[line - 1:site.end_line])).strip()
            try:
                ast.parse(statement)
            except SyntaxError:
                statement = None
            if statement is not None:
                replaced.append((bound, statement, line, True))
                continue
        replaced.append((bound, text, line, runnable))
    return tuple(replaced)


def _site(call: ast.Call, definition: ast.FunctionDef, loops: tuple, before: tuple, called_as: str,
          local: frozenset = frozenset(), caller: str = "", namespaces: Optional[dict] = None) -> Optional[TopLevelCall]:
    arguments = _arguments(call, definition, namespaces)
    if arguments is None:
        return None
    reads = set()
    for _, text in arguments:
        reads |= _names(text)
    for _, iterable in loops:
        reads |= _names(iterable)
    for _, text, _, runnable in before:
        if runnable:
            reads |= _names(text)
    site = TopLevelCall(call.lineno, tuple(arguments), tuple(loops), tuple(before), frozenset(), caller=caller)
    reads -= site.loop_names() | _BUILTINS | {called_as} | local
    return dataclasses.replace(site, reads=frozenset(reads))


@functools.lru_cache(maxsize=32)
def method_call_site(constructor: TopLevelCall, class_source: str, class_name: str,
                     method: str) -> Optional[TopLevelCall]:
    """The first top-level call of `method` on the object the call `constructor` builds, after it:
    `trainer.train(loader)` after `trainer = Trainer(config)`, or `train(model_name, G, D)` after
    `train = GANtrain(lr)` for `__call__`; None when the object is not bound to a plain name there,
    or no such call follows (a name bound again before it is another object)."""
    source = constructor.source or class_source
    try:
        tree, definition = ast.parse(source), _method_without_self(ast.parse(class_source), class_name, method)
    except SyntaxError:
        return None
    if definition is None:
        return None
    instance = next((node.targets[0].id for node in ast.walk(tree) if isinstance(node, ast.Assign)
                     and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                     and isinstance(node.value, ast.Call) and node.value.lineno == constructor.line), None)
    if instance is None:
        return None
    rebound = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Name)
               and isinstance(node.ctx, ast.Store) and node.id == instance and node.lineno > constructor.line]
    called_as = instance if method == "__call__" else f"{instance}.{method}"
    for call, loops, before in _calls_in(tree.body, called_as, (), ()):
        if call.lineno > constructor.line and not any(line <= call.lineno for line in rebound):
            site = _site(call, definition, loops, before, called_as)
            if site is not None:
                return dataclasses.replace(site, path=constructor.path, source=constructor.source,
                                           avoided=constructor.avoided, cells=constructor.cells)
    return None


def _callee(node: ast.expr) -> Optional[str]:
    """`train`, `trainer.train`: what a call calls, where it is a name or a name's attribute."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


def called_in(source: str, name: str) -> bool:
    """Does the code call `name` anywhere (`name(...)`, `self.name(...)`, `obj.name(...)`), in a function or not?"""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    return any(isinstance(node, ast.Call) and (isinstance(node.func, ast.Name) and node.func.id == name or
                                               isinstance(node.func, ast.Attribute) and node.func.attr == name)
               for node in ast.walk(tree))


def _required_parameters(function: ast.FunctionDef) -> bool:
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    return len(positional) > len(arguments.defaults) or \
        any(default is None for default in arguments.kw_defaults)


def _bound_in(function: ast.FunctionDef) -> frozenset:
    """The names the function's body binds (its locals, but for those it declares global)."""
    declared = {name for node in ast.walk(function) if isinstance(node, (ast.Global, ast.Nonlocal))
                for name in node.names}
    bound = {node.id for node in ast.walk(function) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    bound |= {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
    return frozenset(bound - declared)


def _needed(call: ast.Call, loops: tuple, before: tuple) -> tuple:
    """The assignments of `before` that the call's arguments (and its loops' iterables) need, in order:
    the backward slice, so that nothing else of the program (its data, its training) runs."""
    wanted = _names(ast.unparse(call))
    for _, iterable in loops:
        wanted |= _names(iterable)
    kept = []
    for entry in reversed(before):
        bound, text, _, _ = entry
        if wanted & set(bound) or not bound and _receiver(ast.parse(text).body[0]) in wanted:
            kept.append(entry)  # what binds a name it reads, or changes one (`parser.add_argument(...)`)
            wanted |= _names(text)
    return tuple(reversed(kept))


@functools.lru_cache(maxsize=32)
def calls_from_importer(source: str, path: str, defined_in: str, function_name: str, modules: frozenset,
                        cells: tuple = ()) -> tuple:
    """The top-level calls in another file (`source`, at `path`; a notebook's code cells as one module,
    `cells` where each is) of the function `function_name` of a module named one of `modules` (whose
    text is `defined_in`), which it imports by name (`from train import fit`, `from .train import fit as run`);
    each knows its file."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ()
    imported = _imported_names(tree, modules, star=function_name if _star_exports(defined_in, function_name) else None)
    local = imported.get(function_name)
    if local is None:
        return ()
    return tuple(dataclasses.replace(site, path=path, source=source, avoided=frozenset(imported.values()),
                                     cells=tuple(cells))
                 for site in top_level_calls(source, function_name, defined_in, local) if site.arguments)


def _star_exports(defined_in: str, name: str) -> bool:
    """Does `from module import *` bind `name` (public, and in the module's `__all__` where it has one)?"""
    if name.startswith("_"):
        return False
    try:
        tree = ast.parse(defined_in)
    except SyntaxError:
        return False
    listed = [node.value for node in tree.body if isinstance(node, ast.Assign)
              and any(isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets)]
    return not listed or any(isinstance(value, (ast.List, ast.Tuple)) and any(
        isinstance(item, ast.Constant) and item.value == name for item in value.elts) for value in listed)


def _imported_names(tree: ast.Module, modules: frozenset, star: Optional[str] = None) -> dict:
    """name -> the local name it is bound to, for what `tree` imports from one of `modules`; with
    `star`, that name too where the import is `from module import *`."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "") in modules:
            for alias in node.names:
                if alias.name == "*" and star:
                    found.setdefault(star, star)
                elif alias.name != "*":
                    found[alias.name] = alias.asname or alias.name
    return found


def importers_of(importers: tuple, modules: frozenset, name: str) -> list[str]:
    """The paths of `importers` ((path, source, cells)) that import `name` from one of `modules` (a
    package's `__init__.py` that only re-exports it is not one of them)."""
    found = []
    spelled = re.compile(rf"^\s*from\s+[\w.]*\b({'|'.join(map(re.escape, modules))})\s+import\s[^\n]*"
                         rf"\b{re.escape(name)}\b", re.MULTILINE)
    for path, source, _ in importers:
        if Path(path).name == "__init__.py":
            continue
        try:
            tree = ast.parse(source)
        except SyntaxError:  # a file this Python cannot parse (a newer f-string) still shows the import
            if spelled.search(source):
                found.append(path)
            continue
        if name in _imported_names(tree, modules):
            found.append(path)
    return found


def passed_requiring_grad(importers: tuple, modules: frozenset, defined_in: str, function_name: str,
                          parameters: list[str]) -> Optional[str]:
    """Where the calls of `function_name` in `importers` all pass, for each of `parameters`, a name
    their code makes require grad before the call (`x.requires_grad_()`, `x.requires_grad = True`,
    `x = torch.zeros(..., requires_grad=True)`, `x = nn.Parameter(...)`, `optim.Adam([x])`): "main.py, line 12 (`adv`,
    made to require grad at line 9)"; None when there is no such call, or one passes anything else."""
    try:
        definition = _definition(ast.parse(defined_in), function_name)
    except SyntaxError:
        return None
    if definition is None:
        return None
    shown = []
    for tree, local, site in _importing(importers, modules, function_name):
        for scope in [tree, *(node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))]:
            for call in _own_calls(scope, local):
                arguments = dict(_arguments(call, definition) or ())
                made = [_made_to_require_grad(scope, arguments.get(name, ""), call.lineno) for name in parameters]
                if not all(made):
                    return None
                named = ", ".join(f"`{arguments[name]}`, {how} at line {line}"
                                  for name, (line, how) in zip(parameters, made))
                shown.append(f"{site.place(call.lineno)} ({named})")
    return "; ".join(shown) if shown else None


# Layers with weights of their own: what they output requires grad wherever grad mode is on.
TRAINABLE_LAYERS = re.compile(r"^(Linear|LazyLinear|Bilinear|Conv(Transpose)?[123]d|Embedding(Bag)?|(LSTM|GRU|RNN)(Cell)?|"
                              r"MultiheadAttention|Transformer(Encoder|Decoder)?(Layer)?|Sequential)$")


def fed_by_parent_layers(defined_in: ast.Module, importers: tuple, modules: frozenset, class_name: str, method: str,
                         parameters: list[str]) -> Optional[str]:
    """Where an object of `class_name` is a part of another network (`self.contrast = ContrastMemory(...)`
    in that class's methods) and every call of it there (`self.contrast(f_s, f_t, idx)`, or
    `self.contrast.<method>(...)`) runs in grad mode and passes, for each of `parameters`, the output of
    one of that network's own trainable layers (`f_s = self.embed_s(f_s)`, `self.embed_s = Embed(...)`):
    "line 63 (`f_s`, the output of `self.embed_s`, an `Embed`, line 61)", in the class's own file or in
    those of `importers` that import it from one of `modules`. None when there is no such call, when one
    passes anything else, or when the parent network freezes anything (a teacher's parameters)."""
    definition = _method_without_self(defined_in, class_name, method)
    if definition is None:
        return None
    files = [(defined_in, class_name, lambda line: f"line {line}")]
    files += [(tree, local, site.place) for tree, local, site in _importing(importers, modules, class_name)]
    shown = []
    for tree, local, place in files:
        networks = {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
                    and any(ast.unparse(base).endswith("Module") for base in node.bases) and _has_weights(node)}
        for owner in (node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)):
            parts = _parts_built(owner, lambda callee: callee == local)
            if not parts:
                continue
            if re.search(r"requires_grad(_\(\s*False|\s*=\s*False)", ast.unparse(owner)):
                return None  # a frozen part: its outputs would not require grad
            layers = _parts_built(owner, lambda callee: callee in networks or
                                  bool(TRAINABLE_LAYERS.match(callee.rsplit(".", 1)[-1])))
            for function in (item for item in owner.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))):
                for call, off in _part_calls(function, parts, method):
                    arguments = dict(_arguments(call, definition) or ())
                    made = [_layer_output(function, arguments.get(name, ""), call.lineno, layers) for name in parameters]
                    if off or not all(made):
                        return None
                    named = ", ".join(f"`{arguments[name]}`, the output of `self.{layer}`, "
                                      f"{_article(layers[layer])} `{layers[layer]}`, line {line}"
                                      for name, (line, layer) in zip(parameters, made))
                    shown.append(f"{place(call.lineno)} ({named})")
    return "; ".join(shown) if shown else None


def _has_weights(cls: ast.ClassDef) -> bool:
    """Does the module class build a trainable layer or a Parameter of its own (not a `Normalize`)?"""
    return any(isinstance(node, ast.Call) and (TRAINABLE_LAYERS.match(ast.unparse(node.func).rsplit(".", 1)[-1])
                                               or ast.unparse(node.func).endswith("Parameter"))
               for node in ast.walk(cls))


def _method_without_self(tree: ast.Module, class_name: str, method: str) -> Optional[ast.FunctionDef]:
    owner = next((node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == class_name), None)
    function = owner and next((item for item in owner.body if isinstance(item, ast.FunctionDef)
                               and item.name == method), None)
    return _without_self(function, method) if function is not None else None


def _without_self(function: ast.FunctionDef, name: str) -> Optional[ast.FunctionDef]:
    """The method as its callers see it: its `self` left out (None when it has no parameter at all)."""
    arguments = function.args
    if not (arguments.posonlyargs or arguments.args):
        return None
    without_self = ast.arguments(posonlyargs=arguments.posonlyargs[1:],
                                 args=arguments.args[1:] if not arguments.posonlyargs else arguments.args,
                                 vararg=arguments.vararg, kwonlyargs=arguments.kwonlyargs,
                                 kw_defaults=arguments.kw_defaults, kwarg=arguments.kwarg,
                                 defaults=arguments.defaults)
    return ast.FunctionDef(name=name, args=without_self, body=function.body, decorator_list=[], returns=None,
                           type_params=[], lineno=function.lineno, col_offset=function.col_offset)


def _parts_built(owner: ast.ClassDef, wanted) -> dict:
    """{attribute: class name} for the `self.<attribute> = Class(...)` (`.to(device)` / `.cuda()` after it
    too) in the class's methods whose class name (as written) `wanted` accepts."""
    parts = {}
    for node in ast.walk(owner):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute)
                and isinstance(node.targets[0].value, ast.Name) and node.targets[0].value.id == "self"):
            continue
        value = node.value
        while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in ("to", "cuda"):
            value = value.func.value
        if isinstance(value, ast.Call) and wanted(ast.unparse(value.func)):
            parts[node.targets[0].attr] = ast.unparse(value.func).rsplit(".", 1)[-1]
    return parts


def _part_calls(function: ast.AST, parts: dict, method: str):
    """(call, whether grad mode is off there) for each call of one of `parts` in the function: `self.part(...)`
    for `forward`, `self.part.<method>(...)` otherwise."""
    def is_part(node: ast.AST) -> bool:
        return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" \
            and node.attr in parts

    def visit(node: ast.AST, off: bool):
        if isinstance(node, (ast.With, ast.AsyncWith)) and any(_no_grad_context(item.context_expr) for item in node.items):
            off = True
        if isinstance(node, ast.Call) and (
                (method == "forward" and is_part(node.func)) or
                (isinstance(node.func, ast.Attribute) and node.func.attr == method and is_part(node.func.value))):
            yield node, off
        for child in ast.iter_child_nodes(node):
            yield from visit(child, off)

    yield from visit(function, any(_no_grad_context(decorator) for decorator in function.decorator_list))


def _layer_output(scope: ast.AST, text: str, before: int, layers: dict) -> Optional[tuple[int, str]]:
    """(line, layer) when `text` is the call of one of `layers` (`self.embed_s(x)`), or a name the scope
    last bound before line `before` to one."""
    def layer_of(node: ast.AST) -> Optional[str]:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                isinstance(node.func.value, ast.Name) and node.func.value.id == "self" and node.func.attr in layers:
            return node.func.attr
        return None

    try:
        expression = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    if layer_of(expression):
        return before, layer_of(expression)
    if not isinstance(expression, ast.Name):
        return None
    nodes = _own_nodes(scope)
    bindings = [node for node in nodes if isinstance(node, ast.Assign) and node.lineno < before
                and any(isinstance(target, ast.Name) and target.id == expression.id for target in node.targets)]
    last = max(bindings, key=lambda node: node.lineno, default=None)
    if last is None or _rebound(nodes, expression.id, last.lineno, before) or layer_of(last.value) is None:
        return None
    return last.lineno, layer_of(last.value)


def _rebound(nodes: list, name: str, after: int, before: int) -> bool:
    """Does one of `nodes` bind `name` again between lines `after` and `before` (both excluded)?"""
    return any(isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id == name
               and after < node.lineno < before for node in nodes)


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _importing(importers: tuple, modules: frozenset, name: str, star: bool = False):
    """(tree, the local name, a site that places its lines) for each of `importers` that parses and imports
    `name` from one of `modules` (with `star`, also by `from module import *`)."""
    for path, source, cells in importers:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        local = _imported_names(tree, modules, star=name if star else None).get(name)
        if local is not None:
            yield tree, local, TopLevelCall(0, (), (), (), frozenset(), path=path, cells=tuple(cells))


NO_GRAD_CONTEXTS = frozenset({"torch.no_grad", "no_grad", "torch.inference_mode", "inference_mode"})


def calls_without_grad(importers: tuple, modules: frozenset, name: str, method: Optional[str]) -> list[str]:
    """Where the files of `importers` that import `name` from one of `modules` call it (or, with
    `method`, call a method of that name on anything), when every such call runs with grad mode off (in
    a `with torch.no_grad():` block or a function decorated so); [] when there is none, or one does not."""
    places = []
    for tree, local, site in _importing(importers, modules, name, star=True):
        for call, off in _calls_with_grad_mode(tree, local if method is None else None, method):
            if not off:
                return []
            places.append(site.place(call.lineno))
    return places


def _calls_with_grad_mode(tree: ast.Module, local: Optional[str], method: Optional[str]):
    """(call, whether grad mode is off there) for the calls of the name `local`, or of the method `method`."""
    def visit(node: ast.AST, off: bool):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            off = any(_no_grad_context(decorator) for decorator in node.decorator_list)  # called from anywhere
        if isinstance(node, (ast.With, ast.AsyncWith)) and any(_no_grad_context(item.context_expr)
                                                              for item in node.items):
            off = True
        if isinstance(node, ast.Call) and (
                (local is not None and isinstance(node.func, ast.Name) and node.func.id == local) or
                (method is not None and isinstance(node.func, ast.Attribute) and node.func.attr == method)):
            yield node, off
        for child in ast.iter_child_nodes(node):
            yield from visit(child, off)

    yield from visit(tree, False)


def _no_grad_context(expression: ast.expr) -> bool:
    """`torch.no_grad()`, `torch.inference_mode()`, `torch.set_grad_enabled(False)`, or the decorator spelled bare."""
    if isinstance(expression, ast.Call):
        name = ast.unparse(expression.func)
        if name in ("torch.set_grad_enabled", "set_grad_enabled"):
            return bool(expression.args) and isinstance(expression.args[0], ast.Constant) and \
                expression.args[0].value is False
        return name in NO_GRAD_CONTEXTS
    return ast.unparse(expression) in NO_GRAD_CONTEXTS


def _own_nodes(scope: ast.AST) -> list[ast.AST]:
    """The nodes of `scope`'s own body (not of the functions or classes defined in it)."""
    found, pending = [], list(ast.iter_child_nodes(scope))
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        found.append(node)
        pending.extend(ast.iter_child_nodes(node))
    return found


def _own_calls(scope: ast.AST, local: str) -> list[ast.Call]:
    """The calls of `local` in `scope`'s own body."""
    return [node for node in _own_nodes(scope) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == local]


def _made_to_require_grad(scope: ast.AST, name: str, before: int) -> Optional[tuple[int, str]]:
    """(line, how) where `scope`'s own code, last before line `before`, makes `name` require grad, when
    nothing binds the name again between there and `before`; None otherwise."""
    if not name.isidentifier():
        return None
    nodes = [node for node in _own_nodes(scope) if getattr(node, "lineno", before) < before]
    switches = []
    for node in nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "requires_grad_" \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name and \
                not (node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value is False):
            switches.append((node.lineno, "made to require grad"))
        elif isinstance(node, ast.Assign) and any(isinstance(target, ast.Attribute) and target.attr == "requires_grad"
                                                  and isinstance(target.value, ast.Name) and target.value.id == name
                                                  for target in node.targets) \
                and isinstance(node.value, ast.Constant) and node.value.value is True:
            switches.append((node.lineno, "made to require grad"))
        elif isinstance(node, ast.Call) and "optim." in ast.unparse(node.func) and node.args and \
                isinstance(node.args[0], (ast.List, ast.Tuple)) and \
                any(isinstance(item, ast.Name) and item.id == name for item in node.args[0].elts):
            switches.append((node.lineno, "trained by the optimizer made"))  # `optim.Adam([image], lr)`
        elif isinstance(node, ast.Assign) and any(isinstance(target, ast.Name) and target.id == name
                                                  for target in node.targets) and isinstance(node.value, ast.Call) \
                and (ast.unparse(node.value.func).endswith("Parameter") or any(
                    keyword.arg == "requires_grad" and isinstance(keyword.value, ast.Constant)
                    and keyword.value.value is True for keyword in node.value.keywords)):
            switches.append((node.lineno, "made to require grad"))
    if not switches:
        return None
    line, how = max(switches)
    return None if _rebound(nodes, name, line, before) else (line, how)


def _definition(tree: ast.Module, name: str) -> Optional[ast.FunctionDef]:
    """The function `name`, or the `__init__` of the class `name` with its `self` left out (a class
    whose constructor is inherited has no parameters the experiment can read)."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return node
        if isinstance(node, ast.ClassDef) and node.name == name:
            init = next((item for item in node.body if isinstance(item, ast.FunctionDef) and item.name == "__init__"),
                        None)
            return _without_self(init, name) if init is not None else None
    return None


def _calls_in(body: list, function_name: str, loops: tuple, before: tuple, everywhere: bool = False,
              makers: frozenset = frozenset()):
    """(call, loops around it, assignments before it in those loops) for each call of the function in
    `body`, looking into loops, branches and main guards, never into definitions. `everywhere`: the
    assignments before it outside loops too (a function's body, where every name is its own)."""
    earlier = list(before)
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(statement, (ast.For, ast.AsyncFor)):
            inner_loops = loops + ((ast.unparse(statement.target), ast.unparse(statement.iter)),)
            yield from _calls_in(statement.body, function_name, inner_loops, tuple(earlier), everywhere, makers)
            continue
        if isinstance(statement, _BLOCKS):
            for block in (getattr(statement, "body", []), getattr(statement, "orelse", []),
                          *(handler.body for handler in getattr(statement, "handlers", []))):
                yield from _calls_in(block, function_name, loops, tuple(earlier), everywhere, makers)
            if (loops or everywhere) and _assigns_by_branch(statement, makers):
                # `if args.t: bsize = 2` / `else: bsize = args.batch_size`: run whole, the branch the
                # program's own values take binds the name.
                names = tuple(dict.fromkeys(n.id for n in ast.walk(statement)
                                            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)))
                earlier.append((names, ast.unparse(statement), statement.lineno, True))
            continue
        for node in ast.walk(statement):
            if isinstance(node, ast.Call) and _callee(node.func) == function_name:
                yield node, loops, tuple(earlier)
        if (loops or everywhere) and isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names = tuple(n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name))
            runnable = isinstance(statement, ast.Assign) and _plain_assignment(statement, makers)
            earlier.append((names, ast.unparse(statement), statement.lineno, runnable))
        elif (loops or everywhere) and _completes(statement, earlier, makers):
            # `parser.add_argument("--z_dim", ...)` after `parser = argparse.ArgumentParser()`: it binds
            # nothing, and what `parser.parse_args()` gives later depends on it.
            earlier.append(((), ast.unparse(statement), statement.lineno, True))


def _assigns_by_branch(statement: ast.stmt, makers: frozenset) -> bool:
    """An `if` whose branches only assign plain values (nested `if`s alike), on a plain test."""
    if not isinstance(statement, ast.If) or not _plain_value(statement.test, makers):
        return False
    branches = [*statement.body, *statement.orelse]
    return all(isinstance(branch, ast.Assign) and _plain_assignment(branch, makers)
               or _assigns_by_branch(branch, makers) for branch in branches)


def _completes(statement: ast.stmt, earlier: list, makers: frozenset) -> bool:
    """A plain method call on an object an earlier assignment made (`parser.add_argument(...)`), run for
    what it does to that object."""
    made = {name for names, _, _, runnable in earlier if runnable for name in names}
    return _receiver(statement) in made and _plain_value(statement.value, makers)


def _receiver(statement: ast.stmt) -> Optional[str]:
    """`parser` of the statement `parser.add_argument(...)` (a method call for its effect); else None."""
    call = statement.value if isinstance(statement, ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
        return None
    receiver = call.func.value
    while isinstance(receiver, (ast.Attribute, ast.Subscript)):
        receiver = receiver.value
    return receiver.id if isinstance(receiver, ast.Name) else None


def _plain_assignment(statement: ast.Assign, makers: frozenset = frozenset()) -> bool:
    """An assignment in the loop the experiment may run once before the call: it calls no function of
    the file (which may train) but those of `makers`, and steps nothing."""
    return _plain_value(statement.value, makers)


def _plain_value(value: ast.expr, makers: frozenset) -> bool:
    for node in ast.walk(value):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in ("backward", "step", "zero_grad"):
                return False
            if isinstance(func, ast.Name) and func.id not in _BUILTINS and func.id[:1].islower() \
                    and func.id not in ("len", "range") and func.id not in makers:
                return False  # a function (of the file, or imported): it may read data or train
        if isinstance(node, (ast.Lambda, ast.Yield, ast.Await, ast.NamedExpr)):
            return False
    return True


# What a function that only computes data may call: tensor and number libraries, and a few builtins.
COMPUTING_MODULES = frozenset({"torch", "np", "numpy", "math", "random", "F"})
COMPUTING_BUILTINS = frozenset({"len", "range", "int", "float", "bool", "abs", "min", "max", "round", "sum", "list",
                                "tuple", "dict"})


def _data_makers(tree: ast.Module) -> frozenset:
    """The file's top-level functions that only compute a value (`def create_data(slope, N=50): x =
    torch.randn(N, 1); return x, slope * x`): no loop, no `global`, no `with`, and calls of torch,
    NumPy, `math` and `random`, of a few builtins, or of methods of its own values only (none that
    steps or backpropagates). Running one once for a call's arguments trains nothing and reads
    nothing."""
    found = set()
    for function in tree.body:
        if not isinstance(function, ast.FunctionDef) or function.decorator_list:
            continue
        local = {argument.arg for argument in ast.walk(function.args) if isinstance(argument, ast.arg)} | \
            {node.id for node in ast.walk(function) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
        plain = True
        for node in ast.walk(function):
            if isinstance(node, (ast.For, ast.While, ast.AsyncFor, ast.Global, ast.Nonlocal, ast.Yield,
                                 ast.YieldFrom, ast.With, ast.AsyncWith, ast.Try, ast.Lambda)):
                plain = False
            elif isinstance(node, ast.Call):
                head = node.func
                while isinstance(head, ast.Attribute):
                    head = head.value
                method = node.func.attr if isinstance(node.func, ast.Attribute) else ""
                if not isinstance(head, ast.Name) or method in {"backward", "step", "zero_grad", "save"} | FILE_READING_CALLS \
                        or not (head.id in COMPUTING_MODULES or head.id in local and isinstance(node.func, ast.Attribute)
                                or head.id in COMPUTING_BUILTINS and isinstance(node.func, ast.Name)):
                    plain = False
        if plain:
            found.add(function.name)
    return frozenset(found)


def _loader_makers(tree: ast.Module, source: str) -> frozenset:
    """The file's top-level functions that make a dataset or a loader over one (`def prepare_loader():
    data = datasets.ImageFolder(root, transform); return DataLoader(data, batch_size=64)`), with no loop,
    no `with`, and nothing stepped, saved or backpropagated. The experiment's code has their data on
    stand-ins (verify/datasites.py), so running one once for a call's arguments reads and trains nothing."""
    lines = {site.line for site in rewrite_data(source).sites if site.kind in ("dataset", "loader")}
    found = set()
    for function in tree.body:
        if not isinstance(function, ast.FunctionDef) or function.decorator_list \
                or not any(function.lineno <= line <= (function.end_lineno or function.lineno) for line in lines):
            continue
        nodes = list(ast.walk(function))
        if any(isinstance(node, (ast.For, ast.While, ast.AsyncFor, ast.With, ast.AsyncWith, ast.Global, ast.Nonlocal,
                                 ast.Yield, ast.YieldFrom)) for node in nodes):
            continue
        if any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
               and node.func.attr in ("backward", "step", "zero_grad", "save") for node in nodes):
            continue
        found.add(function.name)
    return frozenset(found)


def _arguments(call: ast.Call, definition: ast.FunctionDef, namespaces: Optional[dict] = None) -> Optional[list]:
    """(parameter, expression) for each argument of the call; None for `*args`/`**kwargs` at the call,
    except `**vars(args)` (or `**kwargs` after `kwargs = vars(args)`, `namespaces`): each parameter
    the call does not pass otherwise is the namespace's attribute of its name (`args.lr`)."""
    unpacked = [kw.value for kw in call.keywords if kw.arg is None]
    namespace = _namespace_of(unpacked[0], namespaces or {}) if len(unpacked) == 1 else None
    if any(isinstance(arg, ast.Starred) for arg in call.args) or (unpacked and namespace is None):
        return None
    parameters = [a.arg for a in (*definition.args.posonlyargs, *definition.args.args)]
    if len(call.args) > len(parameters):
        return None
    found = [(name, ast.unparse(arg)) for name, arg in zip(parameters, call.args)]
    known = set(parameters) | {a.arg for a in definition.args.kwonlyargs}
    for keyword in call.keywords:
        if keyword.arg is None:
            continue
        if keyword.arg not in known:
            return None
        found.append((keyword.arg, ast.unparse(keyword.value)))
    if namespace is not None:
        given = {name for name, _ in found}
        found += [(name, f"{namespace}.{name}") for name in [*parameters, *(a.arg for a in definition.args.kwonlyargs)]
                  if name not in given and name != "self"]
    return found


def _namespace_of(unpacked: ast.expr, namespaces: dict) -> Optional[str]:
    """`args` of `**vars(args)`, `**args.__dict__`, or `**kwargs` where `namespaces` says `kwargs = vars(args)`."""
    if isinstance(unpacked, ast.Call) and isinstance(unpacked.func, ast.Name) and unpacked.func.id == "vars" \
            and len(unpacked.args) == 1 and isinstance(unpacked.args[0], ast.Name) and not unpacked.keywords:
        return unpacked.args[0].id
    if isinstance(unpacked, ast.Attribute) and unpacked.attr == "__dict__" and isinstance(unpacked.value, ast.Name):
        return unpacked.value.id
    if isinstance(unpacked, ast.Name):
        return namespaces.get(unpacked.id)
    return None


def _namespace_dicts(tree: ast.Module) -> dict:
    """Names bound once in the module to the dict of a namespace (`kwargs = vars(args)`) -> the namespace."""
    found: dict = {}
    twice: set = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    namespace = _namespace_of(node.value, {}) if isinstance(node, ast.Assign) and node.value else None
                    if target.id in found or namespace is None:
                        twice.add(target.id)
                    found[target.id] = namespace
    return {name: namespace for name, namespace in found.items() if name not in twice and namespace is not None}


def _names(text: str) -> set[str]:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return set()
    bound = {n.id for node in ast.walk(tree) if isinstance(node, (ast.comprehension,))
             for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)} - bound


@dataclass
class Values:
    """The call's arguments made in a module's namespace: the values, and why the others could not be."""

    values: dict   # parameter -> value
    failed: dict   # parameter -> why
    shown: dict    # parameter -> how the evidence shows it

    def shown_in_order(self, site: "TopLevelCall") -> str:
        """The values made, as the evidence shows them, in the order of the call's arguments."""
        return "; ".join(self.shown[name] for name, _ in site.arguments if name in self.shown)


# Why a value of a call was not made: the statement that makes it calls a function of the file, which may
# read data or train (`weights = fit(model)`), and the experiment never runs a training loop by accident.
NOT_RUN = "calls a function the experiment does not run"


def evaluate(site: TopLevelCall, namespace: dict) -> Values:
    """Make the call's arguments: the loops' first values, the assignments before the call, then each
    argument, in an environment over the module's namespace (which is not changed)."""
    environment = dict(namespace)
    unbound: dict = {}
    firsts: dict = {}
    for target, iterable in site.loops:
        names = {n.id for n in ast.walk(ast.parse(target, mode="eval")) if isinstance(n, ast.Name)}
        try:
            first = next(iter(eval(iterable, environment)))  # noqa: S307 - the user's own loop header
            environment["__tcl_first__"] = first
            exec(f"{target} = __tcl_first__", environment)  # noqa: S102 - binds the loop's targets
            for name in names:
                firsts[name] = iterable
        except BaseException as error:  # noqa: BLE001 - an empty loop, a name the slice did not bind
            if isinstance(error, (KeyboardInterrupt, SystemExit)):
                raise
            for name in names:
                environment.pop(name, None)
                unbound[name] = f"the loop over `{iterable}` gave no first value ({type(error).__name__})"
    made_by: dict = {}
    for bound, statement, line, runnable in site.before:
        shown = statement if len(statement) <= 60 else statement[:57] + "..."
        if DATA_HELPER in statement:
            shown = f"{', '.join(bound)} = <stand-in data>"
        if not runnable:
            for name in bound:
                environment.pop(name, None)
                unbound[name] = f"`{shown}` (line {line}) {NOT_RUN}"
            continue
        try:
            exec(statement, environment)  # noqa: S102 - a plain assignment of the loop, once
        except (Exception, AbsentPackageUsed) as error:  # noqa: BLE001 - a package that is not installed too
            for name in bound:
                environment.pop(name, None)
                unbound[name] = f"`{shown}` (line {line}) failed ({type(error).__name__})"
            continue
        for name in bound:
            unbound.pop(name, None)
            made_by[name] = f"made by `{shown}` (line {line}), run once"
    values, failed, shown = {}, {}, {}
    for parameter, text in site.arguments:
        missing = [name for name in _names(text) if name in unbound]
        if missing:
            failed[parameter] = unbound[missing[0]]
            continue
        try:
            value = eval(text, environment)  # noqa: S307 - the call's own argument
        except (Exception, AbsentPackageUsed) as error:  # noqa: BLE001 - a name the slice could not bind
            failed[parameter] = f"{type(error).__name__}: {str(error).splitlines()[0][:160] if str(error) else ''}"
            continue
        values[parameter] = value
        shown[parameter] = _shown(parameter, text, value, firsts, made_by)
    return Values(values, failed, shown)


def _shown(parameter: str, text: str, value: Any, firsts: dict, made_by: dict) -> str:
    written = f"`{parameter}`" if text == parameter else f"`{parameter}` = `{text}`"
    if text in firsts:
        return f"{written} = {_value_text(value)} (the first of `{firsts[text]}`)"
    if text in made_by:
        return f"{written}: {_value_text(value)} ({made_by[text]})"
    return f"{written}: {_value_text(value)}"


def _value_text(value: Any) -> str:
    if isinstance(value, nn.Module):
        count = sum(p.numel() for p in value.parameters())
        return f"the script's {type(value).__name__} ({count:,} parameter values)"
    if isinstance(value, torch.optim.Optimizer):
        return f"the script's {type(value).__name__}"
    if isinstance(value, torch.Tensor):
        return f"tensor{tuple(value.shape)}"
    if isinstance(value, (int, float, str, bool, torch.device)) or value is None:
        return repr(value)
    if isinstance(value, (list, tuple)):
        return f"a {type(value).__name__} of {len(value)}" + (" tensors" if all(
            isinstance(item, torch.Tensor) for item in value) and value else " items")
    name = type(value).__name__
    if name.startswith("StandIn"):
        return "the script's loader, on stand-in batches"
    return f"the script's {name}"
