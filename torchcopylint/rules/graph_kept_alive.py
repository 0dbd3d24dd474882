"""TCL007 graph-kept-alive: a loss or model output accumulated across a training loop's iterations."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional

import libcst as cst

from torchcopylint.analysis.aliasing import Binding, FunctionFacts, root_name
from torchcopylint.analysis.facts import ModuleFacts
from torchcopylint.analysis.syntax import walk
from torchcopylint.analysis.tensors import NON_TENSOR_ATTRIBUTES
from torchcopylint.analysis.training import (
    Backward,
    backpropagated_bindings,
    backward_calls,
    eval_mode_switches,
    module_key,
    modules_by_use,
)
from torchcopylint.rules.base import Finding, Rule
from torchcopylint.rules.edits import method_call

CONTAINER_METHODS = ("append", "extend", "insert", "add")
# Calls that turn a tensor into something without a graph: wrapping with one of them is the cure.
DETACHING = frozenset({"item", "detach", "tolist", "numpy", "float", "int"})
# Tensor methods whose result stays in the graph of their receiver.
ATTACHED_METHODS = frozenset({"cpu", "cuda", "to", "squeeze", "unsqueeze", "view", "reshape", "flatten", "mean",
                              "sum", "softmax", "log_softmax", "sigmoid", "contiguous", "clone"})
# torch functions whose result never requires grad.
GRADLESS_TORCH_FUNCTIONS = frozenset({"argmax", "argmin", "argsort", "eq", "ne", "gt", "lt", "ge", "le", "isnan",
                                      "isinf", "isfinite", "numel", "is_tensor", "zeros_like", "ones_like",
                                      "empty_like", "full_like", "rand_like", "randn_like", "randint_like"})


class GraphKeptAlive(Rule):
    code = "TCL007"
    name = "graph-kept-alive"
    summary = "A loss or model output accumulated across loop iterations keeps every iteration's graph alive"
    fix_availability = "unsafe"
    triggers = (b"backward", b".eval(", b".train(False)")

    def check(self, facts: ModuleFacts) -> Iterator[Finding]:
        for function in facts.all_functions():
            backwards = backward_calls(function, facts)
            evaluated = eval_mode_switches(function)
            if not backwards and not evaluated:
                continue
            backpropagated = backpropagated_bindings(function, backwards)
            loop_facts = _LoopFacts(facts, function, backwards, evaluated, backpropagated)
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
                if _overwrites_one_entry(statement, function, loop):
                    continue  # `logs["loss"] = loss`: each iteration replaces the last one's entry
                if function.bindings_at(accumulator) & backpropagated:
                    continue  # the accumulated values are backpropagated later: the graphs are wanted
                graph = loop_facts.graph_of(value, loop, function.order_of(statement))
                if graph is None:
                    continue
                fixed = method_call(value, "detach" if container else "item")
                yield self.finding(
                    statement,
                    f"`{facts.code_for(statement)}` inside the loop keeps every iteration's autograd graph "
                    f"alive ({graph.reason}); accumulate `{facts.code_for(fixed)}` instead",
                    self.unsafe_fix(f"Accumulate `{facts.code_for(fixed)}`", value, fixed),
                    accumulator=accumulator.value, value=facts.code_for(value), kept=graph.kept,
                )


@dataclass(frozen=True)
class Graph:
    """What an accumulated value keeps alive: "graph nodes" (its graph was backpropagated, which freed
    the saved tensors) or "saved activations" (never backpropagated), and why we know."""

    kept: str
    reason: str


FREED = ("graph nodes", "which frees the activations its graph saved; what stays is each iteration's chain of "
         "graph nodes")
NEVER = ("saved activations", "is made in grad mode and never backpropagated, so every iteration's saved "
         "activations stay with it")


class _LoopFacts:
    """Answers "does this value carry an autograd graph, and was that graph backpropagated?"."""

    def __init__(self, facts: ModuleFacts, function: FunctionFacts, backwards: list[Backward],
                 evaluated: dict, backpropagated: set) -> None:
        self.facts = facts
        self.function = function
        self.backwards = backwards
        self.evaluated = evaluated
        self.backpropagated = backpropagated
        # Callees whose output this function backpropagates are models too (`model(x)` with `model` an argument).
        self.switches = facts.training.grad_switches(function) if evaluated else []
        self.used_as_modules = modules_by_use(function) | _callees_in(
            [binding.value for binding in backpropagated if binding.value is not None] + [b.loss for b in backwards],
            facts)

    def graph_of(self, value, loop, order: int) -> Optional[Graph]:
        for name in _attached_names(value):
            bindings = self.function.bindings_at(name)
            for backward in self.backwards:
                if bindings and loop in self.function.loops_of.get(backward.statement, ()) \
                        and bindings & _bindings_of(backward.loss, self.function):
                    return Graph(FREED[0], f"`{name.value}` is backpropagated at this loop's `backward()`, "
                                           f"{FREED[1]}")
        in_training_loop = any(loop in self.function.loops_of.get(b.statement, ()) for b in self.backwards)
        found = self._model_output(value, in_training_loop, order, (), 0)
        if found is None:
            return None
        call, chain = found
        callee = f"`{_one_line(self.facts, call.func)}(...)`"
        if not chain:
            subject = f"the output of {callee}"
        elif chain[-1].value is call:
            subject = f"`{chain[0].name}`, the output of {callee},"
        else:
            subject = f"`{chain[0].name}`, computed from {callee},"
        if any(binding in self.backpropagated for binding in chain):
            return Graph(FREED[0], f"{subject} is backpropagated by this function, {FREED[1]}")
        return Graph(NEVER[0], f"{subject} {NEVER[1]}")

    def _model_output(self, expr, in_training_loop: bool, order: int, chain: tuple, depth: int):
        """(the model call, the assignments followed to it) when `expr` is computed from a model's
        output by torch functions, tensor methods and losses that stay in the graph; else None."""
        if depth > 6 or _detached(expr):
            return None
        if isinstance(expr, cst.Name):
            bindings = self.function.bindings_at(expr)
            if not bindings or any(binding.value is None or binding in chain for binding in bindings):
                return None
            # A part of what a model returns (`pred, layer_inputs = net(x)`) may be a list or a
            # number: only a part the function uses as a tensor counts.
            if any(binding.kind == "unpack" and not binding.tensorness.is_tensor for binding in bindings):
                return None
            found = [self._model_output(binding.value, in_training_loop, order, chain + (binding,), depth + 1)
                     for binding in bindings]
            return found[0] if all(found) else None
        if isinstance(expr, cst.BinaryOperation):
            return self._model_output(expr.left, in_training_loop, order, chain, depth + 1) \
                or self._model_output(expr.right, in_training_loop, order, chain, depth + 1)
        if isinstance(expr, cst.UnaryOperation):
            return self._model_output(expr.expression, in_training_loop, order, chain, depth + 1)
        if isinstance(expr, cst.Subscript):
            return self._model_output(expr.value, in_training_loop, order, chain, depth + 1)
        if isinstance(expr, cst.Attribute):
            if expr.attr.value in NON_TENSOR_ATTRIBUTES:
                return None
            return self._model_output(expr.value, in_training_loop, order, chain, depth + 1)
        if not isinstance(expr, cst.Call):
            return None
        func = expr.func
        if self._is_model(expr, in_training_loop, order):
            return expr, chain
        if isinstance(func, cst.Attribute) and func.attr.value in ATTACHED_METHODS \
                and self.facts.names.qualified_name(func) is None:
            return self._model_output(func.value, in_training_loop, order, chain, depth + 1)
        qualified = self.facts.names.qualified_name(func) or ""
        through = qualified.rpartition(".")[0] in ("torch", "torch.nn.functional") \
            and qualified.rpartition(".")[2] not in GRADLESS_TORCH_FUNCTIONS
        if through or self._is_model(expr, True, order):  # `criterion(model(x), y)`: a loss module
            for arg in expr.args:
                found = self._model_output(arg.value, in_training_loop, order, chain, depth + 1)
                if found is not None:
                    return found
        return None

    def _is_model(self, call: cst.Call, in_training_loop: bool, order: int) -> bool:
        """Is the callee a model? Where the loop trains: surely a module, or used as one. In an
        evaluation loop (no backward): a module put in evaluation mode before the statement."""
        key = module_key(call.func)
        if key is None or key == "self":
            return False
        if self._frozen(key, order):
            return False  # `model.requires_grad_(False)`: its outputs record no graph
        if in_training_loop:
            return self.facts.calls_a_module(call, self.function) or key in self.used_as_modules
        return self.evaluated.get(key, order + 1) < order

    def _frozen(self, key: str, order: int) -> bool:
        state = True
        for switch in self.switches:
            if switch.order < order and key in switch.modules:
                state = switch.enabled
        return not state


def _callees_in(expressions: list, facts: ModuleFacts) -> frozenset:
    """`model`, `self.head`: what is called by name in these expressions (torch's own functions aside)."""
    found = set()
    for expression in expressions:
        for node in walk(expression):
            if isinstance(node, cst.Call) and facts.names.qualified_name(node.func) is None \
                    and _is_name_or_self_attribute(node.func):
                found.add(module_key(node.func))
    return frozenset(found)


def _is_name_or_self_attribute(func) -> bool:
    """`model`, `self.model`, `self.encoder.head`: how a model is called (not `y.long()`, a tensor's method)."""
    while isinstance(func, cst.Attribute):
        func = func.value
        if isinstance(func, cst.Name):
            return func.value == "self"
    return isinstance(func, cst.Name)


def _one_line(facts: ModuleFacts, node: cst.CSTNode, limit: int = 60) -> str:
    text = " ".join(facts.code_for(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


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


def _overwrites_one_entry(statement, function: FunctionFacts, loop) -> bool:
    """`acc[k] = v` with a key that is the same in every iteration: a literal, or names all
    assigned before the loop. A key computed in the loop (`acc[step]`, `acc[len(acc)]`) accumulates."""
    if not (isinstance(statement, cst.Assign) and isinstance(statement.targets[0].target, cst.Subscript)):
        return False
    for element in statement.targets[0].target.slice:
        index = element.slice
        if not isinstance(index, cst.Index):
            return False
        for node in walk(index.value):
            if isinstance(node, (cst.Call, cst.Subscript)):
                return False
            if isinstance(node, cst.Name):
                bindings = function.bindings_at(node)
                # A name never assigned in the function (a module constant) is the same every time.
                if any(loop in binding.loops or binding.statement is loop for binding in bindings):
                    return False
    return True


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
