"""The file's own network class for an argument whose methods no stand-in network has.

Runs in the verification child process. Course code trains through methods of its own model
class (`loss = model.training_step(batch)`, `model.evaluate(val_loader)`), so a function that
takes `model` fails on a stand-in network (`'StandInNet' object has no attribute
'training_step'`). The class the file defines with all of those methods is what its callers
pass; it is built as a block under test is (verify/configurations.py), and the stand-in batches
take the input shape its `forward` runs with.
"""

from __future__ import annotations

import ast
import dataclasses
from typing import Optional

from torch import nn

from torchcopylint.verify.configurations import Configuration, configurations
from torchcopylint.verify.inputs import CannotRun, probe_input_shape
from torchcopylint.verify.standins import ProjectNetwork, StandIns, uses

_MODULE_ATTRIBUTES = frozenset(dir(nn.Module))


def methods_beyond_a_network(function: ast.AST, names: list[str], found: Optional[dict] = None) -> dict[str, set]:
    """name -> the methods the function calls on it that `nn.Module` does not have, for the names
    it calls any such method on (`found`: the function's uses, when the caller has them)."""
    found = uses(function) if found is None else found
    return {name: extra for name in names if name in found
            and (extra := {m for m in found[name].methods if m not in _MODULE_ATTRIBUTES})}


def classes_for(tree: ast.Module, function: Optional[ast.AST]) -> tuple[str, ...]:
    """The file's classes that have every method beyond `nn.Module`'s the function calls on one of
    its arguments (or on `self.x`): what its callers pass there, to be loaded with it."""
    if function is None:
        return ()
    arguments = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
    found = uses(function)
    names = [name for name in found if name in arguments or name.startswith("self.")]
    wanted = list(methods_beyond_a_network(function, names, found).values())
    if not wanted:
        return ()
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}

    def methods_of(name: str, seen: frozenset) -> set:
        own = {f.name for f in classes[name].body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
        for base in classes[name].bases:
            if isinstance(base, ast.Name) and base.id in classes and base.id not in seen:
                own |= methods_of(base.id, seen | {name})
        return own

    return tuple(name for name in classes if any(methods <= methods_of(name, frozenset()) for methods in wanted))


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
    sample = None
    for name, methods in methods_beyond_a_network(function, modules).items():
        found = _network_with(methods, tree, namespace, job.source, job.path, job.factories, job.device)
        if found is not None:
            networks[name], shape = found
            sample = sample or tuple(shape[1:])
    if not networks:
        return settings
    return [dataclasses.replace(s, plan=dataclasses.replace(s.plan, networks=networks, sample=sample or s.plan.sample))
            for s in settings]


def _network_with(methods: set, tree: ast.Module, namespace: dict, source: str, path: str, factories,
                  device: str) -> Optional[tuple[ProjectNetwork, tuple]]:
    """The first class of the file (a concrete network: no other candidate derives from it, as a
    base class of the methods is abstract) that has every method, built, with its input shape."""
    defined = [node.name for node in tree.body if isinstance(node, ast.ClassDef)]
    candidates = [namespace[name] for name in defined if isinstance(namespace.get(name), type)
                  and issubclass(namespace[name], nn.Module) and all(hasattr(namespace[name], m) for m in methods)]
    concrete = [cls for cls in candidates if not any(other is not cls and issubclass(other, cls) for other in candidates)]
    for cls in concrete:
        try:
            configuration = next(configurations(cls, source, path, factories))
            shape = probe_input_shape(lambda: configuration.build(cls), "forward", device)
        except (CannotRun, StopIteration):
            continue
        shown = ", ".join(f"`{method}`" for method in sorted(methods))
        return ProjectNetwork(_builder(cls, configuration),
                              f"{configuration.description}, the file's class that has {shown}"), shape
    return None


def _builder(cls: type, configuration: Configuration):
    return lambda: configuration.build(cls)
