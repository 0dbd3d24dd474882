"""TCL001 redundant-clone: `y = x.clone()` of a local activation that nothing writes in place."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from torchcopylint.analysis.aliasing import Binding, ConsumedCopy, FunctionFacts, Read, clone_source, root_name
from torchcopylint.analysis.facts import ModuleFacts
from torchcopylint.rules.base import Finding, Rule

# Ways a value escapes after which an unknown party may write it.
UNSEEN_ESCAPES = ("put in a container", "stored on", "passed to")


class RedundantClone(Rule):
    code = "TCL001"
    name = "redundant-clone"
    summary = "`y = x.clone()` of an activation that nothing writes in place: a full copy for nothing"
    fix_availability = "sometimes"
    triggers = (b"clone",)

    def check(self, facts: ModuleFacts) -> Iterator[Finding]:
        for function in facts.all_functions():
            for copy in function.bindings:
                if copy.made_by != "copy" or copy.kind != "assign":
                    continue
                source = _cloned_name(copy.value, facts)
                if source is None or not _is_local_activation(function, source, facts):
                    continue
                verdict = _clone_needed(function, copy, source)
                if verdict is None:
                    continue
                last_read, unknown_layers = verdict
                yield self._report(facts, function, copy, source, last_read, unknown_layers)
            for consumed in function.consumed_copies:
                if not _is_local_activation(function, consumed.source, facts):
                    continue
                unknown_layers = _consumed_copy_needed(function, consumed)
                if unknown_layers is None:
                    continue
                yield self._report_consumed(facts, consumed, unknown_layers)

    def _report_consumed(self, facts: ModuleFacts, consumed: ConsumedCopy, unknown_layers: list) -> Finding:
        source = consumed.source.value
        message = (f"`{facts.code_for(consumed.clone)}` is fed straight into {consumed.how}, which makes a new "
                   f"tensor anyway: the values of `{source}` are copied twice, and nothing writes `{source}` in "
                   f"place afterwards")
        description = f"Use `{source}` without the copy"
        if unknown_layers:
            callees = ", ".join(sorted({event.description for event in unknown_layers}))
            message += f" (assuming {callees} does not write its input in place)"
            fix = self.unsafe_fix(description, consumed.clone, consumed.source)
        else:
            fix = self.safe_fix(description, consumed.clone, consumed.source)
        return self.finding(consumed.clone, message, fix, source=source, consumer=consumed.how)

    def _report(self, facts: ModuleFacts, function: FunctionFacts, copy: Binding, source: cst.Name,
                last_read: Read, unknown_layers: list) -> Finding:
        read_line = facts.line_of(last_read.node)
        if _is_residual_add(last_read):
            message = (f"`{copy.name} = {facts.code_for(copy.value)}` copies the block input, but nothing "
                       f"writes `{source.value}` or `{copy.name}` in place before `{copy.name}` is added back "
                       f"at line {read_line}: a full activation copy per call, for nothing")
        else:
            message = (f"`{copy.name} = {facts.code_for(copy.value)}` is never needed: nothing writes "
                       f"`{source.value}` or `{copy.name}` in place before `{copy.name}` is last read at line "
                       f"{read_line}")
        # Only rebindings made before the copy was read: a loop that feeds the copy to its first
        # block and rebinds the name to the result (`h = stage(h)`) did need the value once.
        first_read = min((function.order_of(read.statement) for storage in copy.storages
                          for read in function.reads_of_storage(storage)), default=-1)
        rebinding_lines = sorted({facts.line_of(binding.target) for binding in last_read.bindings
                                  if binding is not copy and binding.name == copy.name
                                  and function.order_of(binding.statement) < first_read})
        if rebinding_lines:
            # `if self.downsample is not None: identity = self.downsample(x)`: on that path the
            # copy is dead (or only feeds the layer), on the other it is plain waste.
            lines = ", ".join(map(str, rebinding_lines))
            message += f"; where `{copy.name}` is rebound first (line {lines}) the copy is not needed either"
        description = f"Use `{source.value}` without the copy"
        if unknown_layers:
            callees = ", ".join(sorted({event.description for event in unknown_layers}))
            message += f" (assuming {callees} does not write its input in place)"
            fix = self.unsafe_fix(description, copy.value, source)
        else:
            fix = self.safe_fix(description, copy.value, source)
        return self.finding(copy.value, message, fix, read_line=read_line, source=source.value, copy=copy.name)


def _cloned_name(value: Optional[cst.BaseExpression], facts: ModuleFacts) -> Optional[cst.Name]:
    """`x` for `x.clone()` / `torch.clone(x)` with the default memory format, else None."""
    source = clone_source(value, facts.names)
    return source if isinstance(source, cst.Name) else None


def _consumed_copy_needed(function: FunctionFacts, consumed: ConsumedCopy) -> Optional[list]:
    """None when a copy consumed at once may still be needed; else the unknown layers assumed not
    to write. The op read the copy at once, so only autograd can still hold it: with the copy
    gone, autograd saves the source instead (`x * w` saves `x`), and a write to the source after
    the op (later in the function, or in a later iteration of a loop around it) would fail the
    backward. So any write after it, or one an unknown callee may make, keeps the copy."""
    read = function.reads.get(consumed.source)
    if read is None:
        return None
    storages = frozenset().union(*(binding.storages for binding in read.bindings))
    for escape in function.escapes_of(storages):
        if escape.how.startswith(UNSEEN_ESCAPES) and not escape.how.startswith("passed to self."):
            return None
    order = function.order_of(consumed.statement)
    loops = set(function.loops_of.get(consumed.statement, ()))
    unknown_layers = []
    for event in function.events_on(storages):
        after = function.order_of(event.statement) >= order \
            or bool(loops & set(function.loops_of.get(event.statement, ())))
        if not after:
            continue
        if event.kind == "opaque-module":
            unknown_layers.append(event)
        else:
            return None
    return unknown_layers


def _is_local_activation(function: FunctionFacts, source: cst.Name, facts: ModuleFacts, depth: int = 0) -> bool:
    """Is every value reaching `source` an activation this function owns (not a parameter, buffer or
    state, nor a view or alias of one: `state = cstate.to(dtype)` of a recurrent state passed in)?"""
    read = function.reads.get(source)
    if read is None or not read.bindings or depth > 8:
        return False
    owner = facts.classes.get(function.class_name) if function.class_name else None
    in_module_forward = function.name == "forward" and owner is not None and facts.is_module_class(owner)
    for binding in read.bindings:
        if not binding.tensorness.is_tensor or not binding.storages:
            return False
        if binding.kind == "param":
            # Only a module's forward inputs are activations; another function's tensor
            # parameter may be a model parameter an optimizer updates behind our back.
            if not in_module_forward:
                return False
        elif binding.kind != "assign" or binding.made_by not in ("new", "alias", "may-alias", "copy"):
            return False
        elif binding.made_by in ("alias", "may-alias"):
            root = root_name(binding.value)
            if root is None or root.value == "self" or not _is_local_activation(function, root, facts, depth + 1):
                return False
    return True


def _clone_needed(function: FunctionFacts, copy: Binding, source: cst.Name):
    """None when the clone may be needed; else (last read of the copy, unknown layers in between)."""
    copy_storages = copy.storages
    reads = [read for storage in copy_storages for read in function.reads_of_storage(storage)]
    if not reads:
        return None
    # A layer it cannot see into, handed the copy (`self.body(identity)`, or the
    # `identity = self.downsample(identity)` that replaces it), is an assumption, not an escape.
    layers = [event for event in function.events_reaching.get(copy, ()) if _is_layer_use(event, copy)]
    layer_arguments = {event.target for event in layers}
    if any(escape.node not in layer_arguments for escape in function.escapes_of(copy_storages)):
        return None  # returned, stored, appended or handed to an unknown callee
    for escape in function.escapes_of(copy.source_storages):
        if escape.how.startswith(UNSEEN_ESCAPES) and not escape.how.startswith("passed to self."):
            return None
    unknown_layers = []
    clone_order = function.order_of(copy.statement)
    for read in reads:
        for event in read.events_since.get(copy, ()):
            if event in layers:
                unknown_layers.append(event)
            else:
                return None
    for event in sorted(function.events_reaching.get(copy, ()), key=lambda event: event.order):
        # A write after the last read still needs the copy if autograd saved the value; a write
        # on a path where the copy was rebound before it was read does not (the copy is dead there).
        if function.order_of(event.statement) > clone_order:
            if event in layers:
                unknown_layers.append(event)
            else:
                return None
    last_read = max(reads, key=lambda read: function.order_of(read.statement))
    return last_read, unknown_layers


def _is_residual_add(read: Read) -> bool:
    statement = read.statement
    if isinstance(statement, cst.AugAssign) and isinstance(statement.operator, cst.AddAssign):
        return statement.value is read.node
    value = getattr(statement, "value", None)
    return isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add) \
        and read.node in (value.left, value.right)


def _is_layer_use(event, copy: Binding) -> bool:
    """An unknown layer receiving a value: one built in sight (`self.body = Body()`), or a `self.`
    attribute whose result replaces the copy (`identity = self.downsample(identity)`)."""
    if event.kind == "opaque-module":
        return True
    statement = event.statement
    return event.kind == "opaque" and isinstance(event.node, cst.Call) \
        and isinstance(event.node.func, cst.Attribute) and isinstance(event.node.func.value, cst.Name) \
        and event.node.func.value.value == "self" and isinstance(statement, cst.Assign) \
        and statement.value is event.node \
        and any(isinstance(target.target, cst.Name) and target.target.value == copy.name for target in statement.targets)
