"""TCL004 inplace-on-leaf: an in-place write to a leaf tensor that requires grad, in grad mode."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from torchcopylint.analysis.aliasing import (
    PARAMETER_CLASSES,
    FunctionFacts,
    InplaceEvent,
    goes_through_detach,
    parameter_requires_grad,
    root_name,
)
from torchcopylint.analysis.catalog import is_inplace_method_name, writes_without_grad
from torchcopylint.analysis.facts import ModuleFacts
from torchcopylint.analysis.parameters import parameter_writes
from torchcopylint.analysis.training import parameter_owners, switched_off_at
from torchcopylint.rules.base import Finding, NodeFix, Rule

LEAF_ERROR = "a leaf Variable that requires grad is being used in an in-place operation."
OUT_ERROR = "functions with out=... arguments don't support automatic differentiation, but one of the arguments requires grad."
VIEW_ERROR = "a view of a leaf Variable that requires grad is being used in an in-place operation."
LEAF_KINDS = {
    "factory": "made with `requires_grad=True`",
    "parameter": "an `nn.Parameter`",
    "requires_grad_": "switched to `requires_grad=True`",
}


class InplaceOnLeaf(Rule):
    code = "TCL004"
    name = "inplace-on-leaf"
    summary = "In-place write to a leaf tensor that requires grad: RuntimeError at run time"
    fix_availability = "unsafe"
    triggers = (b"requires_grad", b"Parameter", b"parameters(", b".weight", b".bias")

    def check(self, facts: ModuleFacts) -> Iterator[Finding]:
        for function in facts.all_functions():
            for event in function.inplace_events.values():
                # "maybe" counts: a write the analysis was unsure was into a tensor is settled below,
                # where the target must be a known leaf.
                if event.certainty == "opaque" or event.target is None or _is_initializer(event, facts):
                    continue
                if event.kind in ("out", "setitem") and event.certainty != "sure" or event.through_unknown_index:
                    # `out=` of a callee that is not torch's: what it does is unknown; `leaf[idx][0] = v`,
                    # `leaf[:, idx].add_(v)` write a copy of the leaf's rows when `idx` is a tensor of indices
                    continue
                if event.without_grad or event.through_detach:
                    continue  # a helper that writes under its own no_grad, or through `t.data` / `t.detach()`
                if _is_inplace_call(event.target):
                    continue  # `p.mul_(a).add_(b)`: the same tensor again, reported at `mul_`
                if goes_through_detach(event.target) or not facts.grad_enabled_at(function, event.statement):
                    continue
                leaf = _leaf_written(event, function, facts)
                if leaf is None:
                    continue
                name, kind, origin = leaf
                if origin is not None and _owners_switched_off(origin, event, function, facts):
                    continue  # `model.requires_grad_(False)` (or a helper doing it), then its parameters written
                is_view = kind == "view" or event.kind == "setitem"
                where = f" (line {facts.line_of(origin)})" if origin is not None else ""
                described = LEAF_KINDS.get(kind, "a leaf that requires grad")
                if kind == "view":
                    described = "a view of a leaf that requires grad"
                yield self.finding(
                    event.node,
                    f"{event.description} writes `{name}` in place, {described}{where}, in grad mode: "
                    f"RuntimeError: {_error_text(event, is_view)}",
                    _no_grad_fix(event.statement, function, facts),
                    leaf_line=facts.line_of(origin) if origin is not None else None,
                    target=facts.code_for(event.target),
                )
            yield from self._layer_parameter_writes(function, facts)

    def _layer_parameter_writes(self, function: FunctionFacts, facts: ModuleFacts) -> Iterator[Finding]:
        """`net.fc.weight[i] -= d`: a layer's parameter, reached through the module."""
        writes = parameter_writes(function, facts)
        if not writes:
            return
        switches = facts.training.grad_switches(function)
        for write in writes:
            if not write.layer or not facts.grad_enabled_at(function, write.statement):
                continue
            parameter = facts.code_for(write.parameter)
            if switched_off_at(parameter, switches, function.order_of(write.statement)):
                continue
            where = f" (line {facts.line_of(write.layer_origin)})" if write.layer_origin is not None else ""
            yield self.finding(
                write.node,
                f"{write.description} writes `{parameter}` in place, the `{write.parameter.attr.value}` "
                f"Parameter of `{write.layer}`{where}, a leaf that requires grad, in grad mode: "
                f"RuntimeError: {VIEW_ERROR if write.through_view else LEAF_ERROR}",
                _no_grad_fix(write.statement, function, facts),
                leaf_line=facts.line_of(write.layer_origin) if write.layer_origin is not None else None,
                target=facts.code_for(write.target),
            )


def _owners_switched_off(origin, event: InplaceEvent, function: FunctionFacts, facts: ModuleFacts) -> bool:
    """Is the leaf a parameter of a module (`for p in model.parameters()`) whose `requires_grad`
    was switched off before the write?"""
    owners = parameter_owners(origin)
    if not owners:
        return False
    switches = facts.training.grad_switches(function)
    order = function.order_of(event.statement)
    return all(switched_off_at(owner, switches, order) for owner in owners)


def _error_text(event: InplaceEvent, is_view: bool) -> str:
    if event.kind == "out":
        return OUT_ERROR
    return VIEW_ERROR if is_view else LEAF_ERROR


def _is_inplace_call(target) -> bool:
    return isinstance(target, cst.Call) and isinstance(target.func, cst.Attribute) \
        and is_inplace_method_name(target.func.attr.value)


def _is_initializer(event: InplaceEvent, facts: ModuleFacts) -> bool:
    node = event.node
    return isinstance(node, cst.Call) and writes_without_grad(facts.names.qualified_name(node.func))


def _leaf_written(event: InplaceEvent, function: FunctionFacts, facts: ModuleFacts):
    """(name, leaf kind, origin node) when the write's target is surely a leaf requiring grad."""
    root = root_name(event.target)
    if root is None:
        return None
    if root.value == "self" and function.class_name:
        attribute = _self_attribute(event.target)
        if attribute is None:
            return None
        values = facts.classes[function.class_name].attribute_values.get(attribute, [])
        if values and all(_builds_parameter(value, facts) for value in values):
            kind = "parameter" if isinstance(event.target, cst.Attribute) else "view"
            return f"self.{attribute}", kind, values[0]
        return None
    bindings = function.bindings_at(root)
    if not bindings or not all(binding.leaf for binding in bindings):
        return None
    first = next(iter(bindings))
    kind = first.leaf if event.target is root else "view"
    return root.value, kind, first.leaf_origin


def _self_attribute(target) -> Optional[str]:
    """`weight` for `self.weight` (or a view/index of it)."""
    while not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
               and target.value.value == "self"):
        if isinstance(target, cst.Subscript):
            target = target.value
        elif isinstance(target, cst.Call) and isinstance(target.func, cst.Attribute):
            target = target.func.value
        else:
            return None
    return target.attr.value


def _builds_parameter(value: cst.BaseExpression, facts: ModuleFacts) -> bool:
    if not isinstance(value, cst.Call):
        return False
    if facts.names.qualified_name(value.func) not in PARAMETER_CLASSES:
        return False
    return parameter_requires_grad(value)


def _no_grad_fix(statement: cst.CSTNode, function: FunctionFacts, facts: ModuleFacts) -> Optional[NodeFix]:
    """Wrap the statement in `with torch.no_grad():`, when it stands alone on its line."""
    line = function.line_of_statement.get(statement)
    torch_name = facts.names.local_name_of("torch")
    if line is None or torch_name is None or len(line.body) != 1 or not isinstance(line, cst.SimpleStatementLine):
        return None
    code = facts.code_for(statement)
    if "\n" in code:
        return None
    # The statement's own indentation, as written (tabs stay tabs), and one level more in the
    # file's own unit (libcst reads it off the file): a tab-indented file gets a tab.
    indent = facts.indentation_of(statement)
    replacement = f"with {torch_name}.no_grad():\n{indent}{facts.module.default_indent}{code}"
    return Rule.unsafe_fix("Wrap in `with torch.no_grad():`", statement, replacement)
