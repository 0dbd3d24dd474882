"""TCL006 detached-alias-mutated: writing into `x.detach()` (or `x.data`, `x.numpy()`) changes `x`."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from torchcopylint.analysis.aliasing import (Binding, FunctionFacts, InplaceEvent, Read, goes_through_detach, root_name,
                                             runs_before)
from torchcopylint.analysis.catalog import INPLACE_TRIGGERS
from torchcopylint.analysis.facts import ModuleFacts
from torchcopylint.analysis.syntax import only_shows, walk
from torchcopylint.analysis.training import backward_calls
from torchcopylint.rules.base import Finding, Rule
from torchcopylint.rules.edits import method_call


class DetachedAliasMutated(Rule):
    code = "TCL006"
    name = "detached-alias-mutated"
    summary = "In-place write through `x.detach()` / `x.data` / `x.numpy()` changes `x` too"
    fix_availability = "unsafe"
    triggers = INPLACE_TRIGGERS

    def check(self, facts: ModuleFacts) -> Iterator[Finding]:
        for function in facts.all_functions():
            for alias in function.bindings:
                if alias.made_by != "alias" or alias.kind != "assign" or not goes_through_detach(alias.value):
                    continue
                source = root_name(alias.value)
                if source is None or source.value == "self":
                    continue
                found = _write_seen_by_source(function, alias, source, facts)
                if found is None:
                    continue
                event, consequence, read = found
                yield self.finding(
                    alias.value,
                    f"`{alias.name} = {facts.code_for(alias.value)}` shares memory with `{source.value}`, and "
                    f"{_with_line(event.description, facts.line_of(event.node))} writes through it: {consequence}",
                    self.unsafe_fix("Copy before writing", alias.value, _copy_of(alias.value)),
                    write_line=facts.line_of(event.node), source=source.value, **_read_context(read, facts),
                )
            yield from self._helpers_writing_through_a_detached_view(facts, function)

    def _helpers_writing_through_a_detached_view(self, facts: ModuleFacts, function: FunctionFacts) -> Iterator[Finding]:
        """`show(out)` where `def show(t): a = t.detach().numpy(); a *= 255`: the helper takes a
        detached view of its argument and writes it, so the caller's tensor changes."""
        for event in function.inplace_events.values():
            if event.kind != "callee" or event.certainty != "sure" or not event.through \
                    or not isinstance(event.target, cst.Name) or not isinstance(event.node, cst.Call):
                continue
            callee = facts.code_for(event.node.func)
            if callee.endswith("_") or _rebinds_name(event.statement, event.target.value):
                continue  # `normalize_(x)` says it writes; `x = show(x)` takes what it returns
            # `t.detach()` and `t.numpy()` in the helper show that what it is handed is a tensor.
            proven = any(part in event.through for part in (".detach()", ".numpy()"))
            originals = [binding for binding in function.bindings_at(event.target)
                         if binding.tensorness.is_tensor or (proven and binding.storages)]
            if not originals:
                continue
            name = event.target.value
            where = f"`{callee}()` writes `{name}` in place through `{event.through}` (line {facts.line_of(event.node)})"
            if any(original.leaf for original in originals) and _backward_across(function, event, facts):
                consequence = (f"`{name}` requires grad, so a later backward may fail with \"one of the variables "
                               f"needed for gradient computation has been modified by an inplace operation\"")
            else:
                read = _later_read(function, originals, event)
                if read is None:
                    continue
                consequence = f"`{name}` is read afterwards (line {facts.line_of(read.node)}) and sees the change"
            yield self.finding(
                event.target,
                f"{where}: {consequence}",
                self.unsafe_fix(f"Pass a copy: `{name}.clone()`", event.target, method_call(event.target, "clone")),
                write_line=facts.line_of(event.node), source=name, snapshot="before",
            )


def _write_seen_by_source(function: FunctionFacts, alias: Binding, source: cst.Name, facts: ModuleFacts):
    """The first write through the alias that the original can observe, with what follows from it."""
    # What the source name may name, less the alias and what was made from it: in a loop,
    # `x = x.detach()` reaches its own read at the top of the next iteration.
    originals = [original for original in function.bindings_at(source)
                 if not function.derives_from((original,), alias)]
    if not _proves_a_tensor(alias.value) and not any(original.tensorness.is_tensor for original in originals):
        return None  # `resdat = result.data` of a NumPy masked array (a Normalize subclass): maybe no tensor
    if not facts.names.imports_torch and function.name.startswith("test") \
            and all(original.kind == "param" for original in originals):
        # A test's fixture (`def test_numpy_returns_copy(self, simple_tensor)`) in a file that never imports
        # torch: what the fixture gives is defined out of sight (a NumPy framework's own copying `Tensor`).
        return None
    for event in sorted(function.events_on(alias.storages), key=lambda e: function.order_of(e.statement)):
        if event.certainty != "sure" or not function.written_through(event, alias):
            continue
        if any(original.leaf for original in originals) and _backward_across(function, event, facts):
            return event, (f"`{source.value}` requires grad, so a later backward may fail with \"one of the "
                           f"variables needed for gradient computation has been modified by an inplace operation\""), None
        # Otherwise only a later read shows the change: a parameter updated through `p.detach()`
        # and not read again is the `p.data` idiom, written differently. After `x = x.detach()`
        # the name `x` names the alias, so no later read of `x` sees the old tensor.
        # A shape-only write (`d.squeeze_()`) bumps the shared version counter, which the backward above
        # checks, but leaves every value a later read sees as it was.
        if function.replaces_its_source(alias) or not event.changes_values:
            continue
        if any(original.leaf for original in originals) and _after_a_backward(function, event, facts):
            # `w = p.data[s:e]`, then `w[i] = 1` after `loss.backward()`: a step by hand on a tensor the
            # code trains, which the next forward is meant to read changed.
            continue
        read = _later_read(function, originals, event, _row_of_the_pass(alias, source))
        if read is not None:
            return event, f"`{source.value}` is read afterwards (line {facts.line_of(read.node)}) and sees the change", \
                read
    return None


def _row_of_the_pass(alias: Binding, source: cst.Name) -> Optional[str]:
    """The index of `sample = imgs[i].numpy()` in `for i in range(len(imgs))`: each pass of the loop
    takes another row, so the next pass's `imgs[i]` does not read the row this one wrote. None when
    the alias is not one element of a loop over indices."""
    loop = alias.loops[-1] if alias.loops else None
    if type(loop) is not cst.For or type(loop.iter) is not cst.Call or type(loop.iter.func) is not cst.Name \
            or loop.iter.func.value != "range" or type(loop.target) is not cst.Name:
        return None
    value = alias.value
    while type(value) in (cst.Call, cst.Attribute):
        value = value.func if type(value) is cst.Call else value.value
    if type(value) is not cst.Subscript or type(value.value) is not cst.Name or value.value.value != source.value:
        return None
    return loop.target.value if _indexed_by(value, loop.target.value) else None


def _indexed_by(subscript: cst.Subscript, index: str) -> bool:
    """`x[i]` (its first index the name `index`)."""
    first = subscript.slice[0].slice if subscript.slice else None
    return type(first) is cst.Index and type(first.value) is cst.Name and first.value.value == index


def _read_context(read: Optional[Read], facts: ModuleFacts) -> dict:
    """For --verify: the later read, where it takes elements (`imgs[i]`), which a write may leave alone."""
    if read is None:
        return {}
    element = next((node for node in walk(read.statement) if type(node) is cst.Subscript
                    and node.value is read.node), None)
    return {"read_line": facts.line_of(read.node), "read_expression": facts.code_for(element)} if element else {}


def _rebinds_name(statement: cst.CSTNode, name: str) -> bool:
    return isinstance(statement, cst.Assign) and any(
        isinstance(target.target, cst.Name) and target.target.value == name for target in statement.targets)


def _with_line(description: str, line: int) -> str:
    """`clip_() (writes its argument in place)` -> `clip_() (writes its argument in place, line 9)`."""
    if description.endswith(")") and " (" in description:
        return f"{description[:-1]}, line {line})"
    return f"{description} (line {line})"


def _proves_a_tensor(value: cst.BaseExpression) -> bool:
    """`x.detach()`, `x.numpy()`: methods only a tensor has (`x.data` a NumPy array has too)."""
    return any(type(node) is cst.Attribute and node.attr.value in ("detach", "numpy") for node in walk(value))


def _backward_across(function: FunctionFacts, event: InplaceEvent, facts) -> bool:
    """Is a loss computed before the write backpropagated after it (so its graph may have saved the value)?"""
    written = function.order_of(event.statement)
    for backward in backward_calls(function, facts):
        if function.order_of(backward.statement) <= written:
            continue
        root = root_name(backward.loss)
        if root is not None and any(function.order_of(b.statement) < written for b in function.bindings_at(root)):
            return True
    return False


def _after_a_backward(function: FunctionFacts, event: InplaceEvent, facts) -> bool:
    """Does a backward run before the write, in the same pass (of the function, or of a loop around both)?"""
    written = function.order_of(event.statement)
    return any(function.order_of(backward.statement) < written
               and set(function.loops_of.get(backward.statement, ())) <= set(function.loops_of.get(event.statement, ()))
               for backward in backward_calls(function, facts))


def _later_read(function: FunctionFacts, originals, event: InplaceEvent, row: Optional[str] = None) -> Optional[Read]:
    """The first read of the original the write reaches: one after the write in the same pass first
    (`pred.numpy()` on the next line), before one in the next pass of a loop around both. With `row`
    (the loop's index the alias took its element by), a next pass's read of element `row` is another
    element, which the write left alone."""
    reads = {id(read): read for original in originals for read in function.reads_of(original)}
    written = function.order_of(event.statement)
    for read in sorted(reads.values(), key=lambda r: (function.order_of(r.statement) < written,
                                                      function.order_of(r.statement))):
        if read.use != "value" or _overwritten_whole(read) or only_shows(read.statement, read.node):
            continue  # showing the changed values (`print(a)`) is how a lesson on sharing memory ends
        if row is not None and function.order_of(read.statement) < written and any(
                type(node) is cst.Subscript and node.value is read.node and _indexed_by(node, row)
                for node in walk(read.statement)):
            continue
        if any(event in read.events_since.get(original, ()) and not _overwritten_between(function, event, read,
                                                                                       read.events_since[original])
               for original in originals):
            return read
    return None


def _overwritten_between(function: FunctionFacts, event: InplaceEvent, read: Read, events) -> bool:
    """Does a write that sets every element of the original (`p.data.copy_(new)`) run after the alias's
    write and before the read, on every path to it? The read sees that write's values."""
    written, reading = function.order_of(event.statement), function.order_of(read.statement)
    return any(other is not event and other.certainty == "sure" and _sets_every_element(other.node)
               and written < function.order_of(other.statement) < reading
               and runs_before(function, other.statement, read.statement) for other in events)


def _sets_every_element(node: cst.CSTNode) -> bool:
    return type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in WHOLE_OVERWRITES


# In-place writes that set every element, whatever the tensor held.
WHOLE_OVERWRITES = frozenset({"copy_", "zero_", "fill_"})


def _overwritten_whole(read: Read) -> bool:
    """Is the read the receiver of a write that sets every element (`p.data.copy_(new)`, `x.zero_()`)?
    Nothing of the old values is seen: a finite-difference loop that writes through `p.detach().numpy()`
    and then copies the same values into `p` shows the alias's write to no one."""
    statement = read.statement
    if type(statement) is not cst.Expr or type(statement.value) is not cst.Call:
        return False
    if not _sets_every_element(statement.value):
        return False
    receiver = statement.value.func.value
    while True:
        if type(receiver) is cst.Attribute and receiver.attr.value == "data":
            receiver = receiver.value
        elif type(receiver) is cst.Call and type(receiver.func) is cst.Attribute and receiver.func.attr.value == "detach":
            receiver = receiver.func.value
        else:
            return receiver is read.node


def _copy_of(value: cst.BaseExpression) -> cst.BaseExpression:
    """`x.detach()` -> `x.detach().clone()`; `x.data` -> `x.detach().clone()`; `x.numpy()` -> `x.numpy().copy()`."""
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "numpy":
        return method_call(value, "copy")
    if isinstance(value, cst.Attribute) and value.attr.value == "data":
        return method_call(method_call(value.value, "detach"), "clone")
    return method_call(value, "clone")
