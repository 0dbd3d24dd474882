"""The project's own network class for an argument whose methods no stand-in network has.

Runs in the verification child process. Course code trains through methods of its own model
class (`loss = model.training_step(batch)`, `model.evaluate(val_loader)`), so a function that
takes `model` fails on a stand-in network (`'StandInNet' object has no attribute
'training_step'`). The class the file defines with all of those methods is what its callers
pass; so is the class a module of the project defines with them, when the file imports it
(`from models import MnistModel`: read from that file's code to choose it, loaded with the
flagged function). It is built as a block under test is (verify/configurations.py), and the
stand-in batches take the input shape its `forward` runs with.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import types
from typing import Optional

from torch import nn

from torchcopylint.verify import importing, samples
from torchcopylint.verify.configurations import Configuration, configurations
from torchcopylint.verify.inputs import CannotRun, probe_input_shape, required_inputs
from torchcopylint.verify.standins import ProjectNetwork, StandIns, methods_with_inherited, uses

_MODULE_ATTRIBUTES = frozenset(dir(nn.Module))


def methods_beyond_a_network(function: ast.AST, names: list[str], found: Optional[dict] = None) -> dict[str, set]:
    """name -> the methods the function calls on it that `nn.Module` does not have, for the names
    it calls any such method on (`found`: the function's uses, when the caller has them)."""
    found = uses(function) if found is None else found
    return {name: extra for name in names if name in found
            and (extra := {m for m in found[name].methods if m not in _MODULE_ATTRIBUTES})}


def classes_for(tree: ast.Module, function: Optional[ast.AST], path: Optional[str] = None) -> tuple[str, ...]:
    """The names of the classes, the file's own or imported from a module of the project (`path`: the
    file's, to find those), that have every method beyond `nn.Module`'s the function calls on one of
    its arguments (or on `self.x`): what its callers pass there, to be loaded with it."""
    if function is None:
        return ()
    arguments = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
    found = uses(function)
    names = [name for name in found if name in arguments or name.startswith("self.")]
    wanted = list(methods_beyond_a_network(function, names, found).values())
    if not wanted:
        return ()
    methods = list(_class_methods(tree).items())
    if path is not None:
        methods += _imported_class_methods(tree, path)
    return tuple(dict.fromkeys(name for name, own in methods if any(needed <= own for needed in wanted)))


def _class_methods(tree: ast.Module) -> dict[str, set]:
    """Each class of the module -> the methods it defines or inherits from the module's other classes."""
    return {node.name: set(methods_with_inherited(tree, node.name)) for node in tree.body
            if isinstance(node, ast.ClassDef)}


def _imported_class_methods(tree: ast.Module, path: str) -> list[tuple[str, set]]:
    """(name, methods) for each class the module's top-level imports of the project bring: the name a
    `from <project module> import Class` binds, or that of a project module imported whole (`import
    models`), with the methods of each class it holds; read from the project's files (never imported
    here)."""
    context = importing.import_context(path)
    found: list[tuple[str, set]] = []
    for statement in _top_level_imports(tree):
        file = importing.project_file(context, path, statement.module, statement.level)
        for alias in statement.names:
            methods = _methods_of_class_in(context, file, alias.name, re_exports=1)
            if methods is not None:
                found.append((alias.asname or alias.name, methods))
    for bound, file in _whole_project_modules(tree, path):
        module = samples.parsed_file(file)
        held = [] if module is None else list(_class_methods(module)) + [
            alias.asname or alias.name for statement in _top_level_imports(module) for alias in statement.names]
        for name in held:
            methods = _methods_of_class_in(context, file, name, re_exports=1)
            if methods is not None:
                found.append((bound, methods))
    return found


def _methods_of_class_in(context: importing.ImportContext, file: Optional[str], name: str,
                         re_exports: int) -> Optional[set]:
    """The methods of class `name` of the project file, following up to `re_exports` imports of it
    (`from models import Net` where `models/__init__.py` imports `Net` from its `net.py`)."""
    module = samples.parsed_file(file)
    if module is None:
        return None
    methods = _class_methods(module)
    if name in methods:
        return methods[name]
    if re_exports:
        for statement in _top_level_imports(module):
            for alias in statement.names:
                if (alias.asname or alias.name) == name:
                    return _methods_of_class_in(context, importing.project_file(
                        context, file, statement.module, statement.level), alias.name, re_exports - 1)
    return None


def _top_level_imports(tree: ast.Module):
    """The module's `from ... import` statements at its top level and in its top-level `try`/`if` blocks."""
    pending = list(tree.body)
    while pending:
        statement = pending.pop(0)
        if isinstance(statement, ast.ImportFrom):
            yield statement
        elif isinstance(statement, (ast.Try, ast.If)):
            pending.extend(statement.body)
            pending.extend(statement.orelse)
            pending.extend(node for handler in getattr(statement, "handlers", ()) for node in handler.body)


def with_project_networks(settings: list[StandIns], function: ast.AST, tree: ast.Module, namespace: dict,
                          job) -> list[StandIns]:
    """The settings with each network-kind name whose methods only a class of the file has given
    an instance of that class (and batches of the shape its `forward` takes); unchanged where
    none fits."""
    if not settings:
        return settings
    plan = settings[0].plan
    modules = [name for name, kind in plan.kinds.items() if kind == "module"]
    networks: dict[str, ProjectNetwork] = {}
    sample = tokens = None
    for name, methods in methods_beyond_a_network(function, modules).items():
        found = _network_with(methods, tree, namespace, job.source, job.path, job.factories, job.device)
        if found is not None:
            networks[name], shape = found
            if shape is not None and shape[0] == "indices":  # an embedding first: token indices below its size
                tokens = tokens or shape[1]
            elif shape is not None:
                sample = sample or tuple(shape[1:])
    if not networks:
        return settings
    return [dataclasses.replace(s, plan=dataclasses.replace(s.plan, networks=networks, sample=sample or s.plan.sample,
                                                            tokens=tokens))
            for s in settings]


def with_inputs_of_module_networks(settings: list[StandIns], function: ast.AST, namespace: dict,
                                   device: str) -> list[StandIns]:
    """The settings with stand-in tensors shaped for the network of the module the function feeds them
    to (`real_preds = discriminator(real_images)`, `discriminator` built at the top level of a notebook):
    the shape its `forward` takes, probed on it; unchanged where no such network takes them."""
    if not settings:
        return settings
    plan = settings[0].plan
    found = uses(function)
    for name, kind in plan.kinds.items():
        if kind == "tensor" and name in found:
            fed_to = found[name].fed_to
        elif kind == "loader":
            # `for real in loader: ... D(real)`: the batches a loader argument yields feed the network.
            fed_to = {callee for batch in _batches_of(function, name) if batch in found
                      for callee in found[batch].fed_to}
        else:
            continue
        for callee in sorted(fed_to):
            network = _module_named(callee, namespace)
            if callee in plan.kinds or not isinstance(network, nn.Module):
                continue
            try:
                shape = probe_input_shape(lambda: network, "forward", device)
            except CannotRun:
                continue
            return [dataclasses.replace(s, plan=dataclasses.replace(s.plan, sample=tuple(shape[1:])))
                    for s in settings]
    return settings


def _batches_of(function: ast.AST, loader: str) -> set:
    """The names a loop over `loader` binds to its batches' first value: `real` in `for real in loader`,
    `for real, _ in loader`, `for i, (real, _) in enumerate(loader)`."""
    found = set()
    for node in ast.walk(function):
        if not isinstance(node, ast.For):
            continue
        iterated, target = node.iter, node.target
        if isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and iterated.func.id == "enumerate" \
                and iterated.args and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            iterated, target = iterated.args[0], target.elts[1]
        if not (isinstance(iterated, ast.Name) and iterated.id == loader):
            continue
        while isinstance(target, (ast.Tuple, ast.List)) and target.elts:
            target = target.elts[0]
        if isinstance(target, ast.Name):
            found.add(target.id)
    return found


def _module_named(callee: str, namespace: dict) -> Optional[nn.Module]:
    """The module a callee spelled `D`, `nets["D"]` or `model.encoder` names in the loaded namespace
    (constant keys and submodules only: nothing is called)."""
    try:
        node = ast.parse(callee, mode="eval").body
    except SyntaxError:
        return None

    def value_of(expr):
        if isinstance(expr, ast.Name):
            return namespace.get(expr.id)
        if isinstance(expr, ast.Attribute):  # a submodule (`model.encoder`): no property runs
            owner = value_of(expr.value)
            return owner._modules.get(expr.attr) if isinstance(owner, nn.Module) else None
        if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant):
            owner = value_of(expr.value)
            try:
                return owner[expr.slice.value] if isinstance(owner, (dict, list, tuple, nn.ModuleDict,
                                                                     nn.ModuleList)) else None
            except (KeyError, IndexError, TypeError):
                return None
        return None

    found = value_of(node)
    return found if isinstance(found, nn.Module) else None


def _network_with(methods: set, tree: ast.Module, namespace: dict, source: str, path: str, factories,
                  device: str) -> Optional[tuple[ProjectNetwork, Optional[tuple]]]:
    """The first class of the file (a concrete network: no other candidate derives from it, as a
    base class of the methods is abstract) that has every method, built, with its input shape (None
    where no probed shape runs its forward)."""
    candidates = [cls for cls in _classes_in_sight(tree, namespace, path) if issubclass(cls, nn.Module)
                  and all(hasattr(cls, m) for m in methods) and importing.of_the_project(cls)]
    concrete = [cls for cls in candidates if not any(other is not cls and issubclass(other, cls) for other in candidates)]
    for cls in concrete:
        try:
            configuration = next(configurations(cls, source, path, factories))
        except (CannotRun, StopIteration):
            continue
        try:
            shape = probe_input_shape(lambda: configuration.build(cls), "forward", device,
                                      unset=max(required_inputs(cls, "forward") - 1, 0))
        except CannotRun:
            # No probed shape runs its forward: the class still has the methods a stand-in network
            # lacks, and the batches keep their own shape.
            shape = None
        shown = ", ".join(f"`{method}`" for method in sorted(methods))
        home = importing.file_of(cls)
        whose = "the file's class" if home is None or os.path.abspath(home) == os.path.abspath(path) else \
            f"the class of {os.path.basename(home)}"
        return ProjectNetwork(_builder(cls, configuration), f"{configuration.description}, {whose} that has {shown}"), shape
    return None


def _classes_in_sight(tree: ast.Module, namespace: dict, path: str) -> list[type]:
    """The classes the file defines or imports by name, then those of the project's modules it imports
    whole (`import models`, then `models.LSTM(config)`), in the order the file names them."""
    named = [node.name for node in tree.body if isinstance(node, ast.ClassDef)]
    named += [alias.asname or alias.name for statement in _top_level_imports(tree) for alias in statement.names]
    found = [namespace[name] for name in named if isinstance(namespace.get(name), type)]
    for bound, _ in _whole_project_modules(tree, path):
        module = namespace.get(bound)
        if isinstance(module, types.ModuleType):
            found += [value for value in vars(module).values() if isinstance(value, type) and value not in found]
    return found


def _whole_project_modules(tree: ast.Module, path: str) -> list[tuple[str, str]]:
    """(the name it binds, its file) for each top-level `import <project module>` of the file."""
    context = importing.import_context(path)
    found = []
    for statement in tree.body:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                file = None if "." in alias.name else importing.project_file(context, path, alias.name)
                if file is not None:
                    found.append((alias.asname or alias.name, file))
    return found


def _builder(cls: type, configuration: Configuration):
    return lambda: configuration.build(cls)
