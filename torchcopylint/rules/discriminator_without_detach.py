"""TCL003 discriminator-without-detach: the discriminator's step backpropagates into the generator."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional

import libcst as cst

from torchcopylint.analysis.aliasing import FunctionFacts
from torchcopylint.analysis.facts import ModuleFacts
from torchcopylint.analysis.training import (
    GradSwitch,
    TrainingFacts,
    backward_calls,
    module_key,
)
from torchcopylint.rules.base import Finding, Rule
from torchcopylint.rules.edits import method_call

# Only used to break ties when the optimizers do not tell which module is the generator.
GENERATOR_NAMES = ("netg", "generator", "gen", "g", "g_ab", "g_ba", "netg_a", "netg_b")
DETACHING_METHODS = ("detach", "detach_")


@dataclass(frozen=True)
class Window:
    """The statements between the previous optimizer step and this one, as (after, before) orders."""

    optimizer: str
    after: int
    before: int
    losses: tuple  # (backward or return statement, loss expression)
    step_line_node: cst.CSTNode


class DiscriminatorWithoutDetach(Rule):
    code = "TCL003"
    name = "discriminator-without-detach"
    summary = "The discriminator's loss backpropagates through the generator: detach the fake batch"
    fix_availability = "safe"
    triggers = (b"step(", b"optimizer_idx")

    def check(self, facts: ModuleFacts) -> Iterator[Finding]:
        training = facts.training
        if len(training.optimizers) < 1:
            return
        for function in facts.all_functions():
            reported = set()
            for window in _windows(function, training, facts):
                discriminators = training.optimizers[window.optimizer]
                generators = frozenset().union(
                    *(modules for key, modules in training.optimizers.items() if modules != discriminators)
                ) - discriminators
                switches = training.grad_switches(function)
                for loss_statement, loss in window.losses:
                    for call in _calls_feeding(loss, function, window.after):
                        if module_key(call.func) not in discriminators or call in reported:
                            continue
                        if not facts.grad_enabled_at(function, function.call_statement.get(call)):
                            continue
                        for arg in call.args:
                            source = _generator_call(arg.value, function, generators, facts, switches,
                                                     function.order_of(loss_statement))
                            if source is None:
                                continue
                            reported.add(call)
                            yield self._finding(facts, call, arg.value, source, loss_statement, window)
                            break

    def _finding(self, facts, call, argument, source, loss_statement, window) -> Finding:
        generator = facts.code_for(source.func)
        message = (
            f"`{facts.code_for(call)}` feeds the discriminator the output of `{generator}(...)` (line "
            f"{facts.line_of(source)}) without `.detach()`: the backward at line {facts.line_of(loss_statement)} "
            f"for `{window.optimizer}` (step at line {facts.line_of(window.step_line_node)}) runs through the "
            f"whole generator and fills its `.grad`; use `{facts.code_for(method_call(argument, 'detach'))}`"
        )
        return self.finding(argument, message, self.safe_fix("Detach the generator output", argument,
                                                             method_call(argument, "detach")),
                            generator=module_key(source.func), discriminator=module_key(call.func),
                            generator_line=facts.line_of(source), backward_line=facts.line_of(loss_statement),
                            step_line=facts.line_of(window.step_line_node))


def _windows(function: FunctionFacts, training: TrainingFacts, facts: ModuleFacts) -> list[Window]:
    windows = []
    steps = training.steps(function)
    backwards = backward_calls(function)
    for index, step in enumerate(steps):
        previous = steps[index - 1].order if index > 0 else -1
        losses = tuple((b.statement, b.loss) for b in backwards
                       if previous < function.order_of(b.statement) < step.order)
        if losses:
            windows.append(Window(step.optimizer, previous, step.order, losses, step.statement))
    windows.extend(_lightning_automatic_windows(function, training))
    return windows


def _lightning_automatic_windows(function: FunctionFacts, training: TrainingFacts) -> list[Window]:
    """`training_step(..., optimizer_idx)`: the branch for index K returns the loss of optimizer K."""
    node = function.node
    if not isinstance(node, cst.FunctionDef) or node.name.value != "training_step" or not training.configured:
        return []
    parameters = {param.name.value for param in node.params.params}
    if "optimizer_idx" not in parameters:
        return []
    windows = []
    for statement in _walk(node.body):
        if not isinstance(statement, cst.If):
            continue
        index = _optimizer_index_tested(statement.test)
        if index is None or index >= len(training.configured) or training.configured[index] not in training.optimizers:
            continue
        returns = [(r, r.value) for r in _walk(statement.body) if isinstance(r, cst.Return) and r.value is not None]
        if returns:
            windows.append(Window(training.configured[index], function.order_of(statement) - 1,
                                  10**9, tuple(returns), returns[0][0]))
    return windows


def _optimizer_index_tested(test) -> Optional[int]:
    if isinstance(test, cst.Comparison) and isinstance(test.left, cst.Name) and test.left.value == "optimizer_idx" \
            and len(test.comparisons) == 1 and isinstance(test.comparisons[0].operator, cst.Equal) \
            and isinstance(test.comparisons[0].comparator, cst.Integer):
        return int(test.comparisons[0].comparator.value)
    return None


def _calls_feeding(expr, function: FunctionFacts, after: int) -> list[cst.Call]:
    """Every call whose result flows into `expr`, through assignments made after order `after`."""
    calls = []
    seen = set()
    pending = [expr]
    while pending:
        current = pending.pop()
        for node in _walk(current):
            if isinstance(node, cst.Call):
                calls.append(node)
            if isinstance(node, cst.Name):
                for binding in function.bindings_at(node):
                    if binding in seen or binding.value is None:
                        continue
                    if function.order_of(binding.statement) <= after:
                        continue
                    seen.add(binding)
                    pending.append(binding.value)
    return calls


def _generator_call(expr, function: FunctionFacts, generators: frozenset, facts: ModuleFacts,
                    switches: list[GradSwitch], backward_order: int) -> Optional[cst.Call]:
    """The generator call whose graph reaches `expr` (None if detached, under no-grad, or switched off)."""
    seen = set()
    pending = [expr]
    while pending:
        current = pending.pop()
        for node in _walk_attached(current):
            if isinstance(node, cst.Call) and _is_generator(node, generators):
                statement = function.call_statement.get(node)
                if statement is None or not facts.grad_enabled_at(function, statement):
                    continue
                if _switched_off(module_key(node.func), switches, function.order_of(statement), backward_order):
                    continue
                return node
            if isinstance(node, cst.Name):
                for binding in function.bindings_at(node):
                    if binding in seen or binding.value is None:
                        continue
                    seen.add(binding)
                    if facts.grad_enabled_at(function, binding.statement):
                        pending.append(binding.value)
    return None


def _is_generator(call: cst.Call, generators: frozenset) -> bool:
    key = module_key(call.func)
    if key is None:
        return False
    if generators:
        return key in generators
    return key.rpartition(".")[2].lower() in GENERATOR_NAMES


def _switched_off(module: Optional[str], switches: list[GradSwitch], call_order: int, backward_order: int) -> bool:
    """Were the generator's parameters off when it ran, or switched off before the backward?"""
    state_at_call = True
    for switch in switches:
        if module in switch.modules and switch.order < call_order:
            state_at_call = switch.enabled
    if not state_at_call:
        return True
    return any(module in s.modules and not s.enabled and call_order < s.order < backward_order for s in switches)


def _walk(node: cst.CSTNode):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and current is not node:
            continue
        stack.extend(current.children)


def _walk_attached(node: cst.CSTNode):
    """Like _walk, but not into what `.detach()` / `.data` cut from the graph."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Call) and isinstance(current.func, cst.Attribute) \
                and current.func.attr.value in DETACHING_METHODS:
            stack.extend(arg for arg in current.args)
            continue
        if isinstance(current, cst.Attribute) and current.attr.value == "data":
            continue
        yield current
        if isinstance(current, (cst.Lambda,)):
            continue
        stack.extend(current.children)
