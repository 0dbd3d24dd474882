"""TCL003 discriminator-without-detach: the discriminator's step backpropagates into the generator."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Iterator, Optional

import libcst as cst

from torchcopylint.analysis.aliasing import FunctionFacts
from torchcopylint.analysis.facts import ModuleFacts
from torchcopylint.analysis.graphs import later_use_through
from torchcopylint.analysis.syntax import child_nodes
from torchcopylint.analysis.training import GradSwitch, TrainingFacts, backward_calls, module_key
from torchcopylint.rules.base import Finding, Rule
from torchcopylint.rules.edits import method_call

# Only used to break ties when the optimizers do not tell which module is the generator.
GENERATOR_NAMES = ("netg", "generator", "gen", "g", "g_ab", "g_ba", "netg_a", "netg_b")
DETACHING_METHODS = ("detach", "detach_")


@dataclass(frozen=True)
class Window:
    """A step: the optimizers stepped after one backward, and the losses backpropagated since the
    previous step (as statement orders: after `after`, before `before`)."""

    optimizers: tuple  # every optimizer stepped with these gradients; the first is reported
    trained: frozenset  # the modules those optimizers update
    after: int
    before: int
    losses: tuple  # (backward statement, loss expression)
    step_statement: cst.CSTNode


class DiscriminatorWithoutDetach(Rule):
    code = "TCL003"
    name = "discriminator-without-detach"
    summary = "The discriminator's loss backpropagates through the generator: detach the fake batch"
    fix_availability = "sometimes"
    triggers = (b"step(",)

    def check(self, facts: ModuleFacts) -> Iterator[Finding]:
        training = facts.training
        for function in facts.all_functions():
            optimizers = training.optimizers_of(function)
            if not optimizers:
                continue
            windows = _windows(function, training, optimizers)
            if not windows:
                continue
            # Networks received as arguments: the structure names the generators (gan_roles).
            structural_generators = training.argument_roles(function).generators
            switches = training.grad_switches(function)
            detached_in_place = _detached_in_place(function)
            reported = set()
            for window in windows:
                # Generators: what other optimizers train, never what this step trains itself.
                generators = (frozenset().union(*optimizers.values()) | structural_generators) - window.trained
                for loss_statement, loss in window.losses:
                    for call in _calls_feeding(loss, function, window.after):
                        if module_key(call.func) not in window.trained or call in reported:
                            continue
                        if not facts.grad_enabled_at(function, function.call_statement.get(call)):
                            continue
                        for arg in call.args:
                            source = _generator_call(arg.value, function, generators, window.trained, facts,
                                                     switches, detached_in_place, function.order_of(loss_statement))
                            if source is None:
                                continue
                            reported.add(call)
                            safe = not _fix_would_break(call, arg.value, function, windows, window)
                            crash = _second_backward(source, loss_statement, window, function, facts)
                            finding = self._finding(facts, call, arg.value, source, loss_statement, window, safe, crash)
                            yield _linked_to_retained_graph(finding, facts, function, source, loss_statement)
                            break

    def _finding(self, facts, call, argument, source, loss_statement, window, safe: bool, crash) -> Finding:
        detached = method_call(argument, "detach")
        message = (
            f"`{_one_line(facts, call)}` feeds the discriminator the output of `{_one_line(facts, source.func)}(...)` "
            f"(line {facts.line_of(source)}) without `.detach()`: the backward at line {facts.line_of(loss_statement)} "
            f"for `{window.optimizers[0]}` (step at line {facts.line_of(window.step_statement)}) runs through the "
            f"whole generator and fills its `.grad`"
        )
        if crash is not None:
            message += (
                f", and frees its graph: the backward at line {facts.line_of(crash)} goes through the same "
                f"`{_one_line(facts, source.func)}(...)` output again and fails with `RuntimeError: Trying to "
                f"backward through the graph a second time`"
            )
        message += f"; use `{_one_line(facts, detached)}`"
        if safe:
            fix = self.safe_fix("Detach the generator output", argument, detached)
        else:
            message += " (the fix is unsafe here: the same values are also differentiated elsewhere)"
            fix = self.unsafe_fix("Detach the generator output", argument, detached)
        return self.finding(argument, message, fix,
                            generator=module_key(source.func), discriminator=module_key(call.func),
                            generator_line=facts.line_of(source), backward_line=facts.line_of(loss_statement),
                            step_line=facts.line_of(window.step_statement),
                            second_backward_line=facts.line_of(crash) if crash is not None else None)


def _second_backward(source: cst.Call, loss_statement, window: Window, function: FunctionFacts, facts):
    """The statement of a later backward that goes through the same generator output again, when
    the discriminator's backward frees that graph (no `retain_graph=True`); else None."""
    backwards = backward_calls(function, facts)
    discriminator_backward = next((b for b in backwards if b.statement is loss_statement), None)
    if discriminator_backward is None or _retains_graph(discriminator_backward.call):
        return None
    for backward in backwards:
        if function.order_of(backward.statement) > window.before and _reaches(backward.loss, source, function):
            return backward.statement
    return None


def _retains_graph(call: cst.Call) -> bool:
    return any(arg.keyword is not None and arg.keyword.value == "retain_graph"
               and not (isinstance(arg.value, cst.Name) and arg.value.value in ("False", "None")) for arg in call.args)


def _reaches(expr, target: cst.Call, function: FunctionFacts) -> bool:
    """Does `target`'s result flow into `expr` attached to the graph (through names, not `.detach()`)?"""
    seen = set()
    pending = [expr]
    while pending:
        for node in _walk_attached(pending.pop()):
            if node is target:
                return True
            if isinstance(node, cst.Name):
                for binding in function.bindings_at(node):
                    if binding not in seen and binding.value is not None:
                        seen.add(binding)
                        pending.append(binding.value)
    return False


def _linked_to_retained_graph(finding: Finding, facts: ModuleFacts, function: FunctionFacts, source: cst.Call,
                              loss_statement: cst.CSTNode) -> Finding:
    """When the step's backward keeps the graph (`retain_graph=True`) for a later backward through the same
    generator output, say so: TCL011 reports that backward, and names this finding."""
    later = later_use_through(source, loss_statement, function, facts)
    if later is None:
        return finding
    note = (f"; `retain_graph=True` on that backward only hides the second-backward error of the backward at "
            f"line {facts.line_of(later.statement)} (TCL011 at line {facts.line_of(loss_statement)})")
    return dataclasses.replace(finding, message=finding.message + note)


def _one_line(facts: ModuleFacts, node: cst.CSTNode, limit: int = 80) -> str:
    text = " ".join(facts.code_for(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _windows(function: FunctionFacts, training: TrainingFacts, optimizers: dict) -> list[Window]:
    """Steps that follow the same backward form one window: `loss.backward(); opt_a.step(); opt_b.step()`."""
    windows: list[Window] = []
    steps = training.steps(function)
    backward_orders = [(function.order_of(b.statement), b) for b in backward_calls(function, training.facts)]
    previous = -1
    index = 0
    while index < len(steps):
        group = [steps[index]]
        while index + 1 < len(steps) and not any(group[-1].order < order < steps[index + 1].order
                                                  for order, _ in backward_orders):
            index += 1
            group.append(steps[index])
        losses = tuple((b.statement, b.loss) for order, b in backward_orders if previous < order < group[0].order)
        if losses:
            trained = frozenset().union(*(optimizers[step.optimizer] for step in group))
            windows.append(Window(tuple(step.optimizer for step in group), trained, previous, group[0].order,
                                  losses, group[0].statement))
        previous = group[-1].order
        index += 1
    return windows


def _detached_in_place(function: FunctionFacts) -> list[tuple[str, int]]:
    """`fake.detach_()` as a statement: (name, statement order)."""
    found = []
    for call, statement in function.call_statement.items():
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value == "detach_" and isinstance(func.value, cst.Name):
            found.append((func.value.value, function.order_of(statement)))
    return found


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


def _generator_call(expr, function: FunctionFacts, generators: frozenset, trained: frozenset, facts: ModuleFacts,
                    switches: list[GradSwitch], detached_in_place: list, backward_order: int) -> Optional[cst.Call]:
    """The generator call whose graph reaches `expr` (None if detached, under no-grad, or switched off)."""
    seen = set()
    pending = [expr]
    while pending:
        current = pending.pop()
        for node in _walk_attached(current):
            if isinstance(node, cst.Call) and _is_generator(node, generators, trained):
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
                    made = function.order_of(binding.statement)
                    if any(name == node.value and made < order < backward_order for name, order in detached_in_place):
                        continue
                    if facts.grad_enabled_at(function, binding.statement):
                        pending.append(binding.value)
    return None


def _is_generator(call: cst.Call, generators: frozenset, trained: frozenset) -> bool:
    key = module_key(call.func)
    if key is None or key in trained:
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


def _fix_would_break(call: cst.Call, argument, function: FunctionFacts, windows: list[Window], window: Window) -> bool:
    """Detaching is unsafe when the discriminator's output also feeds another step's loss (the
    generator would stop learning) or when the argument is differentiated with autograd.grad."""
    for other in windows:
        if other is window:
            continue
        for _, loss in other.losses:
            if call in _calls_feeding(loss, function, -1):
                return True
    names = {node.value for node in _walk(argument) if isinstance(node, cst.Name)}
    for other_call in function.call_statement:
        func = other_call.func
        if isinstance(func, cst.Attribute) and func.attr.value == "grad" and len(other_call.args) >= 2:
            inputs = other_call.args[1].value
            if {node.value for node in _walk(inputs) if isinstance(node, cst.Name)} & names:
                return True
    return False


def _walk(node: cst.CSTNode):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and current is not node:
            continue
        stack.extend(child_nodes(current))


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
        if isinstance(current, cst.Lambda):
            continue
        if isinstance(current, cst.Call) and isinstance(current.func, cst.Name):
            # The callee's name is not data flowing in: `generator(z)` is judged as a call, and
            # the assignment that built `generator` is not followed.
            stack.extend(current.args)
            continue
        stack.extend(child_nodes(current))
