"""TCL002 alias-mutated-in-place: `y = x` (or a view of x) read after an in-place write to x's storage."""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from torchcopylint.analysis.aliasing import LEAF_FACTORIES, Binding, FunctionFacts, InplaceEvent, root_name
from torchcopylint.analysis.catalog import INPLACE_TRIGGERS
from torchcopylint.analysis.facts import ModuleFacts
from torchcopylint.analysis.syntax import only_shows, walk
from torchcopylint.rules.base import Finding, Rule
from torchcopylint.rules.edits import method_call

class AliasMutatedInPlace(Rule):
    code = "TCL002"
    name = "alias-mutated-in-place"
    summary = "A name that shares storage with a tensor is read after an in-place write changed that storage"
    fix_availability = "unsafe"
    triggers = INPLACE_TRIGGERS

    def check(self, facts: ModuleFacts) -> Iterator[Finding]:
        for function in facts.all_functions():
            for alias in function.bindings:
                if alias.made_by != "alias" or alias.kind != "assign" or not alias.tensorness.is_tensor:
                    continue
                found = _first_read_after_write(function, alias)
                if found is None or _memory_inspected(function, alias) or _only_shown(function, alias):
                    continue
                read, event = found
                source = facts.code_for(alias.value)
                yield self.finding(
                    alias.value,
                    f"`{alias.name}` aliases `{source}`, which {_with_line(event.description, facts.line_of(event.node))} "
                    f"overwrites before `{alias.name}` is read at line {facts.line_of(read.node)}",
                    self.unsafe_fix(f"Copy with `{source}.clone()`", alias.value, method_call(alias.value, "clone")),
                    alias=alias.name,
                    alias_line=facts.line_of(alias.target),
                    event_line=facts.line_of(event.node),
                    read_line=facts.line_of(read.node),
                )
            yield from self._reads_after_unspelled_writes(facts, function)
            yield from self._containers_read_after_writes(facts, function)

    def _containers_read_after_writes(self, facts: ModuleFacts, function: FunctionFacts) -> Iterator[Finding]:
        """`outs.append(x)` (or `outs = [x]`, `d["k"] = x`), then an in-place write to `x`, then a read
        of the container (`torch.cat(outs)`, `return outs`): the container holds the written values."""
        if not function.held:
            return
        reads = sorted((read for read in function.reads.values() if read.held and read.use == "value"),
                       key=lambda read: function.order_of(read.statement))
        for held in function.held:
            if not held.tensorness.is_tensor or _filled_after_put(function, held, facts):
                continue
            found = _first_container_read_after_write(function, held, reads)
            if found is None:
                continue
            read, event = found
            value = facts.code_for(held.value)
            yield self.finding(
                held.value,
                f"`{held.name}` holds `{value}` (put in at line {facts.line_of(held.value)}), which "
                f"{_with_line(event.description, facts.line_of(event.node))} overwrites before `{held.name}` is "
                f"read at line {facts.line_of(read.node)}: the container holds the written values",
                self.unsafe_fix(f"Put a copy in: `{value}.clone()`", held.value, method_call(held.value, "clone")),
                alias=held.name,
                alias_line=facts.line_of(held.value),
                event_line=facts.line_of(event.node),
                read_line=facts.line_of(read.node),
            )

    def _reads_after_unspelled_writes(self, facts: ModuleFacts, function: FunctionFacts) -> Iterator[Finding]:
        """No alias: the tensor itself read after a layer or helper wrote it in place, where the code
        at the call does not say so (`out = self.body(x); out += x` with an in-place first layer)."""
        for binding in function.bindings:
            if not binding.tensorness.is_tensor or not binding.storages:
                continue
            reported: set = set()
            for read in sorted(function.reads_of(binding), key=lambda r: function.order_of(r.statement)):
                if read.use != "value":
                    continue
                for event in sorted(read.named_events.get(binding, ()), key=lambda e: e.order):
                    if event in reported or not _unspelled_write(event, facts, read.node.value) \
                            or not function.written_through(event, binding):
                        continue
                    reported.add(event)
                    name = read.node.value
                    written = event.target
                    yield self.finding(
                        read.node,
                        f"`{name}` is read at line {facts.line_of(read.node)} after "
                        f"{_with_line(event.description, facts.line_of(event.node))} wrote it in place: it holds "
                        f"the written values, not the ones passed in",
                        self.unsafe_fix(f"Pass a copy: `{facts.code_for(written)}.clone()`", written,
                                        method_call(written, "clone")),
                        alias=name,
                        event_line=facts.line_of(event.node),
                        read_line=facts.line_of(read.node),
                    )
                    break


def _first_read_after_write(function: FunctionFacts, alias: Binding):
    if any(function.written_through(event, alias) for event in function.events_on(alias.storages)):
        return None  # the alias is itself written through: the sharing is what the code wants
    for read in sorted(function.reads_of(alias), key=lambda r: function.order_of(r.statement)):
        if read.use != "value":
            continue  # `y.shape`, `y[i] = v`: nothing of the old values is used
        # Earliest write first, so the message is the same from run to run. Only writes made while
        # the alias's name held it, on a path to the read: a loop that rebinds the name and writes
        # the old storage afterwards does not change what the name holds when it is read.
        for event in sorted(read.named_events.get(alias, ()), key=lambda e: (function.order_of(e.statement), e.order)):
            # `x[..] = alias[..]` in a loop copies a region of a buffer onto itself, on purpose.
            copies_within = event.kind == "setitem" and event.statement is read.statement
            if event.certainty == "sure" and event.changes_values and not copies_within \
                    and not _copies_the_alias_onto_itself(function, event, alias):
                return read, event
    return None


def _copies_the_alias_onto_itself(function: FunctionFacts, event: InplaceEvent, alias: Binding) -> bool:
    """`self.u.copy_(u)` where `u` may still be `self.u` itself (a power iteration that ran no step): on
    the path where the alias is what the name holds, the write copies the storage's own values onto it."""
    call = event.node
    if type(call) is not cst.Call or type(call.func) is not cst.Attribute or call.func.attr.value != "copy_" \
            or not call.args or type(call.args[0].value) is not cst.Name:
        return False
    source = call.args[0].value
    return source.value == alias.name and alias in function.bindings_at(source)


def _first_container_read_after_write(function: FunctionFacts, held: Binding, reads: list):
    for read in reads:
        events = read.held.get(held, ())
        for event in sorted(events, key=lambda e: (function.order_of(e.statement), e.order)):
            if event.certainty == "sure" and event.changes_values and not (
                    event.kind == "setitem" and event.statement is read.statement) \
                    and not _rebound_afresh_before_next_pass(function, held, event):
                return read, event
    return None


def _rebound_afresh_before_next_pass(function: FunctionFacts, held: Binding, event: InplaceEvent) -> bool:
    """Is the write one of a later pass of the loop that puts the value in, whose body always rebinds
    the written name to a new tensor after the put? Non-maximum suppression's `detections[0, :4] = ...;
    keep.append(detections[0]); detections = detections[~invalid]`: each pass writes the rows the last
    one made, never those the container holds. (The walk joins the loop's entry with its passes, so
    the tensor of before the loop seems to reach the write again.)"""
    name = root_name(event.target) if event.target is not None else None
    if name is None or function.order_of(event.statement) >= function.order_of(held.statement):
        return False
    for loop in reversed(held.loops):
        if not any(node is event.statement for node in walk(loop.body)):
            continue
        top_level = [small for line in loop.body.body if isinstance(line, cst.SimpleStatementLine)
                     for small in line.body]
        return any(binding.name == name.value and binding.kind == "assign" and binding.made_by in ("new", "copy")
                   and binding.statement in top_level
                   and function.order_of(binding.statement) > function.order_of(held.statement)
                   for binding in function.bindings)
    return False


def _filled_after_put(function: FunctionFacts, held: Binding, facts: ModuleFacts) -> bool:
    """A buffer made to be filled (`buf = torch.zeros_like(p)`, `state = x.clone()`), put in a
    container and then written: the container is meant to hold what is written (a list of
    optimizer states, of accumulators)."""
    root = root_name(held.value)
    bindings = function.bindings_at(root) if root is not None else frozenset()
    for binding in bindings:
        if binding.made_by == "copy":
            return True
        value = binding.value
        if isinstance(value, cst.Call):
            qualified = facts.names.qualified_name(value.func) or ""
            name = qualified.rpartition(".")[2] if qualified else (
                value.func.attr.value if isinstance(value.func, cst.Attribute) else "")
            if (qualified.startswith("torch.") and name in LEAF_FACTORIES) or name.startswith("new_"):
                return True
    return False


def _with_line(description: str, line: int) -> str:
    """`self.relu (ReLU(inplace=True))` -> `self.relu (ReLU(inplace=True), line 14)`."""
    if description.endswith(")") and " (" in description:
        return f"{description[:-1]}, line {line})"
    return f"{description} (line {line})"


def _unspelled_write(event: InplaceEvent, facts: ModuleFacts, name: str) -> bool:
    """A sure write that the call does not spell on the name: a layer that writes its input
    (`self.body(x)`), `F.relu(x, inplace=True)`, whose result the code uses as a new value.
    Not `x.relu_()`, `x += 1`, `torch.relu_(x)`, nor a call made for its effect alone (`self.act(x)`
    as a statement, or in an expression whose result is dropped), nor one whose result the name is
    rebound to (`x = self.relu(x)`): after those, reading the written values is what the author wants.
    Nor a function or method of the file that writes its argument: filling a buffer
    (`lam = self._mix(output, batch)`) is what such helpers are for."""
    if event.certainty != "sure" or event.target is None or not isinstance(event.node, cst.Call):
        return False
    if event.kind == "functional":
        qualified = facts.names.qualified_name(event.node.func) or ""
        if qualified.endswith("_"):
            return False
    elif event.kind != "module":
        return False
    statement = event.statement
    if isinstance(statement, cst.Assign) and any(
            isinstance(target.target, cst.Name) and target.target.value == name for target in statement.targets):
        return False
    # `self.act(x)` alone, or inside an expression whose result is dropped (`x - self.act(x)`, a typo
    # for `x = ...`): the statement does nothing but the write, which is what the author wants.
    return not (isinstance(statement, cst.Expr) and (statement.value is event.node
                                                     or not isinstance(statement.value, cst.Call)))


def _memory_inspected(function: FunctionFacts, alias: Binding) -> bool:
    """Does the code look at which memory the alias (or what it aliases) is (`id(b)`, `b is a`,
    `b.data_ptr()`)? Then the shared storage is what it shows on purpose (a lesson on aliasing)."""
    root = root_name(alias.value)
    sources = function.bindings_at(root) if isinstance(root, cst.Name) else frozenset()
    return any(read.use == "identity" for binding in (alias, *sources) for read in function.reads_of(binding))


def _only_shown(function: FunctionFacts, alias: Binding, depth: int = 0) -> bool:
    """Is the alias only ever shown (a notebook cell that is its name alone, `print(b)`), itself or
    through views of it that are only shown (`x_squeezed = x_reshaped.squeeze()`, then
    `print(x_squeezed)`)? Showing a view after its base was written is how a lesson shows that they
    share memory (`b = a.view(-1, 1)`, `a.zero_()`, then `b`): nothing computes with the old values."""
    reads = [read for read in function.reads_of(alias) if read.use == "value"]
    if depth and not reads:
        # A view only measured (`print(x_squeezed.shape)`): nothing reads its values.
        return all(read.use == "metadata" for read in function.reads_of(alias))

    def shown(read) -> bool:
        if only_shows(read.statement, read.node):
            return True
        # (Also a tensor moved where it may stay, `t1 = t1.to(device)`, then `print(t1.device)`.)
        views = [binding for binding in function.bindings if binding.statement is read.statement
                 and binding.made_by in ("alias", "may-alias")]
        return depth < MAX_SHOWN_VIEWS and bool(views) and all(_only_shown(function, view, depth + 1) for view in views)

    return bool(reads) and all(shown(read) for read in reads)


MAX_SHOWN_VIEWS = 3  # views of views followed to where they are shown
