"""In-place writes into a layer's parameters reached through modules: `net.fc.weight[i] -= d`,
`model.encoder.layer[k].output.dense.weight[:, p] += delta`, `self.layers[i].bias[:] = 0`,
`layer.weight.add_(noise)`.

The data flow in aliasing.py tracks names; a parameter reached through attributes of a module is
no name's storage, so these writes are found here, from the statements and calls the walk indexed.
Each write says what the layer is when the file shows it: a torch layer (`nn.Linear`, whose
`weight` and `bias` are Parameters unless built with `bias=False`), or a module class of this
file whose `weight` is an `nn.Parameter`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from torchcopylint.analysis.aliasing import (
    AUGMENTED_OPERATORS,
    writes_in_place,
    PARAMETER_CLASSES,
    VIEW_METHODS,
    FunctionFacts,
    goes_through_detach,
    parameter_requires_grad,
)
from torchcopylint.analysis.catalog import is_inplace_method_name
from torchcopylint.analysis.torchnames import dotted_name

PARAMETER_NAMES = ("weight", "bias")
# torch.nn layers: for each parameter, the flag that can remove it as (keyword, position, default),
# or None when it is always there.
def _flagged(keyword: str, position: int, default: bool, *parameters: str) -> dict:
    return {parameter: (keyword, position, default) for parameter in parameters}


TORCH_LAYER_PARAMETERS = {
    "Linear": {"weight": None, **_flagged("bias", 2, True, "bias")},
    "LazyLinear": {"weight": None, **_flagged("bias", 1, True, "bias")},
    "Bilinear": {"weight": None, **_flagged("bias", 3, True, "bias")},
    **{name: {"weight": None, **_flagged("bias", 7, True, "bias")} for name in (
        "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")},
    **{name: {"weight": None} for name in ("Embedding", "EmbeddingBag", "PReLU")},
    **{name: _flagged("affine", 3, True, "weight", "bias") for name in (
        "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm")},
    "GroupNorm": _flagged("affine", 3, True, "weight", "bias"),
    **{name: _flagged("affine", 3, False, "weight", "bias") for name in (
        "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d")},
    "LayerNorm": _flagged("elementwise_affine", 2, True, "weight", "bias"),
    "RMSNorm": _flagged("elementwise_affine", 2, True, "weight"),
}
CONTAINER_CLASSES = ("Sequential", "ModuleList")


@dataclass(frozen=True)
class ParameterWrite:
    node: cst.CSTNode  # where a diagnostic sits: the call, or the statement for `+=` and `[...] =`
    statement: cst.CSTNode
    target: cst.BaseExpression  # what is written: `net.fc.weight[i]`
    parameter: cst.Attribute  # `net.fc.weight`
    kind: str  # "method", "augassign", "setitem"
    description: str  # "`net.fc.weight.add_()`"
    # The layer's class when the file shows it ("nn.Linear", "Head"), "" when it does not.
    layer: str
    layer_origin: Optional[cst.CSTNode]

    @property
    def through_view(self) -> bool:
        return self.target is not self.parameter or self.kind == "setitem"


def parameter_writes(function: FunctionFacts, facts) -> list[ParameterWrite]:
    """In-place writes whose target is the `weight`/`bias` of a module reached through attributes
    (not `self.weight` itself, which the data flow sees), and not through `.data` or `.detach()`."""
    found = []
    for statement in function.statement_order:
        if type(statement) is cst.AugAssign and writes_in_place(statement):
            write = _write(statement, statement, statement.target, "augassign", function, facts)
        elif type(statement) is cst.Assign and len(statement.targets) == 1 \
                and type(statement.targets[0].target) is cst.Subscript:
            write = _write(statement, statement, statement.targets[0].target, "setitem", function, facts)
        else:
            continue
        if write is not None:
            found.append(write)
    for call, statement in function.call_statement.items():
        func = call.func
        if type(func) is cst.Attribute and is_inplace_method_name(func.attr.value) \
                and facts.names.qualified_name(func) is None:
            write = _write(call, statement, func.value, "method", function, facts)
            if write is not None:
                found.append(write)
    return found


def _write(node, statement, target, kind, function, facts) -> Optional[ParameterWrite]:
    # Cheap tests first: this runs on every `+=`, item assignment and `x.add_()` of the module.
    parameter = _parameter_in(target)
    if parameter is None or goes_through_detach(target):
        return None
    owner = parameter.value
    if type(owner) is cst.Name and owner.value == "self":
        return None  # `self.weight`: the data flow's business (a self attribute is a storage there)
    if kind == "setitem" and target is parameter:
        return None
    layer, origin = _layer(owner, parameter.attr.value, function, facts)
    if kind == "augassign":
        description = f"`{_short(facts, target)} {_operator(node)} ...`"
    elif kind == "setitem":
        description = f"`{_short(facts, target)} = ...`"
    else:
        description = f"`{_short(facts, target)}.{node.func.attr.value}()`"
    return ParameterWrite(node, statement, target, parameter, kind, description, layer, origin)


def _parameter_in(target) -> Optional[cst.Attribute]:
    """`net.fc.weight` in `net.fc.weight`, `net.fc.weight[i]`, `net.fc.weight.view(-1)[0]`."""
    while True:
        if type(target) is cst.Attribute and target.attr.value in PARAMETER_NAMES:
            return target
        if type(target) is cst.Subscript:
            target = target.value
        elif type(target) is cst.Call and type(target.func) is cst.Attribute \
                and target.func.attr.value in VIEW_METHODS:
            target = target.func.value
        else:
            return None


def _layer(owner, parameter: str, function: FunctionFacts, facts, depth: int = 0):
    """(class shown, its construction) when every value `owner` can have is a layer with that
    parameter as a Parameter that requires grad; ("", None) when unknown or not surely so."""
    values = _values_of(owner, function, facts, depth)
    if not values:
        return "", None
    described = [_layer_of_construction(value, parameter, facts) for value in values]
    if all(described):
        return described[0], values[0]
    return "", None


def _values_of(owner, function: FunctionFacts, facts, depth: int) -> list:
    """The constructions a module expression may be: `self.fc` -> [nn.Linear(...)], `self.layers[i]`
    -> the ModuleList's elements, `net.fc` with `net = Net()` -> what Net assigns to `self.fc`."""
    if depth > 4:
        return []
    if type(owner) is cst.Attribute:
        base = owner.value
        if type(base) is cst.Name and base.value == "self":
            owner_class = facts.classes.get(function.class_name or "")
            return list(facts.attribute_values(owner_class, owner.attr.value)) if owner_class else []
        values = []
        for value in _values_of(base, function, facts, depth + 1):
            local = facts.classes.get(dotted_name(value.func) or "") if type(value) is cst.Call else None
            if local is None:
                return []
            found = facts.attribute_values(local, owner.attr.value)
            if not found:
                return []
            values.extend(found)
        return values
    if type(owner) is cst.Subscript:
        values = []
        for value in _values_of(owner.value, function, facts, depth + 1):
            elements = _container_elements(value, facts)
            if not elements:
                return []
            values.extend(elements)
        return values
    if type(owner) is cst.Name:
        bindings = function.bindings_at(owner)
        values = []
        for binding in bindings:
            if binding.value is None or binding.kind != "assign":
                return []
            if type(binding.value) in (cst.Attribute, cst.Subscript):
                found = _values_of(binding.value, function, facts, depth + 1)
                if not found:
                    return []
                values.extend(found)
            else:
                values.append(binding.value)
        return values
    return []


def _container_elements(value, facts) -> list:
    """The layers of `nn.Sequential(a, b)`, `nn.ModuleList([a, b])`, `nn.ModuleList([a for _ in ...])`."""
    if type(value) is not cst.Call:
        return []
    qualified = facts.names.qualified_name(value.func) or ""
    if qualified.rpartition(".")[2] not in CONTAINER_CLASSES or not qualified.startswith("torch.nn."):
        return []
    if any(arg.star or arg.keyword for arg in value.args):
        return []
    if qualified.endswith("Sequential"):
        return [arg.value for arg in value.args]
    if len(value.args) != 1:
        return []
    listed = value.args[0].value
    if type(listed) in (cst.List, cst.Tuple) and not any(type(e) is cst.StarredElement for e in listed.elements):
        return [element.value for element in listed.elements]
    if type(listed) in (cst.ListComp, cst.GeneratorExp):
        return [listed.elt]
    return []


def _layer_of_construction(value, parameter: str, facts) -> str:
    """"nn.Linear" / "Head" when the construction surely has `parameter` as a Parameter requiring grad."""
    if type(value) is not cst.Call:
        return ""
    qualified = facts.names.qualified_name(value.func) or ""
    module, _, class_name = qualified.rpartition(".")
    if module == "torch.nn":
        flags = TORCH_LAYER_PARAMETERS.get(class_name, {})
        if parameter not in flags:
            return ""
        flag = flags[parameter]
        if flag is not None and not _flag_is(value, *flag):
            return ""
        return f"nn.{class_name}"
    local = facts.classes.get(dotted_name(value.func) or "")
    if local is None or not facts.is_module_class(local):
        return ""
    assigned = facts.attribute_values(local, parameter)
    if assigned:
        surely = all(type(v) is cst.Call and facts.names.qualified_name(v.func) in PARAMETER_CLASSES
                     and parameter_requires_grad(v) for v in assigned)
        return local.name if surely else ""
    for base in local.node.bases:  # `class Head(nn.Linear)`: the torch layer's parameters
        base_name = facts.names.qualified_name(base.value) or ""
        if base_name.startswith("torch.nn.") and parameter in TORCH_LAYER_PARAMETERS.get(base_name[9:], {}) \
                and TORCH_LAYER_PARAMETERS[base_name[9:]][parameter] is None:
            return local.name
    return ""


def _flag_is(call: cst.Call, keyword: str, position: int, default: bool) -> bool:
    """Is the flag (absent: `default`) surely True? A computed flag is not known."""
    for index, arg in enumerate(call.args):
        if arg.star:
            return False
        if (arg.keyword is not None and arg.keyword.value == keyword) or (arg.keyword is None and index == position):
            return type(arg.value) is cst.Name and arg.value.value == "True"
    return default


def _operator(statement: cst.AugAssign) -> str:
    return AUGMENTED_OPERATORS.get(type(statement.operator).__name__, "op=")


def _short(facts, node: cst.CSTNode, limit: int = 60) -> str:
    text = " ".join(facts.code_for(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
