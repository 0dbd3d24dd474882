"""TCL001 redundant-clone: `y = x.clone()` of a local activation that nothing writes in place."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from torchcopylint.analysis.aliasing import (
    Binding,
    ConsumedCopy,
    FunctionFacts,
    Read,
    StoredCopy,
    clone_source,
    root_name,
)
from torchcopylint.analysis.facts import ModuleFacts
from torchcopylint.analysis.graphs import read_as_leaves
from torchcopylint.analysis.indexing import FreshCopy, Indexing
from torchcopylint.analysis.keeping import argument_left_alone
from torchcopylint.analysis.tensors import reads_as_network
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
        indexing = None
        for function in facts.all_functions():
            reported: set = set()
            for copy in function.bindings:
                if copy.made_by != "copy" or copy.kind != "assign":
                    continue
                source = _cloned_name(copy.value, facts)
                if source is None or not _is_local_activation(function, source, facts) \
                        or _global_of_functions(function, (source.value, copy.name), facts):
                    continue
                verdict = _clone_needed(function, copy, source)
                if verdict is None:
                    continue
                last_read, unknown_layers = verdict
                yield self._report(facts, function, copy, source, last_read, unknown_layers)
            for consumed in function.consumed_copies:
                if not _is_local_activation(function, consumed.source, facts) \
                        or _global_of_functions(function, (consumed.source.value,), facts):
                    continue
                callee = None
                if consumed.argument is not None:
                    # Handed to a callee: only one of the file that neither writes nor keeps it.
                    callee = argument_left_alone(facts, consumed.consumer, function, *consumed.argument)
                    if callee is None:
                        continue
                unknown_layers = _consumed_copy_needed(function, consumed)
                if unknown_layers is None:
                    continue
                reported.add(consumed.clone)
                yield self._report_consumed(facts, consumed, unknown_layers, callee)
            for stored in function.stored_copies:
                reported.add(stored.clone)
                yield self._report_stored(facts, stored)
            if any(isinstance(call.func, cst.Attribute) and call.func.attr.value == "clone"
                   and isinstance(call.func.value, cst.Subscript) for call in function.call_statement) \
                    or any(_clones_a_subscript(call, facts) for call in function.call_statement):
                if indexing is None:
                    indexing = Indexing(facts.names, facts.numpy, facts.code_for)
                for fresh in indexing.fresh_copies(function):
                    if fresh.clone not in reported:
                        yield self._report_fresh(facts, fresh)

    def _report_fresh(self, facts: ModuleFacts, fresh: FreshCopy) -> Finding:
        subscript = facts.code_for(fresh.subscript)
        message = (f"`{_one_line(facts, fresh.clone)}` copies the result of `{_one_line(facts, fresh.subscript)}`, "
                   f"which indexes with {fresh.index} (advanced indexing): that is already a new tensor "
                   f"that nothing else shares, so the values are copied twice")
        return self.finding(fresh.clone, message,
                            self.safe_fix(f"Use `{subscript}` without the copy", fresh.clone, fresh.cloned),
                            index=fresh.index, kind="advanced-index")

    def _report_stored(self, facts: ModuleFacts, stored: StoredCopy) -> Finding:
        target = _one_line(facts, stored.target)
        cloned = facts.code_for(stored.cloned)
        message = (f"`{target} = {_one_line(facts, stored.clone)}` copies `{_one_line(facts, stored.cloned)}` only "
                   f"for the item assignment to copy it again into `{_one_line(facts, stored.target.value)}`: the "
                   f"assignment already copies the values, and nothing keeps the clone")
        return self.finding(stored.clone, message,
                            self.safe_fix(f"Assign `{cloned}` without the copy", stored.clone, stored.cloned),
                            target=target, kind="item-assignment")

    def _report_consumed(self, facts: ModuleFacts, consumed: ConsumedCopy, unknown_layers: list,
                         callee: Optional[tuple] = None) -> Finding:
        source = consumed.source.value
        cloned = consumed.cloned if consumed.cloned is not None else consumed.source
        shown = facts.code_for(cloned)
        if callee is not None:
            label, parameter = callee
            message = (f"`{_one_line(facts, consumed.clone)}` is handed to `{label}()`, which neither writes its "
                       f"argument `{parameter}` in place nor keeps it (it only reads it), and nothing writes "
                       f"`{source}` in place afterwards: the copy is never needed")
        else:
            message = (f"`{facts.code_for(consumed.clone)}` is fed straight into {consumed.how}, which makes a new "
                       f"tensor anyway: the values of `{source}` are copied twice, and nothing writes `{source}` in "
                       f"place afterwards")
        description = f"Use `{shown}` without the copy"
        if unknown_layers:
            callees = ", ".join(sorted({event.description for event in unknown_layers}))
            message += f" (assuming {callees} does not write its input in place)"
            fix = self.unsafe_fix(description, consumed.clone, cloned)
        else:
            fix = self.safe_fix(description, consumed.clone, cloned)
        return self.finding(consumed.clone, message, fix, source=source, consumer=consumed.how)

    def _report(self, facts: ModuleFacts, function: FunctionFacts, copy: Binding, source: cst.Name,
                last_read: Read, unknown_layers: list) -> Finding:
        read_line = facts.line_of(last_read.node)
        # `x = x.clone()` rebinds its own source: one name to speak of, not the same one twice.
        written = f"`{copy.name}`" if source.value == copy.name else f"`{source.value}` or `{copy.name}`"
        if _is_residual_add(last_read):
            message = (f"`{copy.name} = {facts.code_for(copy.value)}` copies the block input, but nothing "
                       f"writes {written} in place before `{copy.name}` is added back "
                       f"at line {read_line}: a full activation copy per call, for nothing")
        else:
            message = (f"`{copy.name} = {facts.code_for(copy.value)}` is never needed: nothing writes "
                       f"{written} in place before `{copy.name}` is last read at line {read_line}")
        # Only rebindings made before the copy was read: a loop that feeds the copy to its first
        # block and rebinds the name to the result (`h = stage(h)`) did need the value once.
        first_read = min((function.order_of(read.statement) for storage in copy.storages
                          for read in function.reads_of_storage(storage)), default=-1)
        # (After the copy: a binding before it, such as the value a loop starts from, is the
        # first iteration's, not a rebinding of the copy.)
        copied_at = function.order_of(copy.statement)
        rebinding_lines = sorted({facts.line_of(binding.target) for binding in last_read.bindings
                                  if binding is not copy and binding.name == copy.name
                                  and copied_at < function.order_of(binding.statement) < first_read})
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


def _clones_a_subscript(call: cst.Call, facts: ModuleFacts) -> bool:
    """`torch.clone(x[idx])`."""
    return isinstance(call.func, (cst.Attribute, cst.Name)) and call.args \
        and isinstance(call.args[0].value, cst.Subscript) and facts.names.qualified_name(call.func) == "torch.clone"


def _global_of_functions(function: FunctionFacts, names: tuple, facts: ModuleFacts) -> bool:
    """At the top level: is one of `names` read as a global by a function of the file (which may
    write it in place when called, unseen by the top level's walk)?"""
    if function.name != "<module>":
        return False
    wanted = set(names)
    return any(read.node.value in wanted and not read.bindings
               for other in facts.all_functions() if other is not function for read in other.reads.values())


def _one_line(facts: ModuleFacts, node: cst.CSTNode, limit: int = 60) -> str:
    text = " ".join(facts.code_for(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


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
        if escape.how == "returned":
            # `self.gram(input.clone())`, then `return input`: the caller may write what it gets back in
            # place (the next layer of a Sequential, an in-place ReLU), which autograd saved without the copy.
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
        elif binding.kind == "assign" and binding.made_by == "" and _made_fresh(function, binding, facts):
            continue
        elif binding.kind != "assign" or binding.made_by not in ("new", "alias", "may-alias", "copy"):
            return False
        elif binding.made_by in ("alias", "may-alias"):
            root = root_name(binding.value)
            if root is None or root.value == "self" or not _is_local_activation(function, root, facts, depth + 1):
                return False
    return True


def _made_fresh(function: FunctionFacts, binding: Binding, facts: ModuleFacts) -> bool:
    """A tensor (shown by its use) that a call made afresh, though the walk could not tell it was a
    tensor there: a network's output (`out = cnn(img)`, `z = G(z)`), `torch.load(...)`, a function
    of the file that returns a new tensor (`z = step(z_n)` with `return v * 0.5`)."""
    value = binding.value
    if not binding.tensorness.is_tensor or not isinstance(value, cst.Call):
        return False
    func = value.func
    qualified = facts.names.qualified_name(func)
    if qualified is not None:
        return qualified in ("torch.load", "torch.hub.load_state_dict_from_url")
    summary = facts.callee_summary(value, function)
    if summary is not None:
        return summary.returns in ("network", "new") or _returns_arithmetic(summary.facts_of_body)
    if isinstance(func, cst.Name):
        bindings = function.bindings_at(func)
        return reads_as_network(func.value) and all(b.kind == "param" for b in bindings)
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self" \
            and function.class_name in facts.classes:
        # `self.cnn(img)`, the network handed to the constructor (`self.cnn = cnn`), as for a
        # parameter above; one the class builds may be an `nn.Identity()` that returns its input.
        values = facts.attribute_values(facts.classes[function.class_name], func.attr.value)
        return reads_as_network(func.attr.value) and bool(values) and all(isinstance(v, cst.Name) for v in values)
    return False


def _returns_arithmetic(callee: Optional[FunctionFacts]) -> bool:
    """Does every `return` of the callee return arithmetic (`return v * 0.5`, `return -x + b`)?"""
    if callee is None:
        return False
    returns = [statement for statement in callee.statement_order if isinstance(statement, cst.Return)]
    return bool(returns) and all(isinstance(statement.value, cst.BinaryOperation)
                                 or (isinstance(statement.value, cst.UnaryOperation)
                                     and isinstance(statement.value.operator, cst.Minus))
                                 for statement in returns)


def _clone_needed(function: FunctionFacts, copy: Binding, source: cst.Name):
    """None when the clone may be needed; else (last read of the copy, unknown layers in between)."""
    copy_storages = copy.storages
    reads = [read for storage in copy_storages for read in function.reads_of_storage(storage)]
    if not reads:
        return None
    if any(read.use == "identity" for read in reads):
        return None  # `y.data_ptr() != x.data_ptr()`, `y is x`: what it reads is that the copy is another tensor
    leaves = read_as_leaves(function)
    if copy in leaves or function.bindings_at(source) & leaves:
        return None  # a leaf of its own (`x_2 = x.clone(); x_2.requires_grad = True`): without the copy, one tensor
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
        # A write above the copy reaches it through a loop's next iteration: one to the source is
        # harmless then, but one through a view of the copy itself (`row = working[n]`, written at
        # the top of the next pass) would, without the copy, land in the source the loop reads again.
        if function.order_of(event.statement) > clone_order or event.storages & copy_storages:
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
