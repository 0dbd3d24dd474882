"""Containers that hold tensors, per function: what goes into lists, dicts and tuples, which
insertions accumulate and which overwrite, what `torch.cat` / `torch.stack` join, whether a
container outlives a loop iteration, and `self.` state that each call builds on its previous value.

An insertion *accumulates* when every iteration adds an entry: `acc.append(v)`, `acc[step] = v`
(a key that changes per iteration), `log["train"].append(v)` (a list held in a dict: the key is
fixed, but what it holds grows), `acc += [v]`, and a running sum `total += v`. It *overwrites*
when the key is the same every time (`stats["loss"] = v`): the dict holds one value at most.

Computed on first question, once per function (`ModuleFacts.containers`): one pass over the
statements the data-flow walk already ordered, and answers read from the walk's bindings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from torchcopylint.analysis.aliasing import Binding, FunctionFacts, runs_before
from torchcopylint.analysis.graphs import cuts_graph
from torchcopylint.analysis.syntax import child_nodes, is_self_attribute, walk
from torchcopylint.analysis.torchnames import TorchNames
from torchcopylint.analysis.training import backward_calls

# Methods that put their (last) argument into the container they are called on.
INSERTING_METHODS = frozenset({"append", "extend", "insert", "add"})
# Methods that take an item out of a container: called in a loop, they empty it.
DRAINING_METHODS = frozenset({"pop", "popleft", "popitem"})
# torch functions whose result joins a sequence of tensors (and carries all of their graphs).
JOINING_FUNCTIONS = frozenset({"cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack",
                               "column_stack", "row_stack"})
# What a fresh, empty container (or number) is made by: assigned in a loop body, it starts over.
FRESH_CALLS = frozenset({"list", "dict", "set", "defaultdict", "OrderedDict", "deque"})
LITERAL_CONTAINERS = (cst.List, cst.Dict, cst.Set, cst.Tuple, cst.ListComp, cst.DictComp, cst.SetComp)


@dataclass(frozen=True)
class Accumulation:
    """A statement that adds `value` to something: a running sum or a container."""

    statement: cst.CSTNode  # the small statement
    target: cst.BaseExpression  # what receives it: `total`, `losses`, `log["train"]`, `self.history`
    holder: Optional[cst.Name]  # the local name the target is reached from (`log`), None for `self.`
    attribute: Optional[str]  # `history` for `self.history...`
    value: cst.BaseExpression  # what is added (for `acc += [v]`: `v`)
    how: str  # "+=", "-=", "+", "append", "extend", "insert", "add", "setitem"
    container: bool  # into a list, dict or set (else a running sum)

    @property
    def held(self) -> bool:
        """The target is a container held inside another (`log["train"]`), not the name itself."""
        return type(self.target) is not cst.Name and not is_self_attribute(self.target)


@dataclass(frozen=True)
class StateUpdate:
    """`self.avg = self.avg * (1 - m) + mean * m`, `self.total += loss`, `out, self.h = rnn(x, self.h)`:
    an assignment of `self.<attribute>` in a method."""

    statement: cst.CSTNode
    attribute: str
    value: cst.BaseExpression  # the assigned value (for `+=`, the added value)
    builds_on_previous: bool  # the new value is computed from the attribute's previous value
    augmented: bool  # `self.x += v`


class FunctionContainers:
    """The container facts of one function (see the module docstring)."""

    def __init__(self, function: FunctionFacts, names: TorchNames) -> None:
        self.function = function
        self.names = names
        self.accumulations: list[Accumulation] = []
        self.state_updates: list[StateUpdate] = []
        self._by_statement: dict[cst.CSTNode, Accumulation] = {}
        self._resets: dict[str, list[cst.CSTNode]] = {}  # `log["train"] = []`: target code -> statements
        # `buffer.pop()` in a loop, `buffer.clear()`: target code -> statements that empty the container
        self._drains: dict[str, list[cst.CSTNode]] = {}
        self._insertions: Optional[dict[Binding, list[cst.BaseExpression]]] = None
        for statement in function.statement_order:
            self._read(statement)

    # ---------------------------------------------------------------- reading

    def _read(self, statement: cst.CSTNode) -> None:
        self._read_drains(statement)
        if type(statement) is cst.AugAssign:
            self._read_augassign(statement)
        elif type(statement) is cst.Assign:
            self._read_assign(statement)
        elif type(statement) is cst.Expr and type(statement.value) is cst.Call:
            call = statement.value
            func = call.func
            if type(func) is cst.Attribute and func.attr.value in INSERTING_METHODS and call.args \
                    and not call.args[-1].star:
                self._add(statement, func.value, call.args[-1].value, func.attr.value, True)  # `insert(i, v)`
            if type(func) is cst.Attribute and func.attr.value == "detach_" and is_self_attribute(func.value):
                # `self.h.detach_()`: the attribute cut from its graph in place, as `self.h = self.h.detach()` does.
                self.state_updates.append(StateUpdate(statement, func.value.attr.value, call, True, False))

    def _read_drains(self, statement: cst.CSTNode) -> None:
        """`buffer.clear()`, or `value = buffer.pop()` in a loop (a rollout buffer taken apart into the
        loss, one item per step): what the container held is let go of, as `buffer = []` would."""
        if type(statement) not in (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Expr):
            return
        in_loop = bool(self.function.loops_of.get(statement))
        for node in walk(statement):
            if type(node) is cst.Call and type(node.func) is cst.Attribute and _path(node.func.value) and (
                    node.func.attr.value == "clear" or in_loop and node.func.attr.value in DRAINING_METHODS):
                self._drains.setdefault(_path(node.func.value), []).append(statement)

    def _read_augassign(self, statement: cst.AugAssign) -> None:
        target = statement.target
        if is_self_attribute(target):
            self.state_updates.append(StateUpdate(statement, target.attr.value, statement.value, True, True))
        if type(statement.operator) not in (cst.AddAssign, cst.SubtractAssign):
            return
        value = statement.value
        how = "+=" if type(statement.operator) is cst.AddAssign else "-="
        if how == "+=" and type(value) in (cst.List, cst.Tuple) and len(value.elements) == 1 \
                and type(value.elements[0]) is not cst.StarredElement:
            self._add(statement, target, value.elements[0].value, "+=", True)  # `acc += [v]`
        else:
            self._add(statement, target, value, how, False)

    def _read_assign(self, statement: cst.Assign) -> None:
        value = statement.value
        for assign_target in statement.targets:
            target = assign_target.target
            for part in (target.elements if type(target) in (cst.Tuple, cst.List) else ()):
                if is_self_attribute(part.value):
                    self.state_updates.append(StateUpdate(statement, part.value.attr.value, value,
                                                          _reads_attribute(value, part.value.attr.value), False))
            if is_self_attribute(target):
                self.state_updates.append(StateUpdate(statement, target.attr.value, value,
                                                      _reads_attribute(value, target.attr.value), False))
            if len(statement.targets) != 1:
                continue
            chained = _chained(value, target) if type(target) in (cst.Name, cst.Attribute) else None
            if chained is not None:
                # `total = total + v`, `smooth = 0.98 * smooth + 0.02 * loss`: the accumulator is the
                # name as read on the right, and what is added is the other term.
                previous, added = chained
                self._add(statement, previous, added, "+", False)
            elif type(target) is cst.Subscript:
                if _is_fresh(value):
                    self._resets.setdefault(_path(target), []).append(statement)
                else:
                    self._add(statement, target.value, value, "setitem", True)
            elif _is_fresh(value) and _path(target):
                self._resets.setdefault(_path(target), []).append(statement)

    def _add(self, statement, target, value, how: str, container: bool) -> None:
        holder, attribute = _holder(target)
        if holder is None and attribute is None:
            return
        accumulation = Accumulation(statement, target, holder, attribute, value, how, container)
        self.accumulations.append(accumulation)
        self._by_statement[statement] = accumulation

    # ---------------------------------------------------------------- questions

    def at(self, statement: cst.CSTNode) -> Optional[Accumulation]:
        """The accumulation a statement makes, if it makes one."""
        return self._by_statement.get(statement)

    def overwrites(self, accumulation: Accumulation, loop: cst.CSTNode) -> bool:
        """`acc[k] = v` with a key that is the same in every iteration of `loop`: a literal, or names
        all assigned before the loop. A key computed in the loop (`acc[step]`, `acc[len(acc)]`)
        accumulates, and so does every other insertion."""
        statement = accumulation.statement
        if accumulation.how != "setitem" or type(statement) is not cst.Assign:
            return False
        target = statement.targets[0].target
        if type(target) is not cst.Subscript:
            return False
        return all(self._same_every_iteration(element, loop) for element in target.slice)

    def _same_every_iteration(self, element: cst.SubscriptElement, loop: cst.CSTNode) -> bool:
        index = element.slice
        if type(index) is not cst.Index:
            return False
        for node in walk(index.value):
            if type(node) in (cst.Call, cst.Subscript):
                return False
            if type(node) is cst.Name:
                # A name never assigned in the function (a module constant) is the same every time, and
                # so is one the loop sets to a literal (`idx = 0` before `best[idx] = out`).
                bindings = self.function.bindings_at(node)
                if any((loop in binding.loops or binding.statement is loop) and not _literal(binding.value)
                       for binding in bindings):
                    return False
        return True

    def outlives(self, accumulation: Accumulation, loop: cst.CSTNode) -> bool:
        """Does what the accumulation adds to live on after the iteration of `loop`? The holder was
        made before the loop and is not made afresh inside it (a reset anywhere in the body counts,
        also a conditional one: what is kept is then bounded), and neither is the held container
        (`log["train"] = []` in the body). `self.` state outlives every loop, unless reset in it. A
        loop whose body ends in a `return`, `break` or `raise` has no next iteration to keep it for."""
        function = self.function
        if _runs_once(loop):
            return False
        if accumulation.holder is not None:
            bindings = function.bindings_at(accumulation.holder)
            if not any(loop not in binding.loops or _on_first_pass_only(loop, binding.statement) for binding in bindings):
                return False
            if any(loop in binding.loops and binding.kind == "assign" and self._starts_over(accumulation, binding)
                   and not _on_first_pass_only(loop, binding.statement) for binding in bindings):
                return False
        path = _path(accumulation.target)
        for drain in self._drains.get(path, ()):
            if loop in function.loops_of.get(drain, ()):
                return False
        if accumulation.holder is None or path != accumulation.holder.value:
            for reset in self._resets.get(path, ()):
                if loop in function.loops_of.get(reset, ()):
                    return False
        if not accumulation.container and accumulation.attribute is not None and is_self_attribute(
                accumulation.target):
            # `self.loss = self._make_empty_loss()` at the top of each iteration, then `self.loss += ...`:
            # like a name's running sum, any value that does not read the sum starts it over.
            for update in self.state_updates:
                if update.attribute == accumulation.attribute and not update.augmented \
                        and not update.builds_on_previous and loop in function.loops_of.get(update.statement, ()):
                    return False
        return True

    def _starts_over(self, accumulation: Accumulation, binding: Binding, depth: int = 0) -> bool:
        """Does this assignment of the holder start the accumulator over? A new empty container or a
        number; for a running sum, any value that does not read the sum (`total = torch.zeros(())`):
        the sum's previous value, and what it held, is dropped. Also one that reads the sum only
        where an assignment before it already did so (`kt = float(kt)`, then `kt = min(1., kt)`)."""
        if _is_fresh(binding.value):
            return True
        if accumulation.container or binding.value is None:
            return False

        def reads_the_sum(node) -> bool:
            if type(node) is not cst.Name or node.value != binding.name:
                return False
            earlier = self.function.bindings_at(node)
            return depth >= 3 or not earlier or not all(
                other.kind == "assign" and other is not binding and self._starts_over(accumulation, other, depth + 1)
                for other in earlier)

        # `total = total.detach()`, `total = float(total)`: the same number, without the graphs.
        return not _reads_attached(binding.value, reads_the_sum)

    def reset_before(self, update: StateUpdate, detaching: frozenset = frozenset(),
                     resetting_calls: tuple = ()) -> Optional[cst.CSTNode]:
        """The statement of an assignment of the same `self.` attribute that does not read its previous
        value (`self.loss = 0`), or that is one of `detaching` (`self.h = self.h.detach()`, a method
        returning its arguments detached) or of `resetting_calls` (`self.reset()`, a method of the object
        that starts the attribute over: `resets_in_own_methods`), and that every call runs between two runs
        of `update`: before it on every path through the method (earlier in a block that holds `update`),
        or at the end of the method's body with no `return` before it. Each call then starts the attribute
        over, and what `update` builds on is this call's value, not the previous call's graph."""
        function = self.function
        resets = [reset.statement for reset in self.state_updates
                  if reset.attribute == update.attribute and not reset.augmented
                  and (not reset.builds_on_previous or reset.statement in detaching)]
        for reset in resets + list(resetting_calls):
            if function.order_of(reset) < function.order_of(update.statement):
                if runs_before(function, reset, update.statement):
                    return reset
            elif _ends_every_call(function, reset):
                return reset
        return None

    def accumulated_into(self, name: cst.Name) -> list[Accumulation]:
        """The running sums whose result a read of `name` may see (`running` after `running += loss`)."""
        found = []
        for binding in self.function.bindings_at(name):
            accumulation = self._by_statement.get(binding.statement)
            if accumulation is not None and not accumulation.container and accumulation.holder is not None \
                    and accumulation.holder.value == binding.name:
                found.append(accumulation)
        return found

    def elements(self, binding: Binding) -> Optional[list[cst.BaseExpression]]:
        """What the container a binding made may hold: its literal elements (a comprehension's element)
        and what is appended, extended, inserted or stored into it through that binding. None when the
        binding is not a container made here."""
        value = binding.value
        if type(value) not in LITERAL_CONTAINERS and not _is_fresh(value):
            return None
        found = literal_elements(value) if type(value) in LITERAL_CONTAINERS else []
        return found + [inserted for inserted, _ in self._inserted().get(binding, [])]

    def insertions(self, binding: Binding) -> Optional[list[tuple[cst.BaseExpression, cst.CSTNode]]]:
        """(element, the statement that puts it there) for what the container a binding made may
        hold: its literal elements (at the binding's statement) and what is appended, extended,
        inserted or stored into it through that binding (where that happens: its grad mode may
        differ). None when the binding is not a container made here (a number is not one)."""
        value = binding.value
        if type(value) not in LITERAL_CONTAINERS and not (_is_fresh(value) and type(value) is cst.Call):
            return None
        found = [(element, binding.statement) for element in literal_elements(value)] \
            if type(value) in LITERAL_CONTAINERS else []
        return found + self._inserted().get(binding, [])

    def _inserted(self) -> dict:
        if self._insertions is None:
            self._insertions = {}
            for accumulation in self.accumulations:
                if accumulation.container and accumulation.holder is not None \
                        and accumulation.target is accumulation.holder:
                    for binding in self.function.bindings_at(accumulation.holder):
                        self._insertions.setdefault(binding, []).append((accumulation.value, accumulation.statement))
        return self._insertions

    def joined(self, call: cst.Call) -> Optional[cst.BaseExpression]:
        """The sequence `torch.cat(seq)` / `torch.stack(seq)` joins; None for another call."""
        qualified = self.names.qualified_name(call.func) or ""
        module, _, name = qualified.rpartition(".")
        if module != "torch" or name not in JOINING_FUNCTIONS:
            return None
        for arg in call.args:
            if (arg.keyword is None and not arg.star) or (arg.keyword is not None and arg.keyword.value == "tensors"):
                return arg.value
        return None


def literal_elements(value: cst.BaseExpression) -> list[cst.BaseExpression]:
    """`[a, b]`, `(a, b)`, `{k: a}`: the elements (values of a dict); a comprehension's element."""
    if type(value) in (cst.List, cst.Tuple, cst.Set):
        return [element.value for element in value.elements]
    if type(value) is cst.Dict:
        return [element.value for element in value.elements if type(element) is cst.DictElement]
    if type(value) in (cst.ListComp, cst.SetComp, cst.GeneratorExp):
        return [value.elt]
    if type(value) is cst.DictComp:
        return [value.value]
    return []


class ContainerFacts:
    """`FunctionContainers` per function, made on first question (ModuleFacts.containers)."""

    def __init__(self, names: TorchNames) -> None:
        self.names = names
        self._functions: dict[cst.CSTNode, FunctionContainers] = {}

    def of(self, function: FunctionFacts) -> FunctionContainers:
        found = self._functions.get(function.node)
        if found is None:
            found = self._functions[function.node] = FunctionContainers(function, self.names)
        return found


# ------------------------------------------------------------------- helpers


def _ends_every_call(function: FunctionFacts, statement: cst.CSTNode) -> bool:
    """Does every call that returns normally run `statement`? It stands in the method's own body
    (not in a branch or a loop), and no `return` comes before it."""
    body = function.node.body
    if type(body) is not cst.IndentedBlock \
            or function.line_of_statement.get(statement, statement) not in body.body:
        return False
    order = function.order_of(statement)
    return not any(type(node) is cst.Return and function.order_of(node) < order
                   for node in function.statement_order)


def _holder(target) -> tuple[Optional[cst.Name], Optional[str]]:
    """(`log`, None) for `log["train"]` or `log`; (None, "history") for `self.history["loss"]`;
    (None, None) for anything else (`obj.items`, a call's result)."""
    node = target
    while type(node) is cst.Subscript:
        node = node.value
    if type(node) is cst.Name:
        return node, None
    if is_self_attribute(node):
        return None, node.attr.value
    return None, None


def _literal(value: Optional[cst.BaseExpression]) -> bool:
    """`0`, `-1`, `"best"`: a value that is the same each time the statement runs."""
    if type(value) is cst.UnaryOperation:
        value = value.expression
    return type(value) in (cst.Integer, cst.Float, cst.SimpleString)


def _path(node) -> str:
    """`log["train"]`, `self.history`: a target spelled the same way is the same place (for resets)."""
    return cst.Module(body=[]).code_for_node(node) if type(node) in (cst.Name, cst.Attribute, cst.Subscript) else ""


def _same_path(left, right) -> bool:
    if type(left) is cst.Name and type(right) is cst.Name:
        return left.value == right.value
    return is_self_attribute(left) and is_self_attribute(right) and left.attr.value == right.attr.value


def _chained(value, target) -> Optional[tuple[cst.BaseExpression, cst.BaseExpression]]:
    """(the read of the target, the added term) for `acc = acc + v`, `acc = v + acc` and a moving
    average, `acc = acc * a + v * b` (a term that is the target scaled by a factor that does not
    read it, and a term that does not read it)."""
    if not (type(value) is cst.BinaryOperation and type(value.operator) in (cst.Add, cst.Subtract)):
        return None
    pairs = [(value.left, value.right)]
    if type(value.operator) is cst.Add:
        pairs.append((value.right, value.left))
    for mine, other in pairs:
        read = _scaled_read(mine, target)
        if read is not None and not _mentions(other, target):
            return read, other
    return None


def _scaled_read(expr, target) -> Optional[cst.BaseExpression]:
    """`acc`, `acc * 0.9`, `0.9 * acc`, `acc / 2`: the read of the target, else None."""
    if _same_path(expr, target):
        return expr
    if type(expr) is cst.BinaryOperation and type(expr.operator) in (cst.Multiply, cst.Divide):
        if _same_path(expr.left, target) and not _mentions(expr.right, target):
            return expr.left
        if type(expr.operator) is cst.Multiply and _same_path(expr.right, target) \
                and not _mentions(expr.left, target):
            return expr.right
    return None


def _mentions(expr, target) -> bool:
    return any(_same_path(node, target) for node in walk(expr))


def _is_fresh(value) -> bool:
    """A new empty (or literal) container, or a number: what starts an accumulator over."""
    if type(value) in (cst.List, cst.Dict, cst.Set, cst.Tuple, cst.Integer, cst.Float):
        return True
    return type(value) is cst.Call and type(value.func) in (cst.Name, cst.Attribute) \
        and (value.func.value if (type(value.func) is cst.Name) else value.func.attr.value) in FRESH_CALLS


def _reads_attribute(value: cst.BaseExpression, attribute: str) -> bool:
    """Does the value read `self.<attribute>` (the previous value of what it is assigned to), other
    than detached (`self.avg.detach() * m`, `self.avg.data`)?"""
    return _reads_attached(value, lambda node: is_self_attribute(node) and node.attr.value == attribute)


def _reads_attached(value: cst.BaseExpression, matches) -> bool:
    """Does the value read something `matches` accepts, other than detached (`x.detach() * m`,
    `x.data`, `x.item()`, `float(x)`, `nn.Parameter(x)`: graphs.cuts_graph)?"""
    pending: list = [value]
    while pending:
        node = pending.pop()
        if type(node) is cst.Call and cuts_graph(node):
            continue
        if type(node) is cst.Attribute and node.attr.value == "data":
            continue
        if matches(node):
            return True
        pending.extend(child_nodes(node))
    return False


def hands_state_to_next_call(facts, owner) -> bool:
    """Does a method of the class (`owner`, a ClassFacts) build a `self.` attribute on its previous value in
    grad mode, with nothing that starts it over first in that method (`out, self.hidden = self.lstm(x,
    self.hidden)`)? Then each call may hand its graph to the next one through the attribute: a backward
    of the next call's output runs through this call's graph."""
    for name, method in owner.methods.items():
        if name == "__init__":
            continue  # it runs once per object
        function = facts.function_facts(method)
        containers = facts.containers.of(function)
        for update in containers.state_updates:
            if update.builds_on_previous and facts.grad_enabled_at(function, update.statement) and containers.reset_before(
                    update, frozenset(), resets_in_own_methods(facts, function, update.attribute)) is None:
                return True
    return False


def resets_in_own_methods(facts, function: FunctionFacts, attribute: str) -> tuple:
    """The statements of `function` that call a method of the same object (`self.reset()` at the start
    of `forward`) whose own body, outside any branch, starts `attribute` over: sets it afresh
    (`self.h = torch.zeros(...)`) or cuts it from its graph in place (`self.c.detach_()`)."""
    owner = facts.classes.get(function.class_name or "")
    if owner is None:
        return ()
    found = []
    for statement in function.statement_order:
        if type(statement) is not cst.Expr or type(statement.value) is not cst.Call:
            continue
        func = statement.value.func
        if type(func) is not cst.Attribute or not _is_self_name(func.value):
            continue
        method = facts.method_of(owner, func.attr.value)
        if method is not None and _starts_over(method, attribute):
            found.append(statement)
    return tuple(found)


def _is_self_name(node: cst.CSTNode) -> bool:
    return type(node) is cst.Name and node.value == "self"


def _starts_over(method: cst.FunctionDef, attribute: str) -> bool:
    """Does a statement of the method's own body (no branch, no loop) set `self.<attribute>` afresh or
    detach it in place?"""
    body = method.body.body if type(method.body) is cst.IndentedBlock else [method.body]
    for line in body:
        for small in getattr(line, "body", ()) if type(line) is cst.SimpleStatementLine else ():
            if type(small) is cst.Assign and _sets_afresh(small, attribute) and _on_self(small, attribute):
                return True
            if type(small) is cst.Expr and type(small.value) is cst.Call:
                func = small.value.func
                if type(func) is cst.Attribute and func.attr.value == "detach_" and is_self_attribute(func.value) \
                        and func.value.attr.value == attribute:
                    return True
    return False


def _calls_of(facts, method: FunctionFacts) -> list:
    """The calls of the file that may call `method`: those of its name, less the calls its own class makes
    on an object it holds (`self.q_policy.take_action(...)` in the agent's `take_action`: the policy's method)."""
    def on_a_held_object(call) -> bool:
        receiver = call.func.value if type(call.func) is cst.Attribute else None
        site = facts.call_site(call)
        return type(receiver) is cst.Attribute and _is_self_name(receiver.value) and site is not None \
            and site[0].class_name == method.class_name
    return [call for call in facts.method_calls(method.name) if not on_a_held_object(call)]


def started_over_by_every_caller(facts, method: FunctionFacts, attribute: str) -> bool:
    """Does every call of `method` the file shows run in no-grad, or right after something sets
    `attribute` afresh (`agent.reset_hidden()`, which sets `self.net.hidden = None`, then
    `agent.net.actor(x)`), with no other call of the method between? Then no call builds on an
    earlier call's graph through the attribute (a recurrent state reset before each sequence).
    False when the file shows no call (a library's method: its callers are out of sight)."""
    calls = _calls_of(facts, method)
    if not calls:
        return False
    sites = [facts.call_site(call) for call in calls]
    if None in sites:
        return False
    resetting_methods = {function.name for function in facts.all_functions()
                         if any(_sets_afresh(statement, attribute) for statement in function.statement_order)}
    training = {function.name for function in facts.all_functions() if backward_calls(function, facts)}
    for caller, statement in sites:
        if not facts.grad_enabled_at(caller, statement):
            continue
        order, loops = caller.order_of(statement), caller.loops_of.get(statement, ())
        if _started_over_at_the_end(caller, order, attribute, resetting_methods):
            continue
        # A reset before a loop over a sequence's steps (`self.initialize_decoder_states(memory)`, then
        # `while ...: self.decode(x)`): the calls chain through one sequence, as backpropagation through
        # time means them to, unless that loop trains (a backward or a step in it: one chain over steps).
        resets = [caller.order_of(earlier) for earlier in caller.statement_order
                  if caller.order_of(earlier) < order and _sequence_loops_between(
                      caller, caller.loops_of.get(earlier, ()), loops, training | {"backward", "step"})
                  and (_sets_afresh(earlier, attribute) or _calls_any(earlier, resetting_methods))
                  and runs_before(caller, earlier, statement)]
        if not resets:
            return False
        if any(other_caller is caller and max(resets) < caller.order_of(other) < order
               for other_caller, other in sites):
            return False  # a second call after the reset builds on the first one's graph
    return True


def _started_over_at_the_end(caller: FunctionFacts, order: int, attribute: str, resetting_methods: set) -> bool:
    """Does a statement of the caller's own body (no loop, no branch), after the call, start the
    attribute over (`self.global_loss_D = 0` at the end of `optimize_parameters`, whose loop calls
    `backward_D()`, which adds to it)? Then the chain lasts one call of the caller."""
    body = caller.node.body.body if type(caller.node.body) is cst.IndentedBlock else ()
    return any(caller.order_of(later) > order and caller.line_of_statement.get(later, later) in body
               and (_sets_afresh(later, attribute) or _calls_any(later, resetting_methods))
               for later in caller.statement_order)


def _sequence_loops_between(caller: FunctionFacts, outer: tuple, inner: tuple, training: set) -> bool:
    """Are the loops `inner` has beyond `outer` (which encloses it) loops that call nothing that
    trains (`backward`, `step`, a function of the file with a backward)?"""
    if tuple(inner[:len(outer)]) != tuple(outer):
        return False
    between = set(inner[len(outer):])
    return not any(between & set(caller.loops_of.get(statement, ())) and any(
        type(node) is cst.Call and (type(node.func) is cst.Attribute and node.func.attr.value in training
                                    or type(node.func) is cst.Name and node.func.value in training)
        for node in walk(statement)) for statement in caller.statement_order)


def reset_offered_to_callers(facts, method: FunctionFacts, attribute: str) -> bool:
    """Does the class of `method`, which the file never calls, offer its callers a method that sets
    `attribute` afresh (`def reset(self, batch_size): self.state = (self.h0.repeat(...), ...)`,
    `init_hidden`) or that returns a fresh state for them to set it to (`def init_hidden(self, n):
    return (torch.zeros(...), torch.zeros(...))`, GraphRNN's, whose callers in another file do
    `rnn.hidden = rnn.init_hidden(n)`), or does code of the file set it afresh on an object (`model.hidden =
    model.init_hidden()`)? Then the class is written for callers that start each sequence over, and the
    chain through the attribute lasts one sequence (backpropagation through time, as meant). A
    state set afresh only in `__init__` offers no such start: the calls chain for the object's life.
    False when the file calls the method (`started_over_by_every_caller` reads those calls)."""
    if method.class_name is None or _calls_of(facts, method):
        return False
    for function in facts.all_functions():
        own = function.class_name == method.class_name
        if own and (function is method or function.name == "__init__"):
            continue
        # A method of the class that starts the state over, or code outside the class that does it on an
        # object (`model.hidden = model.init_hidden()` before each sentence, the LSTM tagger tutorial's loop).
        if any(_sets_afresh(statement, attribute) and (own or not _on_self(statement, attribute))
               for statement in function.statement_order):
            return True
        if own and any(type(statement) is cst.Return and statement.value is not None
                       and _fresh_state(statement.value) for statement in function.statement_order):
            return True
    return False


def _fresh_state(value: cst.BaseExpression) -> bool:
    """A value made only by tensor factories (`torch.zeros(n, b, h)`, `Variable(torch.zeros(...)).cuda()`,
    or a tuple of them): a recurrent state to start from."""
    if type(value) in (cst.Tuple, cst.List):
        return bool(value.elements) and all(_fresh_state(element.value) for element in value.elements)
    if type(value) is not cst.Call:
        return False
    if type(value.func) is cst.Attribute and value.func.attr.value in ("cuda", "to", "float", "detach"):
        return _fresh_state(value.func.value)
    if type(value.func) is cst.Name and value.func.value == "Variable" and value.args:
        return _fresh_state(value.args[0].value)
    name = value.func.attr.value if type(value.func) is cst.Attribute else getattr(value.func, "value", "")
    return name in STATE_FACTORIES


# Factories of a fresh state tensor.
STATE_FACTORIES = frozenset({"zeros", "ones", "randn", "rand", "empty", "full", "zeros_like", "ones_like",
                             "randn_like", "new_zeros", "new_ones", "new_full", "new_empty"})


def _on_self(statement: cst.Assign, attribute: str) -> bool:
    return any(type(target.target) is cst.Attribute and target.target.attr.value == attribute
               and type(target.target.value) is cst.Name and target.target.value.value == "self"
               for target in statement.targets)


def _sets_afresh(statement: cst.CSTNode, attribute: str) -> bool:
    """`x.<attribute> = value` (or `x.a, x.<attribute> = ...`), where the value does not read the attribute."""
    if type(statement) is not cst.Assign:
        return False
    targets = [target.target for target in statement.targets]
    targets += [element.value for target in targets if type(target) in (cst.Tuple, cst.List)
                for element in target.elements]
    return any(type(target) is cst.Attribute and target.attr.value == attribute for target in targets) and \
        not any(type(node) is cst.Attribute and node.attr.value == attribute for node in walk(statement.value))


def _calls_any(statement: cst.CSTNode, methods: set) -> bool:
    return any(type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in methods
               for node in walk(statement))


def ends_its_loop(function: FunctionFacts, statement: cst.CSTNode, loop: cst.CSTNode) -> bool:
    """Does the pass of `loop` that runs `statement` end the loop right after it: a `break`, `return`
    or `raise` later in the same block (`if done: ...; loss.backward(); break`, an episode's update)?
    Then the statement runs once per run of the loop, never in two of its iterations."""
    line = function.line_of_statement.get(statement, statement)
    pending = [getattr(loop, "body", None)]
    while pending:
        block = pending.pop()
        statements = list(getattr(block, "body", ()) or ())
        if line in statements:
            return any(type(later) is cst.SimpleStatementLine and any(
                type(small) in (cst.Break, cst.Return, cst.Raise) for small in later.body)
                for later in statements[statements.index(line) + 1:])
        for compound in statements:
            if type(compound) in (cst.For, cst.While, cst.FunctionDef, cst.ClassDef):
                continue  # a `break` there ends that loop, not this one
            pending.extend(_blocks_in(compound))
    return False


def _blocks_in(compound: cst.CSTNode) -> list:
    """The blocks of an `if`/`with`/`try` statement, and of its `elif`/`else`/`except`/`finally` parts."""
    found, pending = [], list(child_nodes(compound))
    while pending:
        node = pending.pop()
        if type(node) is cst.IndentedBlock:
            found.append(node)
        elif type(node) in (cst.If, cst.Else, cst.ExceptHandler, cst.Finally, cst.ExceptStarHandler):
            pending.extend(child_nodes(node))
    return found


def emptied_outside_init(facts, attribute: str) -> bool:
    """Does any code of the file, outside `__init__`, set `<object>.<attribute>` afresh, empty it
    (`.clear()`, `.pop()`, `del x.attr[:]`) or delete it?"""
    for function in facts.all_functions():
        if function.name == "__init__":
            continue
        for statement in function.statement_order:
            for node in walk(statement):
                if type(node) is cst.Attribute and node.attr.value == attribute:
                    targets = [target.target for target in statement.targets] if type(statement) is cst.Assign \
                        else [statement.target] if type(statement) in (cst.AnnAssign, cst.AugAssign) else []
                    if any(node is target or any(sub is node for sub in walk(target)) for target in targets) \
                            or type(statement) is cst.Del:
                        return True
                if type(node) is cst.Call and type(node.func) is cst.Attribute \
                        and node.func.attr.value in ("clear", "pop", "popleft") \
                        and type(node.func.value) is cst.Attribute and node.func.value.attr.value == attribute:
                    return True
    return False


def _on_first_pass_only(loop: cst.CSTNode, statement: cst.CSTNode) -> bool:
    """Does the statement run only on the loop's first pass, under `if i == 0:` (or `if not i:`) of the
    loop's own counter (`for i in range(n)`, `for i, batch in enumerate(loader)`)? A sum started there
    (`if i == 0: epoch_loss = loss`, `else: epoch_loss = loss + epoch_loss`) is started once a loop, as
    one started before it: every later pass adds to it."""
    if type(loop) is not cst.For:
        return False
    target = loop.target
    counter = target.elements[0].value if type(target) is cst.Tuple and target.elements else target
    if type(counter) is not cst.Name:
        return False

    def first_pass(test: cst.BaseExpression) -> bool:
        if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            return type(test.expression) is cst.Name and test.expression.value == counter.value
        return type(test) is cst.Comparison and len(test.comparisons) == 1 \
            and type(test.comparisons[0].operator) is cst.Equal and type(test.left) is cst.Name \
            and test.left.value == counter.value and type(test.comparisons[0].comparator) is cst.Integer \
            and test.comparisons[0].comparator.value == "0"

    return any(type(node) is cst.If and first_pass(node.test) and any(sub is statement for sub in walk(node.body))
               for node in walk(loop.body))


def _runs_once(loop: cst.CSTNode) -> bool:
    """Does every pass of the loop end the loop? Its body's last statement, at the body's own level,
    is a `return`, `break` or `raise` (`for epoch in ...: ...; return history`, a function's
    `return` written one level too deep)."""
    body = getattr(loop, "body", None)
    statements = getattr(body, "body", ())
    if type(loop) not in (cst.For, cst.While) or not statements:
        return False
    last = statements[-1]
    return type(last) is cst.SimpleStatementLine and type(last.body[-1]) in (cst.Return, cst.Break, cst.Raise)
