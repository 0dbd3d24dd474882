"""TCL007 graph-kept-alive: a loss or model output accumulated across a training loop's iterations
(in a name, a container, a running sum, or module state that each call builds on)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional

import libcst as cst

from torchcopylint.analysis.aliasing import FunctionFacts, root_name
from torchcopylint.analysis.containers import Accumulation, StateUpdate, literal_elements
from torchcopylint.analysis.facts import ModuleFacts
from torchcopylint.analysis.graphs import loss_slice
from torchcopylint.analysis.syntax import walk
from torchcopylint.analysis.tensors import NON_TENSOR_ATTRIBUTES
from torchcopylint.analysis.torchnames import dotted_name
from torchcopylint.analysis.training import (
    Backward,
    backpropagated_bindings,
    backward_calls,
    eval_mode_switches,
    module_key,
    modules_by_use,
)
from torchcopylint.rules.base import Finding, NodeFix, Rule
from torchcopylint.rules.edits import method_call

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
    summary = ("A loss or model output accumulated across loop iterations (or calls, in module state) keeps "
               "every iteration's graph alive")
    fix_availability = "unsafe"
    # `Module`: a module's state built on its previous value (`self.avg = self.avg * m + mean`)
    # needs no backward in sight.
    triggers = (b"backward", b".eval(", b".train(False)", b"Module")

    def check(self, facts: ModuleFacts) -> Iterator[Finding]:
        for function in facts.all_functions():
            reported: set = set()
            backwards = backward_calls(function, facts)
            evaluated = eval_mode_switches(function)
            if backwards or evaluated:
                for finding in self._loop_accumulations(facts, function, backwards, evaluated):
                    reported.add(finding.node)
                    yield finding
            if function.class_name is not None and function.name not in FRAMEWORK_NO_GRAD_METHODS \
                    and function.name != "__init__":  # `__init__` runs once per object: no chain across calls
                yield from self._state_across_calls(facts, function, backwards, reported)

    def _loop_accumulations(self, facts: ModuleFacts, function: FunctionFacts, backwards: list[Backward],
                            evaluated: dict) -> Iterator[Finding]:
        containers = facts.containers.of(function)
        backpropagated = backpropagated_bindings(function, backwards)
        backpropagated_attributes = _self_attributes_in(
            [binding.value for binding in backpropagated if binding.value is not None] + [b.loss for b in backwards])
        loop_facts = _LoopFacts(facts, function, backwards, evaluated, backpropagated)
        for accumulation in containers.accumulations:
            statement = accumulation.statement
            loops = function.loops_of.get(statement)
            if not loops or not facts.grad_enabled_at(function, statement):
                continue
            loop = loops[-1]
            if not containers.outlives(accumulation, loop):
                continue
            if containers.overwrites(accumulation, loop):
                continue  # `logs["loss"] = loss`: each iteration replaces the last one's entry
            if accumulation.holder is not None and function.bindings_at(accumulation.holder) & backpropagated:
                continue  # the accumulated values are backpropagated later: the graphs are wanted
            if accumulation.attribute in backpropagated_attributes:
                continue
            graph = loop_facts.graph_of(accumulation.value, loop, function.order_of(statement))
            if graph is None:
                continue
            value = accumulation.value
            where = _where_kept(facts, accumulation)
            if graph.summed_at is not None:
                # Detaching here would leave the sum with its graphs: the sum is where to cut them
                # (and once it sums numbers, `.detach()` here would fail).
                inner = graph.summed_at
                summed = method_call(inner.value, "detach" if inner.container else "item")
                advice = (f"sum `{_one_line(facts, summed)}` at line {facts.line_of(inner.statement)} instead "
                          f"(reported there too)")
                fix = None
            else:
                fixed = method_call(value, "detach" if accumulation.container else "item")
                advice = f"accumulate `{facts.code_for(fixed)}` instead"
                fix = self.unsafe_fix(f"Accumulate `{facts.code_for(fixed)}`", value, fixed)
            if graph.summed_at is not None:
                kept = _one_line(facts, accumulation.target)
                message = (f"`{facts.code_for(statement)}` inside the loop keeps every graph a running sum "
                           f"holds alive in `{kept}`, for every iteration of this loop, until `{kept}` is "
                           f"dropped ({graph.reason}); {advice}")
            else:
                message = (f"`{facts.code_for(statement)}` inside the loop keeps every iteration's autograd graph "
                           f"alive{where} ({graph.reason}); {advice}")
            yield self.finding(
                statement, message,
                fix, accumulator=_accumulator_key(accumulation), value=facts.code_for(value), kept=graph.kept,
                # The statement whose fix cures this finding: `--verify` leaves it as written when it
                # isolates the findings of one function (fixing a running sum cures what reads it).
                event_line=facts.line_of((graph.summed_at or accumulation).statement),
            )

    def _state_across_calls(self, facts: ModuleFacts, function: FunctionFacts, backwards: list[Backward],
                            reported: set) -> Iterator[Finding]:
        """`self.` state that each call builds on its previous value with a value carrying a graph, or
        that keeps one call's graph for the next call's backward."""
        containers = facts.containers.of(function)
        if not containers.state_updates:
            return
        owner = facts.classes.get(function.class_name or "")
        if owner is None or not (backwards or facts.is_module_class(owner)):
            return
        slices = None
        for update in containers.state_updates:
            statement = update.statement
            if not update.builds_on_previous and not backwards:
                continue  # a value kept for the next call matters only to a backward that reads it
            if statement in reported or _detached(update.value) or not facts.grad_enabled_at(function, statement):
                continue
            shown = f"self.{update.attribute}"
            read = None
            if not update.builds_on_previous:
                if slices is None:
                    slices = [(backward, loss_slice(backward.loss, backward.statement, function, facts))
                              for backward in backwards]
                read = _read_before(shown, statement, slices, function)
                if read is None:
                    continue
            attribute = cst.Attribute(value=cst.Name("self"), attr=cst.Name(update.attribute))
            if facts.autograd.origin(attribute, function, statement) is not None:
                continue  # a parameter itself (`self.w = self.w * 0.9 + ...`) is another matter
            origin = facts.autograd.origin(update.value, function, statement)
            if origin is None:
                continue
            why = f"{origin.description}, line {facts.line_of(origin.node)}"
            if update.builds_on_previous:
                fixed, fix = _cut_chain(update, facts, owner)
                yield self.finding(
                    statement,
                    f"`{_one_line(facts, statement)}` builds `{shown}` on its previous value with a value that "
                    f"requires grad ({'computed from ' if origin.derived else ''}{why}): each call links its "
                    f"autograd graph to the previous call's through `{shown}`, so the chain grows with every "
                    f"call and keeps every call's graph alive (a backward through `{shown}` reaches the "
                    f"previous calls' graphs, and fails with `Trying to backward through the graph a second "
                    f"time` once one of them was freed); {fixed}",
                    fix, accumulator=shown, value=facts.code_for(update.value), kept="graph chain",
                )
                continue
            backward, node = read
            fixed = method_call(update.value, "detach")
            yield self.finding(
                statement,
                f"`{_one_line(facts, statement)}` keeps this call's autograd graph on `{shown}` "
                f"({'computed from ' if origin.derived else ''}{why}), and the next call backpropagates "
                f"through it: `{_one_line(facts, backward.call)}` (line {facts.line_of(backward.statement)}) "
                f"reads `{shown}` (line {facts.line_of(node)}) before it is assigned again, so every call's "
                f"graph stays linked to the previous one's, and once that graph was freed by a backward the "
                f"call fails with `Trying to backward through the graph a second time`; store "
                f"`{facts.code_for(fixed)}` instead",
                self.unsafe_fix(f"Store `{facts.code_for(fixed)}`", update.value, fixed),
                accumulator=shown, value=facts.code_for(update.value), kept="graph chain",
            )


# Methods that training frameworks run under no-grad themselves (Lightning, Ignite evaluators).
FRAMEWORK_NO_GRAD_METHODS = frozenset({"validation_step", "test_step", "predict_step", "on_validation_batch_end",
                                       "on_test_batch_end", "on_predict_batch_end"})


def _accumulator_key(accumulation: Accumulation) -> str:
    """What `--verify` measures after the statement: the local name that holds the values (`log` for
    `log["train"]`), or the module state (`self.history`)."""
    if accumulation.holder is not None:
        return accumulation.holder.value
    return f"self.{accumulation.attribute}"


def _where_kept(facts: ModuleFacts, accumulation: Accumulation) -> str:
    """Names the container the values are kept in, when it is not the accumulator name itself."""
    target = _one_line(facts, accumulation.target)
    if accumulation.attribute is not None:
        return f" in `{target}`, module state that outlives the loop and the call"
    if accumulation.held:
        return f" in `{target}`, a container held by `{accumulation.holder.value}`, which outlives the loop"
    return ""


def _cut_chain(update: StateUpdate, facts: ModuleFacts, owner) -> tuple[str, Optional[NodeFix]]:
    """The fix of a state built on its previous value: detach the previous value where it is read
    (`self.avg.detach() * (1 - m) + mean * m`), or, for `self.total += loss`, the added value. No fix
    where the attribute may hold None (`self.hidden = None` to start): `None.detach()` would fail."""
    if update.augmented:
        fixed = method_call(update.value, "detach")
        code = facts.code_for(fixed)
        return f"add `{code}` instead", Rule.unsafe_fix(f"Add `{code}`", update.value, fixed)
    if any(isinstance(value, cst.Name) and value.value == "None"
           for value in facts.attribute_values(owner, update.attribute)):
        return (f"detach it where it is kept (`self.{update.attribute} = self.{update.attribute}.detach()` "
                f"after this statement, where it is not None)"), None
    fixed = update.value.visit(_DetachAttribute(update.attribute))
    code = _one_line(facts, fixed)
    return (f"detach the previous value where it is read (`{code}`)",
            Rule.unsafe_fix(f"Detach `self.{update.attribute}` where it is read", update.value, fixed))


class _DetachAttribute(cst.CSTTransformer):
    def __init__(self, attribute: str) -> None:
        self.attribute = attribute

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute):
        if isinstance(original.value, cst.Name) and original.value.value == "self" \
                and original.attr.value == self.attribute:
            return method_call(updated, "detach")
        return updated

    def leave_Call(self, original: cst.Call, updated: cst.Call):
        # `self.h.detach()` already: the transformer made `self.h.detach().detach()`; keep one.
        func = updated.func
        if isinstance(func, cst.Attribute) and func.attr.value == "detach" and isinstance(func.value, cst.Call) \
                and isinstance(func.value.func, cst.Attribute) and func.value.func.attr.value == "detach":
            return func.value
        return updated


def _read_before(shown: str, statement, slices: list, function: FunctionFacts):
    """(backward, node): a backward of this function whose loss reads `self.<attribute>` attached to
    the graph, at a statement before `statement` (so it reads the previous call's value)."""
    order = function.order_of(statement)
    for backward, graph in slices:
        for node, parent, where in graph.nodes:
            if isinstance(node, cst.Attribute) and dotted_name(node) == shown \
                    and not (isinstance(parent, cst.Call) and parent.func is node) \
                    and function.order_of(where) < order:
                return backward, node
    return None


def _self_attributes_in(expressions: list) -> frozenset:
    """`history` for every `self.history` read in these expressions."""
    found = set()
    for expression in expressions:
        for node in walk(expression):
            if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
                found.add(node.attr.value)
    return frozenset(found)


@dataclass(frozen=True)
class Graph:
    """What an accumulated value keeps alive: "graph nodes" (its graph was backpropagated, which freed
    the saved tensors) or "saved activations" (never backpropagated), and why we know."""

    kept: str
    reason: str
    # The running sum the value reads its graphs from (`curve.append(running / steps)` after
    # `running += loss`): the cure is there, at that sum.
    summed_at: Optional[Accumulation] = None


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
        self.containers = facts.containers.of(function)
        # Callees whose output this function backpropagates are models too (`model(x)` with `model` an argument).
        self.switches = facts.training.grad_switches(function) if evaluated else []
        # What the losses are computed from, with what containers among them hold (`outs.append(model(c))`).
        sources = [binding.value for binding in backpropagated if binding.value is not None]
        sources += [element for binding in backpropagated for element in self.containers.elements(binding) or ()]
        self.used_as_modules = modules_by_use(function) | _callees_in(sources + [b.loss for b in backwards], facts)

    def graph_of(self, value, loop, order: int, depth: int = 0) -> Optional[Graph]:
        for name in _attached_names(value):
            bindings = self.function.bindings_at(name)
            for backward in self.backwards:
                if bindings and loop in self.function.loops_of.get(backward.statement, ()) \
                        and bindings & _bindings_of(backward.loss, self.function):
                    return Graph(FREED[0], f"`{name.value}` is backpropagated at this loop's `backward()`, "
                                           f"{FREED[1]}")
        if depth < 3:
            for name in _attached_names(value):
                # `curve.append(running / steps)` after an inner loop's `running += loss`: the sum holds
                # every graph it was given.
                for inner in self.containers.accumulated_into(name):
                    inner_loops = self.function.loops_of.get(inner.statement, ())
                    if not inner_loops or inner.value is value:
                        continue
                    graph = self.graph_of(inner.value, inner_loops[-1], self.function.order_of(inner.statement),
                                          depth + 1)
                    if graph is not None:
                        return Graph(graph.kept, reason=f"`{name.value}` is a running sum "
                                                 f"(`{_one_line(self.facts, inner.statement)}`, line "
                                                 f"{self.facts.line_of(inner.statement)}) and holds the graph of "
                                                 f"every value it summed: {graph.reason}",
                                     summed_at=graph.summed_at or inner)
        in_training_loop = any(loop in self.function.loops_of.get(b.statement, ()) for b in self.backwards)
        found = self._model_output(value, in_training_loop, order, (), (), 0)
        if found is None:
            return None
        call, chain, via = found
        callee = f"`{_one_line(self.facts, call.func)}(...)`"
        through = f" through {' of '.join(dict.fromkeys(via))}" if via else ""
        if not chain:
            subject = f"the output of {callee}{through}"
        elif chain[-1].value is call and not via:
            subject = f"`{chain[0].name}`, the output of {callee},"
        else:
            subject = f"`{chain[0].name}`, computed from {callee}{through},"
        if any(binding in self.backpropagated for binding in chain):
            return Graph(FREED[0], f"{subject} is backpropagated by this function, {FREED[1]}")
        return Graph(NEVER[0], f"{subject} {NEVER[1]}")

    def _model_output(self, expr, in_training_loop: bool, order: int, chain: tuple, via: tuple, depth: int):
        """(the model call, the assignments followed to it, the containers and joins it went through)
        when `expr` is computed from a model's output by torch functions, tensor methods and losses
        that stay in the graph, or holds one (a list, a tuple); else None."""
        if depth > 8 or _detached(expr):
            return None
        if isinstance(expr, cst.Name):
            bindings = self.function.bindings_at(expr)
            if not bindings or any(binding.value is None or binding in chain for binding in bindings):
                return None
            if expr.value in self.used_as_modules:
                return None  # `model` itself (`snapshots.append(model.fc.weight)`): a module, not an output
            # A part of what a model returns (`pred, layer_inputs = net(x)`) may be a list or a
            # number: only a part the function uses as a tensor counts.
            if any(binding.kind == "unpack" and not binding.tensorness.is_tensor for binding in bindings):
                return None
            found = []
            for binding in bindings:
                elements = self.containers.elements(binding)
                if elements is None:
                    found.append(self._model_output(binding.value, in_training_loop, order, chain + (binding,), via,
                                                    depth + 1))
                    continue
                # `outs = []` then `outs.append(model(x))`: the container holds what was put in it.
                kind = "list" if isinstance(binding.value, (cst.List, cst.ListComp)) else "container"
                held = via + (f"the {kind} `{binding.name}`",)
                found.append(next((trace for trace in (
                    self._model_output(element, in_training_loop, order, chain + (binding,), held, depth + 1)
                    for element in elements) if trace is not None), None))
            return found[0] if all(found) else None
        if isinstance(expr, (cst.Tuple, cst.List, cst.Set, cst.Dict, cst.ListComp, cst.GeneratorExp, cst.SetComp,
                             cst.DictComp)):
            for element in literal_elements(expr):
                found = self._model_output(element, in_training_loop, order, chain, via, depth + 1)
                if found is not None:
                    return found
            return None
        if isinstance(expr, cst.BinaryOperation):
            return self._model_output(expr.left, in_training_loop, order, chain, via, depth + 1) \
                or self._model_output(expr.right, in_training_loop, order, chain, via, depth + 1)
        if isinstance(expr, cst.UnaryOperation):
            return self._model_output(expr.expression, in_training_loop, order, chain, via, depth + 1)
        if isinstance(expr, cst.Subscript):
            return self._model_output(expr.value, in_training_loop, order, chain, via, depth + 1)
        if isinstance(expr, cst.Attribute):
            if expr.attr.value in NON_TENSOR_ATTRIBUTES:
                return None
            return self._model_output(expr.value, in_training_loop, order, chain, via, depth + 1)
        if not isinstance(expr, cst.Call):
            return None
        func = expr.func
        if self._is_model(expr, in_training_loop, order):
            return expr, chain, via
        if isinstance(func, cst.Attribute) and func.attr.value in ATTACHED_METHODS \
                and self.facts.names.qualified_name(func) is None:
            return self._model_output(func.value, in_training_loop, order, chain, via, depth + 1)
        joined = self.containers.joined(expr)
        if joined is not None:
            # `torch.stack(outs)`, `torch.cat((a, b))`: the result carries the graphs of all it joins.
            return self._model_output(joined, in_training_loop, order, chain,
                                      via + (f"`{_one_line(self.facts, func)}(...)`",), depth + 1)
        qualified = self.facts.names.qualified_name(func) or ""
        through = qualified.rpartition(".")[0] in ("torch", "torch.nn.functional") \
            and qualified.rpartition(".")[2] not in GRADLESS_TORCH_FUNCTIONS
        if through or self._is_model(expr, True, order):  # `criterion(model(x), y)`: a loss module
            for arg in expr.args:
                found = self._model_output(arg.value, in_training_loop, order, chain, via, depth + 1)
                if found is not None:
                    return found
        return None

    def _is_model(self, call: cst.Call, in_training_loop: bool, order: int) -> bool:
        """Is the callee a model? Where the loop trains: surely a module, or used as one. In an
        evaluation loop (no backward): a module put in evaluation mode before the statement.
        Building an object of a class of the file (`net = Net(4)`) is not calling a model."""
        key = module_key(call.func)
        if key is None or key == "self" or key in self.facts.classes:
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
