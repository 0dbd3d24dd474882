"""TCL007 graph-kept-alive: a loss or model output accumulated across a training loop's iterations."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from torchcopylint.analysis.aliasing import Binding, FunctionFacts, root_name
from torchcopylint.analysis.facts import ModuleFacts
from torchcopylint.analysis.training import Backward, backward_calls
from torchcopylint.rules.base import Finding, Rule
from torchcopylint.rules.edits import method_call

CONTAINER_METHODS = ("append", "extend", "insert", "add")
# Calls that turn a tensor into something without a graph: wrapping with one of them is the cure.
DETACHING = frozenset({"item", "detach", "tolist", "numpy", "float", "int"})


class GraphKeptAlive(Rule):
    code = "TCL007"
    name = "graph-kept-alive"
    summary = "A loss or model output accumulated across loop iterations keeps every iteration's graph alive"
    fix_availability = "unsafe"
    triggers = (b"backward",)

    def check(self, facts: ModuleFacts) -> Iterator[Finding]:
        for function in facts.all_functions():
            backwards = backward_calls(function)
            if not backwards:
                continue
            backpropagated = {b for backward in backwards for b in _bindings_of(backward.loss, function)}
            for statement, loops in function.loops_of.items():
                if not loops or not facts.grad_enabled_at(function, statement):
                    continue
                found = _accumulation(statement, function)
                if found is None:
                    continue
                accumulator, value, container = found
                loop = loops[-1]
                if not _outlives_iteration(accumulator, function, loop):
                    continue
                if function.bindings_at(accumulator) & backpropagated:
                    continue  # the accumulated sum is itself backpropagated: the graph is wanted
                reason = _carries_graph(value, function, backwards, loop)
                if reason is None:
                    continue
                fixed = method_call(value, "detach" if container else "item")
                shown = facts.code_for(value)
                yield self.finding(
                    statement,
                    f"`{facts.code_for(statement)}` inside the loop keeps every iteration's autograd graph "
                    f"alive ({reason}); accumulate `{facts.code_for(fixed)}` instead",
                    self.unsafe_fix(f"Accumulate `{facts.code_for(fixed)}`", value, fixed),
                    accumulator=accumulator.value, value=shown,
                )


def _accumulation(statement, function: FunctionFacts):
    """(accumulator name, accumulated value, is a container) for `acc += v`, `acc = acc + v`,
    `acc.append(v)`, `acc[k] = v`; None otherwise."""
    if isinstance(statement, cst.AugAssign) and isinstance(statement.operator, (cst.AddAssign, cst.SubtractAssign)) \
            and isinstance(statement.target, cst.Name):
        return statement.target, statement.value, False
    if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
        target = statement.targets[0].target
        value = statement.value
        if isinstance(target, cst.Name) and isinstance(value, cst.BinaryOperation) \
                and isinstance(value.operator, cst.Add) and isinstance(value.left, cst.Name) \
                and value.left.value == target.value:
            return value.left, value.right, False
        if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
            return target.value, value, True
    if isinstance(statement, cst.Expr) and isinstance(statement.value, cst.Call):
        call = statement.value
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in CONTAINER_METHODS \
                and isinstance(call.func.value, cst.Name) and call.args:
            return call.func.value, call.args[-1].value, True  # `insert(i, v)`: the value is last
    return None


def _outlives_iteration(accumulator: cst.Name, function: FunctionFacts, loop) -> bool:
    """Was the accumulator made before the loop (not afresh each iteration)?"""
    bindings = function.bindings_at(accumulator)
    return any(loop not in binding.loops for binding in bindings) and \
        not any(loop in binding.loops and binding.kind == "assign" and binding.name == accumulator.value
                and _is_fresh_start(binding) for binding in bindings)


def _is_fresh_start(binding: Binding) -> bool:
    value = binding.value
    return isinstance(value, (cst.List, cst.Dict, cst.Integer, cst.Float)) or (
        isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in ("list", "dict"))


def _carries_graph(value, function: FunctionFacts, backwards: list[Backward], loop) -> Optional[str]:
    """Why the value holds an autograd graph (None if it surely or possibly does not)."""
    names = list(_attached_names(value))
    in_training_loop = any(loop in function.loops_of.get(b.statement, ()) for b in backwards)
    for name in names:
        bindings = function.bindings_at(name)
        if not bindings:
            continue
        for backward in backwards:
            if loop in function.loops_of.get(backward.statement, ()) and bindings & _bindings_of(backward.loss, function):
                return f"`{name.value}` is backpropagated at this loop's `backward()` each iteration"
        if in_training_loop and all(binding.module_output for binding in bindings):
            return f"`{name.value}` is a model output of a loop that calls `backward()`"
    return None


def _attached_names(value):
    """Names in the value that are not cut off from autograd by `.item()`, `.detach()`, `float()`..."""
    if _detached(value):
        return
    if isinstance(value, cst.Name):
        yield value
    elif isinstance(value, cst.BinaryOperation):
        yield from _attached_names(value.left)
        yield from _attached_names(value.right)
    elif isinstance(value, cst.UnaryOperation):
        yield from _attached_names(value.expression)
    elif isinstance(value, (cst.Tuple, cst.List)):
        for element in value.elements:
            yield from _attached_names(element.value)
    elif isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
        yield from _attached_names(value.func.value)  # `out.cpu()`, `loss.mean()`: still attached
    elif isinstance(value, (cst.Subscript, cst.Attribute)):
        yield from _attached_names(value.value)


def _detached(value) -> bool:
    while True:
        if isinstance(value, cst.Call):
            func = value.func
            if isinstance(func, cst.Name) and func.value in DETACHING:
                return True
            if isinstance(func, cst.Attribute):
                if func.attr.value in DETACHING:
                    return True
                value = func.value
                continue
            return False
        if isinstance(value, (cst.Attribute, cst.Subscript)):
            if isinstance(value, cst.Attribute) and value.attr.value == "data":
                return True
            value = value.value
            continue
        return False


def _bindings_of(expr, function: FunctionFacts) -> set:
    root = root_name(expr)
    return set(function.bindings_at(root)) if root is not None else set()
