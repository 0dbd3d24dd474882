"""TCL007 graph-kept-alive: a loss or model output accumulated across a training loop's iterations
(in a name, a container, a running sum, or module state that each call builds on)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional

import libcst as cst

from torchcopylint.analysis.aliasing import FunctionFacts, root_name
from torchcopylint.analysis.autograd import ASSUMED, POSSIBLE
from torchcopylint.analysis.containers import (INSERTING_METHODS, Accumulation, StateUpdate, emptied_outside_init,
                                                ends_its_loop, reset_offered_to_callers, resets_in_own_methods,
                                                started_over_by_every_caller)
from torchcopylint.analysis.facts import FRAMEWORK_NO_GRAD_METHODS, ModuleFacts
from torchcopylint.analysis.gan_steps import argument_for
from torchcopylint.analysis.graphs import loss_slice, retains_graph
from torchcopylint.analysis.keeping import returned_backpropagated_loss, returned_to_a_backward
from torchcopylint.analysis.syntax import child_nodes, sum_terms, walk
from torchcopylint.analysis.tensors import NON_TENSOR_METHODS
from torchcopylint.analysis.torchnames import dotted_name
from torchcopylint.analysis.training import (
    Backward,
    backpropagated_bindings,
    backward_calls,
    backward_values_used,
    eval_mode_switches,
    flowing_bindings,
    module_key,
    object_of_an_unknown_class,
)
from torchcopylint.rules.base import Finding, NodeFix, Rule
from torchcopylint.rules.edits import method_call

# Calls that turn a tensor into something without a graph: wrapping with one of them is the cure.
DETACHING = frozenset({"item", "detach", "detach_", "tolist", "numpy", "float", "int"})
# Calls whose result holds the graphs of the items of the sequence they are given.
SEQUENCE_JOINERS = frozenset({"sum", "torch.stack", "torch.cat", "torch.sum", "torch.mean"})
# Methods that give numbers, named but not called (`loss.item`): the bound method holds the tensor.
UNCALLED_CONVERSIONS = frozenset({"item", "tolist"})


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
        if not facts.names.imports_torch and backward_values_used(facts):
            return  # a course's own NumPy framework (`mm.Sequential`, `model.backward(x, grad)`): no autograd
        for function in facts.all_functions():
            reported: set = set()
            backwards = backward_calls(function, facts)
            evaluated = eval_mode_switches(function)
            if backwards or evaluated or _sums_returned_losses(facts, function):
                for finding in self._loop_accumulations(facts, function, backwards, evaluated):
                    reported.add(finding.node)
                    yield finding
                yield from self._kept_by_callees(facts, function, backwards, evaluated)
            if function.class_name is not None and function.name not in FRAMEWORK_NO_GRAD_METHODS \
                    and function.name != "__init__":  # `__init__` runs once per object: no chain across calls
                yield from self._state_across_calls(facts, function, backwards, reported)
                yield from self._kept_by_a_step_method(facts, function, backwards)

    def _loop_accumulations(self, facts: ModuleFacts, function: FunctionFacts, backwards: list[Backward],
                            evaluated: dict) -> Iterator[Finding]:
        containers = facts.containers.of(function)
        backpropagated = backpropagated_bindings(function, backwards)
        backpropagated_attributes = _self_attributes_in(
            [binding.value for binding in backpropagated if binding.value is not None] + [b.loss for b in backwards])
        loop_facts = _LoopFacts(facts, function, backwards, evaluated, backpropagated)
        flows = None  # (backward, what flows into its loss), computed on first need
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
            if (accumulation.holder is not None and function.bindings_at(accumulation.holder) & backpropagated) \
                    or accumulation.attribute in backpropagated_attributes:
                # The accumulated values are backpropagated: the graphs are wanted, unless the sum
                # outlives the loop whose every iteration backpropagates it (kept across steps).
                if flows is None:
                    flows = [(backward, flowing_bindings(backward.loss, function, through_detach=False))
                             for backward in backwards]
                across = _kept_across_backwards(facts, function, accumulation, flows, containers)
                if across is not None:
                    yield self._across_backwards(facts, accumulation, *across)
                continue
            if _held_by_the_iterable(accumulation.value, loop, function):
                continue
            if accumulation.holder is not None and returned_to_a_backward(facts, function, accumulation.holder):
                continue  # `return test_loss`, which the caller backpropagates: the graphs are the point
            if accumulation.how in INSERTING_METHODS and accumulation.holder is not None \
                    and object_of_an_unknown_class(accumulation.holder, function, facts):
                continue  # `meter.append(loss)` of a class of another file: what its method keeps is not known
            if accumulation.how in ("setitem", "+=", "-=") and _a_numpy_array(accumulation.holder, function, facts):
                # `losses[i] = loss` into `np.zeros(n)`, `totals += ...` in place on one: NumPy stores
                # numbers, not the tensor (and a tensor that requires grad it does not convert at all).
                continue
            if type(accumulation.value) is cst.Name and _a_numpy_array(accumulation.value, function, facts):
                continue  # `history.append(totals)` of such an array: numbers again
            outlived = tuple(each for each in loops if containers.outlives(accumulation, each))
            graph = loop_facts.graph_of(accumulation.value, loop, statement, outlived=outlived)
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
                cut = "detach" if accumulation.container else "item"
                if isinstance(value, (cst.Tuple, cst.List)):
                    # `outs.append((loss, step))`: a tuple has no `.detach()`; cut each part that holds a graph.
                    fixed = value.with_changes(elements=[
                        element.with_changes(value=method_call(element.value, cut))
                        if loop_facts.graph_of(element.value, loop, statement) is not None else element
                        for element in value.elements])
                elif isinstance(value, cst.Dict):
                    # `metrics.append({"loss": loss.item(), "out": out})`: nor has a dict; cut each value.
                    fixed = value.with_changes(elements=[
                        element.with_changes(value=method_call(element.value, cut))
                        if isinstance(element, cst.DictElement)
                        and loop_facts.graph_of(element.value, loop, statement) is not None else element
                        for element in value.elements])
                elif type(value) is cst.Attribute and value.attr.value in UNCALLED_CONVERSIONS:
                    # `l.append(loss.item)`: the bound method holds `loss`, graph and all; the call was meant.
                    fixed = cst.Call(func=value)
                else:
                    fixed = method_call(value, cut)
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

    def _kept_by_callees(self, facts: ModuleFacts, function: FunctionFacts, backwards: list[Backward],
                         evaluated: dict) -> Iterator[Finding]:
        """A call in the loop that hands a value with a graph to a function or method of this file
        that keeps it beyond the call: `meter.update(loss, n)` of a meter whose `update` runs
        `self.sum += val * n`, `record(history, loss)` whose body appends to `history`."""
        loop_facts = None
        for call, statement in function.call_statement.items():
            loops = function.loops_of.get(statement)
            if not loops or not facts.grad_enabled_at(function, statement):
                continue
            callee = _callee_of(facts, call, function)
            if callee is None or not callee.kept_arguments:
                continue
            loop = loops[-1]
            for kept in callee.kept_arguments:
                passed = argument_for(call, callee, kept.index)
                holder = _holder_outliving(facts, call, callee, kept, function, loop)
                if passed is None or holder is None:
                    continue
                if loop_facts is None:
                    loop_facts = _LoopFacts(facts, function, backwards, evaluated,
                                            backpropagated_bindings(function, backwards))
                graph = loop_facts.graph_of(passed, loop, statement)
                if graph is None:
                    continue
                fixed = method_call(passed, "detach" if kept.container else "item")
                parameter = callee.parameters[kept.index]
                inside = kept.into if isinstance(kept.into, str) else callee.parameters[kept.into]
                yield self.finding(
                    statement,
                    f"`{_one_line(facts, call)}` inside the loop keeps every iteration's autograd graph alive in "
                    f"`{holder}`: `{_one_line(facts, call.func)}` keeps its argument `{parameter}` in `{inside}` "
                    f"(`{_one_line(facts, kept.statement)}`, line {facts.line_of(kept.statement)}), and "
                    f"{graph.reason}; pass `{facts.code_for(fixed)}` instead",
                    self.unsafe_fix(f"Pass `{facts.code_for(fixed)}`", passed, fixed),
                    accumulator=holder, value=facts.code_for(passed), kept=graph.kept,
                )
                break

    def _kept_by_a_step_method(self, facts: ModuleFacts, function: FunctionFacts,
                               backwards: list[Backward]) -> Iterator[Finding]:
        """A training step written as a method, called in a loop, that backpropagates its loss and then
        keeps it in a container of `self` that no code of the file empties (`self.custo.append(q_loss)`
        in a DQN agent's `train_agent()`): each call's graph stays alive for the object's life. The
        graph was freed by the step's own backward, so nothing can backpropagate it again."""
        if not backwards or any(retains_graph(backward.call) for backward in backwards):
            return
        loop_calls = [call for call in facts.method_calls(function.name)
                      if (site := facts.call_site(call)) is not None and site[0].loops_of.get(site[1])]
        if not loop_calls:
            return  # how often the method runs is out of sight
        backpropagated = backpropagated_bindings(function, backwards)
        for accumulation in facts.containers.of(function).accumulations:
            statement = accumulation.statement
            if not accumulation.container or accumulation.attribute is None or accumulation.held \
                    or function.loops_of.get(statement) or not facts.grad_enabled_at(function, statement):
                continue  # (one in a loop of the method is `_loop_accumulations`'s)
            value = accumulation.value
            if type(value) is not cst.Name or not function.bindings_at(value) \
                    or not function.bindings_at(value) <= backpropagated:
                continue
            if facts.autograd.carries_graph(value, function, statement, ASSUMED) is None:
                continue  # `self.observed_tasks.append(t)` of a task id the loss was computed with: no graph
            if emptied_outside_init(facts, accumulation.attribute):
                continue
            call = loop_calls[0]
            _, call_statement = facts.call_site(call)
            fixed = method_call(value, "detach")
            kept = _one_line(facts, accumulation.target)
            yield self.finding(
                statement,
                f"`{_one_line(facts, statement)}` keeps each call's autograd graph alive in `{kept}`, module "
                f"state that no code of the file empties: `{value.value}` is backpropagated in "
                f"`{function.name}` (line {facts.line_of(backwards[0].statement)}), which "
                f"`{_one_line(facts, call.func)}(...)` runs in a loop (line {facts.line_of(call_statement)}), so "
                f"`{kept}` holds every step's graph for the object's life; keep `{facts.code_for(fixed)}` instead",
                self.unsafe_fix(f"Keep `{facts.code_for(fixed)}`", value, fixed),
                accumulator=kept, value=value.value, kept="graph",
            )

    def _across_backwards(self, facts: ModuleFacts, accumulation: Accumulation, backward: Backward,
                          loop) -> Finding:
        statement = accumulation.statement
        kept = _one_line(facts, accumulation.target)
        if accumulation.container:
            # A list of losses stacked into the loss: emptied, not zeroed (and a deque or a buffer
            # object has a start of its own the rule does not guess).
            restart = f"start `{kept}` afresh at the top of each iteration"
        else:
            restart = f"start `{kept}` afresh at the top of each iteration (`{kept} = 0`)"
        return self.finding(
            statement,
            f"`{_one_line(facts, statement)}` adds to `{kept}`, which the loop at line {facts.line_of(loop)} "
            f"does not start afresh, and `{_one_line(facts, backward.call)}` (line "
            f"{facts.line_of(backward.statement)}) backpropagates it in every iteration of that loop: "
            f"`{kept}` keeps every iteration's graph alive, and from the second iteration on the backward "
            f"goes back through the previous iterations' graphs as well, which the first backward freed "
            f"(`Trying to backward through the graph a second time`); {restart}",
            None, accumulator=_accumulator_key(accumulation), value=facts.code_for(accumulation.value),
            kept="graph chain",
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
        # `self.h, self.c = self.net.reset_states(self.h, self.c)` with `return h.detach(), c.detach()`:
        # built on the previous value, but with no graph: a fresh start, as `self.h = self.h.detach()` is.
        detaching = frozenset(update.statement for update in containers.state_updates
                              if update.builds_on_previous and _carries_no_graph(update.value, facts, function))
        for update in containers.state_updates:
            statement = update.statement
            if not update.builds_on_previous and not backwards:
                continue  # a value kept for the next call matters only to a backward that reads it
            if statement in reported or _detached(update.value) or not facts.grad_enabled_at(function, statement):
                continue
            if update.builds_on_previous and containers.reset_before(
                    update, detaching, resets_in_own_methods(facts, function, update.attribute)) is not None:
                continue  # `self.loss = 0` (or `self.reset()`) first, then `self.loss += term` in a loop: one call's sum
            if update.builds_on_previous and (started_over_by_every_caller(facts, function, update.attribute)
                                              or reset_offered_to_callers(facts, function, update.attribute)):
                continue  # each sequence starts from a fresh state: `agent.reset_hidden()` before each call
            shown = f"self.{update.attribute}"
            read = None
            if not update.builds_on_previous:
                if slices is None:
                    slices = [(backward, loss_slice(backward.loss, backward.statement, function, facts))
                              for backward in backwards]
                read = _read_before(shown, statement, slices, function)
                if read is None or _replaced_after_its_one_backward(function, update, shown, slices, backwards):
                    continue
            attribute = cst.Attribute(value=cst.Name("self"), attr=cst.Name(update.attribute))
            if facts.autograd.origin(attribute, function, statement) is not None:
                continue  # a parameter itself (`self.w = self.w * 0.9 + ...`) is another matter
            origin = facts.autograd.origin(update.value, function, statement)
            if origin is None or origin.is_new_leaf:
                continue  # (a leaf made here, `torch.tensor(x.data + d, requires_grad=True)`, has no history)
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


def _sums_returned_losses(facts: ModuleFacts, function: FunctionFacts) -> bool:
    """Does the function accumulate what a function of the file returns after backpropagating it
    (`loss_d += train_discriminator(real)`)? Its training runs in the callee."""
    return any(type(accumulation.value) is cst.Call
               and returned_backpropagated_loss(facts, accumulation.value, function) is not None
               for accumulation in facts.containers.of(function).accumulations)


def _accumulator_key(accumulation: Accumulation) -> str:
    """What `--verify` measures after the statement: the local name that holds the values (`log` for
    `log["train"]`), or the module state (`self.history`)."""
    if accumulation.holder is not None:
        return accumulation.holder.value
    return f"self.{accumulation.attribute}"


def _callee_of(facts: ModuleFacts, call: cst.Call, function: FunctionFacts):
    """The summary of what the call runs: a function or `self.` method of the file
    (`callee_summary`), or a method of an object built from a class of the file (`meter.update`)."""
    summary = facts.callee_summary(call, function)
    if summary is not None:
        return summary
    found = facts.method_called(call, function)
    return facts.summary(found[1]) if found is not None else None


def _holder_outliving(facts: ModuleFacts, call: cst.Call, callee, kept, function: FunctionFacts,
                      loop) -> Optional[str]:
    """What keeps the value, as the caller names it, when it was made before the loop and is not made
    afresh in it: `meter.sum` for a method's `self.sum`, `history` for the argument appended to."""
    if isinstance(kept.into, str):
        owner = call.func.value if type(call.func) is cst.Attribute else None
        name = owner if type(owner) is cst.Name else None
        attribute = kept.into[len("self."):]
        if name is not None and name.value == "self":
            return f"self.{attribute}"
    else:
        name = argument_for(call, callee, kept.into)
        attribute = None
    if type(name) is not cst.Name:
        return None
    bindings = function.bindings_at(name)
    if not bindings or any(loop in binding.loops for binding in bindings):
        return None  # made (or made afresh) in the loop: one iteration's
    return f"{name.value}.{attribute}" if attribute else name.value


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


def _replaced_after_its_one_backward(function: FunctionFacts, update: StateUpdate, shown: str, slices: list,
                                     backwards: list[Backward]) -> bool:
    """`self.beta = torch.exp(self.log_beta)` at the end of each pass of the step, read by one backward
    earlier in that pass (`policy_loss.backward()` of `self.beta * ...`): each value is backpropagated
    once, by the next pass or call, then replaced; no chain grows and no backward goes through a freed
    graph. So when the value is made fresh there (nothing this pass backpropagated: `self.previous =
    out` after `loss.backward()` of `out` keeps a freed graph), the assignment runs whenever that
    backward does, in the same loops, and that backward is the only one that reads the previous value."""
    statement = update.statement
    backpropagated = backpropagated_bindings(function, backwards)
    if any(type(node) is cst.Name and node.value not in ("self", "cls") and {
            binding for binding in function.bindings_at(node) & backpropagated if binding.kind != "import"}
           for node in walk(update.value)):
        return False
    readers = [backward for backward, graph in slices if _read_before(shown, statement, [(backward, graph)], function)]
    if len(readers) != 1 or function.loops_of.get(readers[0].statement, ()) != function.loops_of.get(statement, ()):
        return False
    reader = readers[0].statement

    def holds(node, inner) -> bool:
        return node is not None and any(sub is inner for sub in walk(node))

    # Every branch that holds the assignment holds the backward too (`if not enough_samples: return`,
    # `else:` around the whole step): when one runs, so does the other.
    for node in walk(function.node):
        if type(node) in (cst.If, cst.Try, cst.Match) and holds(node, statement):
            parts = [node.body, node.orelse] if type(node) is cst.If else list(child_nodes(node))
            if not any(holds(part, statement) and holds(part, reader) for part in parts):
                return False
    return True


def _kept_across_backwards(facts: ModuleFacts, function: FunctionFacts, accumulation: Accumulation,
                           flows: list, containers) -> Optional[tuple]:
    """(backward, loop) when a loop holds both the accumulation and a backward of what it accumulates
    into, and the accumulator outlives that loop's iterations: `loss_sum = 0` before the training
    loop, `loss_sum += term` in it, `loss_sum.backward()` once per step. A sum started afresh each
    step (`loss_sum = 0` at its top) is the intended way to build one loss: None. Only a value that
    carries a graph chains the steps: a Python number (an annealing weight), gradient signs, what a
    loader or an environment gives, kept across steps and read by the loss, link no graph to the
    next step."""
    statement = accumulation.statement
    # POSSIBLE grounds suffice: the file shows the accumulator backpropagated, so what is added to it
    # (`criterion(head(features), y)` with `head` from a ModuleList) is a term of that loss.
    origin = facts.autograd.carries_graph(accumulation.value, function, statement, POSSIBLE)
    if origin is None:
        return None
    holder = function.bindings_at(accumulation.holder) if accumulation.holder is not None else frozenset()
    if any(binding.leaf for binding in holder) or (accumulation.attribute is not None and facts.autograd.origin(
            cst.Attribute(value=cst.Name("self"), attr=cst.Name(accumulation.attribute)), function, statement)):
        return None  # `w -= lr * w.grad`: a leaf (a parameter) updated in place, not a sum of graphs
    loops = function.loops_of.get(statement, ())
    for backward, flowing in flows:
        if accumulation.holder is not None:
            if not holder & flowing:
                continue
        elif accumulation.attribute not in _self_attributes_in(
                [backward.loss] + [binding.value for binding in flowing if binding.value is not None]):
            continue
        for loop in reversed(function.loops_of.get(backward.statement, ())):  # the innermost first
            if loop in loops and containers.outlives(accumulation, loop) \
                    and not ends_its_loop(function, backward.statement, loop):
                return backward, loop
    return None


def _sum_operands(expression) -> Optional[list]:
    """The operands of a sum or difference of names and numbers (`a + b`, `0.5 * (a + b)`): its names;
    None for anything else."""
    terms = sum_terms(expression)
    return terms if all(isinstance(term, cst.Name) for term in terms) else None


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
RETAINED = "which keeps the graph and the activations it saved: what stays is each iteration's whole graph"
NEVER = ("saved activations", "is made in grad mode and never backpropagated, so every iteration's saved "
         "activations stay with it")


class _LoopFacts:
    """Answers "does this value carry an autograd graph, and was that graph backpropagated?". Whether
    a value requires grad or holds a graph is `facts.autograd`'s answer (`carries_graph`); this
    class adds what only a loop knows: the backward that runs in it, and the running sums."""

    def __init__(self, facts: ModuleFacts, function: FunctionFacts, backwards: list[Backward],
                 evaluated: dict, backpropagated: set) -> None:
        self.facts = facts
        self.function = function
        self.backwards = backwards
        self.evaluated = evaluated
        self.backpropagated = backpropagated
        self.containers = facts.containers.of(function)

    def graph_of(self, value, loop, statement, depth: int = 0, outlived: Optional[tuple] = None) -> Optional[Graph]:
        """`outlived`: the loops around `statement` whose iterations the accumulator outlives (None: all)."""
        function = self.function
        for name, path in _attached_paths(value):
            if self._backpropagated_in(loop, name, path):
                if self._backpropagated_in(loop, name, path, retaining_only=True):
                    # `loss.backward(retain_graph=True)`: nothing is freed, the activations stay too.
                    return Graph(FREED[0], f"`{name.value}` is backpropagated at this loop's "
                                           f"`backward(retain_graph=True)`, {RETAINED}")
                return Graph(FREED[0], f"`{name.value}` is backpropagated at this loop's `backward()`, "
                                       f"{FREED[1]}")
            parts = self._parts_backpropagated_in(loop, name)
            if parts:
                return Graph(FREED[0], f"`{name.value}` is made of {parts}, each backpropagated at this loop's "
                                       f"`backward()`, {FREED[1]}")
        if depth < 3:
            for name in _attached_names(value):
                # `curve.append(running / steps)` after an inner loop's `running += loss`: the sum holds
                # every graph it was given (a sum made under no-grad holds none).
                for inner in self.containers.accumulated_into(name):
                    inner_loops = function.loops_of.get(inner.statement, ())
                    if not inner_loops or inner.value is value \
                            or not self.facts.grad_enabled_at(function, inner.statement):
                        continue
                    graph = self.graph_of(inner.value, inner_loops[-1], inner.statement, depth + 1)
                    if graph is not None:
                        return Graph(graph.kept, reason=f"`{name.value}` is a running sum "
                                                 f"(`{_one_line(self.facts, inner.statement)}`, line "
                                                 f"{self.facts.line_of(inner.statement)}) and holds the graph of "
                                                 f"every value it summed: {graph.reason}",
                                     summed_at=graph.summed_at or inner)
                graph = self._graph_of_items(name, value, loop, statement, depth)
                if graph is not None:
                    return graph
        if type(value) is cst.Call:
            returned = returned_backpropagated_loss(self.facts, value, function)
            if returned is not None:  # `loss_d += train_discriminator(real)`, which returns its loss
                return Graph(FREED[0], f"`{_one_line(self.facts, value.func)}()` returns `{returned}`, the loss it "
                                       f"backpropagated, {FREED[1]}")
        # A network of unknown class (a `model` argument, a loaded one) counts, with the assumption
        # that it has trainable parameters stated in the message.
        origin = self.facts.autograd.carries_graph(value, function, statement, ASSUMED)
        if origin is None or self._made_before_the_loops(origin, statement, outlived):
            return None
        in_training_loop = any(loop in function.loops_of.get(b.statement, ()) for b in self.backwards)
        if not in_training_loop and not self._evaluated_output(origin, function.order_of(statement)):
            return None  # no backward and no network put in evaluation mode: maybe the caller's graph
        subject = _subject(self.facts, value, origin)
        assumption = f"; this holds {origin.assumption}" if origin.assumption else ""
        if any(binding in self.backpropagated for name in _attached_names(value)
               for binding in function.bindings_at(name)):
            return Graph(FREED[0], f"{subject} is backpropagated by this function, {FREED[1]}{assumption}")
        return Graph(NEVER[0], f"{subject} {NEVER[1]}{assumption}")

    def _graph_of_items(self, name: cst.Name, value, loop, statement, depth: int) -> Optional[Graph]:
        """`parts = []`, `parts.append(loss1)` in the loop, then `d_loss.append(sum(parts))`: a list made
        afresh each iteration is not kept itself, but what is made of its items holds their graphs."""
        for binding in self._grad_mode_bindings(name):
            if loop not in binding.loops:
                continue  # a list that outlives the loop is an accumulation of its own, reported as one
            for item in self.containers.elements(binding) or ():
                if item is value:
                    continue
                graph = self.graph_of(item, loop, statement, depth + 1)
                if graph is not None:
                    return Graph(graph.kept, reason=f"`{name.value}` holds `{_one_line(self.facts, item)}`: "
                                                    f"{graph.reason}")
        return None

    def _made_before_the_loops(self, origin, statement, outlived: Optional[tuple] = None) -> bool:
        """Was the graph made once, outside every loop whose iterations the accumulator outlives (all
        the loops around the statement, unless said), by a call of this function or by the statement
        that switched a leaf on? (`x = generator(z)`, then `for i in range(3): x[:, i] = x[:, i] * std[i]
        + mean[i]`; a batch made a leaf, then written sample by sample into its copy, made afresh for
        each batch.) Each iteration then adds a few nodes to that one graph, but makes no graph of its
        own to keep."""
        node = origin.node
        made_in = self.function.call_statement.get(node) if type(node) is cst.Call else \
            node if node in self.function.loops_of else None
        loops = self.function.loops_of.get(statement, ()) if outlived is None else outlived
        return made_in is not None and not set(self.function.loops_of.get(made_in, ())) & set(loops)

    def _grad_mode_bindings(self, name) -> set:
        # Only what the name was bound to in grad mode: a name reused under `no_grad` (a validation
        # loss) holds no graph, whatever the training loss of that name does.
        return {binding for binding in self.function.bindings_at(name)
                if self.facts.grad_enabled_at(self.function, binding.statement)}

    def _backpropagated_in(self, loop, name, path=None, retaining_only: bool = False) -> bool:
        """Is the value `name` holds (at `path` of it) the loss of a backward that runs in the loop?
        `retaining_only`: is it so, and does every such backward keep the graph (`retain_graph=True`)?"""
        bindings = self._grad_mode_bindings(name)
        through = [backward for backward in self.backwards
                   if loop in self.function.loops_of.get(backward.statement, ())
                   and bindings & _bindings_of(backward.loss, self.function)
                   and (path is None or _same_or_within(path, _attribute_path(backward.loss)))]
        return bool(bindings) and bool(through) and (
            not retaining_only or all(retains_graph(backward.call) for backward in through))

    def _parts_backpropagated_in(self, loop, name) -> str:
        """`Disc_loss = D_real_loss + D_fake_loss` after `D_real_loss.backward()` and
        `D_fake_loss.backward()`: the parts (named, as "`a` and `b`") when the name is bound only to
        sums of names, each backpropagated in the loop; "" otherwise."""
        bindings = self._grad_mode_bindings(name)
        parts: list = []
        for binding in bindings:
            if binding.kind != "assign" or not isinstance(binding.value, cst.BinaryOperation):
                return ""
            operands = _sum_operands(binding.value)
            if operands is None or not all(self._backpropagated_in(loop, operand) for operand in operands):
                return ""
            parts += [operand.value for operand in operands]
        return " and ".join(f"`{part}`" for part in dict.fromkeys(parts)) if parts else ""

    def _evaluated_output(self, origin, order: int) -> bool:
        """Outside a training loop, a value counts only when it is the output of a network put in
        evaluation mode before it (`model.eval()` then a loop without `no_grad`)."""
        node = origin.node
        if not isinstance(node, cst.Call):
            return False
        key = module_key(node.func)
        return key is not None and self.evaluated.get(key, order + 1) < order


def _subject(facts: ModuleFacts, value, origin) -> str:
    """`loss`, computed from the output of `model` (line 9) through the list `outs`,"""
    line = facts.line_of(origin.node)
    if value is origin.node:
        # `outs.append(model(x))`: the call is the value ("the output of `model`, a module ... (line 9),")
        return f"{origin.description} (line {line}){',' if ',' in origin.description else ''}"
    through = f" through {' and '.join(origin.via)}" if origin.via else ""
    computed = "computed from " if origin.derived else ""
    return f"`{_one_line(facts, value)}`, {computed}{origin.description} (line {line}){through},"


def _one_line(facts: ModuleFacts, node: cst.CSTNode, limit: int = 60) -> str:
    text = " ".join(facts.code_for(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _a_numpy_array(holder, function: FunctionFacts, facts: ModuleFacts) -> bool:
    """Is the holder an array NumPy made, where every assignment of it makes one (an augmented
    assignment changes the array in place)?"""
    bindings = function.bindings_at(holder) if holder is not None else frozenset()
    made = [binding for binding in bindings if binding.kind != "augassign"]
    return bool(made) and all(facts.makes_numpy_array(binding.value) for binding in made)


def _held_by_the_iterable(value, loop, function: FunctionFacts) -> bool:
    """Does the value keep graphs only through the loop's own variable? `for sl in style_losses: score
    = score + sl.backward()` sums losses the iterable held before the loop and holds after it: the sum
    keeps no graph alive that the iterable does not (and no iteration builds one of its own)."""
    names = list(_attached_names(value))
    return isinstance(loop, cst.For) and bool(names) and all(
        bindings and all(binding.kind == "loop" and binding.statement is loop for binding in bindings)
        for bindings in (function.bindings_at(name) for name in names))


def _attached_names(value):
    """Names in the value that are not cut off from autograd by `.item()`, `.detach()`, `float()`..."""
    for name, _ in _attached_paths(value):
        yield name


def _attached_paths(value, path: tuple = ()):
    """(name, the attributes read on it) for each name in the value that is not cut off from
    autograd: `loss_module.target.cpu()` gives (`loss_module`, ("target",)); a subscript ends what
    is known of the path (`outs[0].loss` gives (`outs`, ()))."""
    if _detached(value):
        return
    if isinstance(value, cst.Name):
        yield value, path
    elif isinstance(value, cst.BinaryOperation):
        yield from _attached_paths(value.left)
        yield from _attached_paths(value.right)
    elif isinstance(value, cst.UnaryOperation):
        yield from _attached_paths(value.expression)
    elif isinstance(value, (cst.Tuple, cst.List)):
        for element in value.elements:
            yield from _attached_paths(element.value)
    elif isinstance(value, cst.Dict):  # `{"loss": loss, "label": y}`
        for element in value.elements:
            if isinstance(element, cst.DictElement):
                yield from _attached_paths(element.value)
    elif isinstance(value, cst.Call) and _joins_its_sequence(value):
        yield from _attached_paths(value.args[0].value)  # `sum(parts)`, `torch.stack(losses)`: their graphs
    elif isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
        yield from _attached_paths(value.func.value)  # `out.cpu()`, `loss.mean()`: still attached
    elif isinstance(value, cst.Attribute):
        yield from _attached_paths(value.value, (value.attr.value,) + path)
    elif isinstance(value, cst.Subscript):
        yield from _attached_paths(value.value)


def _joins_its_sequence(call: cst.Call) -> bool:
    """`sum(parts)`, `torch.stack(losses)`, `torch.cat(outs)`: a tensor made of every item of the sequence
    given first, with each item's graph."""
    if not call.args or call.args[0].keyword is not None or call.args[0].star:
        return False
    return dotted_name(call.func) in SEQUENCE_JOINERS


def _attribute_path(expr) -> tuple:
    """The attributes read on the root name of `expr`, as _attached_paths gives them."""
    for _, path in _attached_paths(expr):
        return path
    return ()


def _same_or_within(kept: tuple, backpropagated: tuple) -> bool:
    """Does keeping `name.<kept>` keep `name.<backpropagated>`'s graph? When one path extends the
    other (`out` holds `out.loss`); `loss_module.target` is not `loss_module.loss`."""
    shorter = min(len(kept), len(backpropagated))
    return kept[:shorter] == backpropagated[:shorter]


def _carries_no_graph(value, facts: ModuleFacts, function: FunctionFacts) -> bool:
    """Detached, or the call of a function of the file every `return` of which returns detached
    values (`return h.detach(), c.detach()`)."""
    if _detached(value):
        return True
    summary = facts.callee_summary(value, function) if isinstance(value, cst.Call) else None
    body = summary.facts_of_body if summary is not None else None
    returned = [statement.value for statement in body.statement_order if isinstance(statement, cst.Return)] \
        if body is not None else []
    return bool(returned) and all(
        result is not None and all(_detached(element) for element in (
            [item.value for item in result.elements] if isinstance(result, (cst.Tuple, cst.List)) else [result]))
        for result in returned)


def _detached(value) -> bool:
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Modulo) \
            and isinstance(value.left, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        return True  # `'errD: %.2f' % errD`: a string, which holds no graph
    while True:
        if isinstance(value, cst.Call):
            func = value.func
            if isinstance(func, cst.Name) and func.value in DETACHING:
                return True
            if isinstance(func, cst.Attribute):
                if func.attr.value in DETACHING or (func.attr.value in NON_TENSOR_METHODS
                                                    and not (func.attr.value == "type" and value.args)):
                    return True  # `l.numel()`, `x.size(0)`: a number, not a tensor
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
