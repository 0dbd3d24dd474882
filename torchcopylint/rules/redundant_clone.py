"""TCL001 redundant-clone: `y = x.clone()` of a local activation that nothing writes in place."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from torchcopylint.analysis.aliasing import Binding, FunctionFacts, Read
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
                yield self._report(facts, copy, source, last_read, unknown_layers)

    def _report(self, facts: ModuleFacts, copy: Binding, source: cst.Name, last_read: Read,
                unknown_layers: list) -> Finding:
        read_line = facts.line_of(last_read.node)
        if _is_residual_add(last_read):
            message = (f"`{copy.name} = {facts.code_for(copy.value)}` copies the block input, but nothing "
                       f"writes `{source.value}` or `{copy.name}` in place before `{copy.name}` is added back "
                       f"at line {read_line}: a full activation copy per call, for nothing")
        else:
            message = (f"`{copy.name} = {facts.code_for(copy.value)}` is never needed: nothing writes "
                       f"`{source.value}` or `{copy.name}` in place before `{copy.name}` is last read at line "
                       f"{read_line}")
        rebinding_lines = sorted({facts.line_of(binding.target) for binding in last_read.bindings
                                  if binding is not copy and binding.name == copy.name})
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
    if not isinstance(value, cst.Call):
        return None
    if facts.names.qualified_name(value.func) == "torch.clone":
        positional = [arg for arg in value.args if arg.keyword is None]
        source = positional[0].value if len(positional) == 1 else None
    elif isinstance(value.func, cst.Attribute) and value.func.attr.value == "clone":
        positional = [arg for arg in value.args if arg.keyword is None]
        source = value.func.value if not positional else None
    else:
        return None
    for arg in value.args:
        if arg.keyword is None:
            continue
        if arg.keyword.value != "memory_format" or facts.names.qualified_name(arg.value) != "torch.preserve_format":
            return None  # a layout change is a real copy
    return source if isinstance(source, cst.Name) else None


def _is_local_activation(function: FunctionFacts, source: cst.Name, facts: ModuleFacts) -> bool:
    """Is every value reaching `source` an activation this function owns (not a parameter, buffer or state)?"""
    read = function.reads.get(source)
    if read is None or not read.bindings:
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
