"""TCL012 leaf-lost-by-copy: `w = torch.randn(n, requires_grad=True).to(device)` binds a copy, not
the leaf, and `w` is then used as a leaf (`w.grad`, an optimizer over it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional

import libcst as cst

from torchcopylint.analysis.aliasing import LEAF_FACTORIES, PARAMETER_CLASSES, FunctionFacts
from torchcopylint.analysis.autograd import DIFFERENTIABLE_METHODS
from torchcopylint.analysis.facts import ModuleFacts
from torchcopylint.analysis.syntax import child_nodes
from torchcopylint.analysis.torchnames import TorchNames
from torchcopylint.diagnostic import Applicability
from torchcopylint.rules.base import Finding, NodeFix, Rule
from torchcopylint.rules.edits import as_receiver, method_call

OPTIMIZER_ERROR = "ValueError: can't optimize a non-leaf Tensor"
# Factories whose values do not depend on the device or dtype they are made on: moving
# `device=`/`dtype=` into them gives the same numbers. Random factories draw other numbers.
DETERMINISTIC_FACTORIES = frozenset(
    "ones zeros empty full tensor arange linspace logspace eye ones_like zeros_like empty_like full_like as_tensor".split()
)
ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.MatrixMultiply, cst.Power)
# Methods whose result is always a new non-leaf tensor (a view or a copy recorded by autograd).
NON_LEAF_METHODS = frozenset({"view", "view_as", "reshape", "reshape_as", "t", "unsqueeze", "transpose", "permute",
                              "expand", "expand_as", "clone"})
DTYPE_METHODS = {"double": "float64", "float": "float32", "half": "float16", "bfloat16": "bfloat16"}
DTYPE_ALIASES = {"double": "float64", "float": "float32", "half": "float16", "float64": "float64",
                 "float32": "float32", "float16": "float16", "bfloat16": "bfloat16"}


@dataclass(frozen=True)
class LostLeaf:
    maker: cst.BaseExpression  # the expression that made the leaf (a factory call, or a name bound to one)
    copy: cst.Call | cst.BinaryOperation  # the operation that returned a non-leaf
    how: str  # "`.to(device)` returns a copy"
    condition: str = ""  # "when `device` is not the CPU": the copy is made only then
    moves: tuple = ()  # (keyword, value) that the factory could take instead of the copy


class LeafLostByCopy(Rule):
    code = "TCL012"
    name = "leaf-lost-by-copy"
    summary = "A name meant as a trainable leaf is bound to a copy of it: `.grad` stays None, optimizers refuse it"
    fix_availability = "sometimes"
    triggers = (b"requires_grad", b"Parameter")

    def check(self, facts: ModuleFacts) -> Iterator[Finding]:
        if not facts.names.imports_torch:
            return
        module_bindings = None
        for function in facts.all_functions():
            uses = None
            for binding in function.bindings:
                if binding.kind != "assign" or binding.value is None:
                    continue
                if module_bindings is None:
                    module_bindings = _globals(facts)
                lost = _lost_leaf(binding.value, function, facts.names, module_bindings)
                if lost is None:
                    continue
                if uses is None:
                    uses = _leaf_uses(function, facts.names)
                use = next(((node, kind) for name, node, kind in uses
                            if kind != "retain_grad" and binding in function.bindings_at(name)), None)
                if use is None and function.node is facts.module:
                    use = _use_in_a_function(binding, facts)  # `w` made at the top, `SGD([w])` in a function
                if use is None:
                    continue  # never used as a leaf: a non-leaf that requires grad is what it is meant to be
                if any(kind == "retain_grad" and binding in function.bindings_at(name) for name, _, kind in uses):
                    continue  # `w.retain_grad()`: the non-leaf keeps its .grad, as meant
                node, kind = use
                consequence = (f"`{facts.code_for(node.func)}(...)` (line {facts.line_of(node)}) raises {OPTIMIZER_ERROR}"
                               if kind == "optimizer" else
                               f"`{binding.name}.grad` (line {facts.line_of(node)}) stays None after backward")
                yield self._finding(binding.value, binding.name, lost, consequence, facts,
                                    use_line=facts.line_of(node), use=kind)
        yield from self._unregistered_parameters(facts)

    def _unregistered_parameters(self, facts: ModuleFacts) -> Iterator[Finding]:
        """`self.w = nn.Parameter(...).to(device)` in an nn.Module: the attribute holds a plain
        tensor, so the module never registers the parameter."""
        module_bindings = None
        for class_facts in facts.classes.values():
            if not any(_assigns_parameter_copy(values, facts) for values in class_facts.attribute_values.values()) \
                    or not facts.is_module_class(class_facts):
                continue
            for method in class_facts.methods.values():
                function = facts.function_facts(method)
                for statement in function.statement_order:
                    if not (isinstance(statement, cst.Assign) and len(statement.targets) == 1):
                        continue
                    target = statement.targets[0].target
                    if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                            and target.value.value == "self"):
                        continue
                    if module_bindings is None:
                        module_bindings = _globals(facts)
                    lost = _lost_leaf(statement.value, function, facts.names, module_bindings)
                    if lost is None or not _is_parameter(lost.maker, facts.names):
                        continue
                    name = f"self.{target.attr.value}"
                    consequence = (f"the module does not register it: `.parameters()` leaves it out, so no "
                                   f"optimizer over them trains it, and `state_dict()` does not save it")
                    yield self._finding(statement.value, name, lost, consequence, facts, use="registration")

    def _finding(self, value, name: str, lost: LostLeaf, consequence: str, facts: ModuleFacts, **context) -> Finding:
        condition = f"{lost.condition}, " if lost.condition else ""
        maker = _short(facts.code_for(lost.maker))
        if context.get("use") == "registration":
            message = (f"`{name}` is not an `nn.Parameter`: {condition}{lost.how} of `{maker}`, a plain tensor; "
                       f"{consequence}")
        else:
            message = (f"`{name}` is not a leaf: {condition}{lost.how}, and the leaf `{maker}` that autograd "
                       f"fills is left unnamed; {consequence}")
        return self.finding(
            value,
            message,
            _fix(value, lost, facts),
            name=name,
            condition=lost.condition,
            **context,
        )


def _assigns_parameter_copy(values, facts: ModuleFacts) -> bool:
    """Cheap pre-check: a `self.x = ...` value with an `nn.Parameter(...)` call under an operation."""
    return any(not _is_parameter(value, facts.names) and _mentions_parameter(value, facts.names) for value in values)


def _mentions_parameter(expr, names: TorchNames) -> bool:
    while True:
        if _is_parameter(expr, names):
            return True
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            expr = expr.func.value
        elif isinstance(expr, cst.BinaryOperation):
            return _mentions_parameter(expr.left, names) or _mentions_parameter(expr.right, names)
        else:
            return False


def _is_parameter(expr, names: TorchNames) -> bool:
    return isinstance(expr, cst.Call) and names.qualified_name(expr.func) in PARAMETER_CLASSES


# ------------------------------------------------------------------ the copy of a leaf


def _lost_leaf(expr, function: FunctionFacts, names: TorchNames, module_bindings: dict) -> Optional[LostLeaf]:
    """The leaf and the operation that copied it, when `expr` is a non-leaf made from a fresh leaf."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, ARITHMETIC):
        for side in (expr.left, expr.right):
            maker = _leaf_maker(side, function, names)
            if maker is not None:
                operator = _EMPTY.code_for_node(expr.operator).strip()
                return LostLeaf(maker, expr, f"`{operator}` makes a new tensor computed from the leaf")
            deeper = _lost_leaf(side, function, names, module_bindings)
            if deeper is not None:
                return deeper
        return None
    if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)) or names.qualified_name(expr.func):
        return None
    inner = expr.func.value
    maker = _leaf_maker(inner, function, names)
    if maker is None:
        if expr.func.attr.value in DIFFERENTIABLE_METHODS | {"requires_grad_"}:
            return _lost_leaf(inner, function, names, module_bindings)  # `.to(device).double()`: still the copy's descendant
        return None
    return _copy_made_by(expr, maker, function, names, module_bindings)


def _leaf_maker(expr, function: FunctionFacts, names: TorchNames) -> Optional[cst.BaseExpression]:
    """A factory with `requires_grad=True`, `.requires_grad_()`, `nn.Parameter(...)`, or a name bound to one."""
    if isinstance(expr, cst.Name):
        bindings = function.bindings_at(expr)
        if bindings and all(b.leaf in ("factory", "requires_grad_", "parameter") for b in bindings):
            return expr
        return None
    if isinstance(expr, cst.Call):
        if isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "requires_grad_" \
                and not names.qualified_name(expr.func):
            return None if expr.args and _literal(expr.args[0].value) is False else expr
        qualified = names.qualified_name(expr.func) or ""
        if qualified in PARAMETER_CLASSES:
            return expr
        module, _, name = qualified.rpartition(".")
        if module == "torch" and name in LEAF_FACTORIES and _keyword(expr, "requires_grad") is not None \
                and _literal(_keyword(expr, "requires_grad")) is True:
            return expr
    return None


def _copy_made_by(call: cst.Call, maker, function: FunctionFacts, names: TorchNames,
                  module_bindings: dict) -> Optional[LostLeaf]:
    method = call.func.attr.value
    factory = _factory_of(maker, function, names)
    if method in NON_LEAF_METHODS:
        return LostLeaf(maker, call, f"`.{method}()` returns a new tensor (a view or copy) recorded by autograd")
    if method == "cuda":
        if factory is None or _keyword(factory, "device") is not None or call.args:
            return None  # made on a device already: `.cuda()` may return the leaf itself
        return LostLeaf(maker, call, "`.cuda()` returns a copy on the GPU", moves=(("device", _string("cuda")),))
    if method in DTYPE_METHODS:
        made = _dtype_of(factory, names)
        if made is None or made == DTYPE_METHODS[method]:
            return None  # same dtype: `.float()` of a float tensor returns the leaf itself
        dtype = cst.parse_expression(f"{names.local_name_of('torch') or 'torch'}.{DTYPE_METHODS[method]}")
        return LostLeaf(maker, call, f"`.{method}()` returns a {DTYPE_METHODS[method]} copy", moves=(("dtype", dtype),))
    if method == "to" and factory is not None:
        return _to_copy(call, maker, factory, function, names, module_bindings)
    return None


def _to_copy(call: cst.Call, maker, factory: cst.Call, function: FunctionFacts, names: TorchNames,
             module_bindings: dict) -> Optional[LostLeaf]:
    """`.to(device)`, `.to("cuda")`, `.to(torch.float64)`, `.to(device, dtype)`: a copy when it converts."""
    moves = []
    sure = False
    unknown_target = False
    conditions = []
    for position, arg in enumerate(call.args):
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword == "copy":
            if _literal(arg.value) is True:
                sure = True
            continue
        if keyword not in (None, "device", "dtype") or arg.star:
            return None  # non_blocking, memory_format, `*args`: leave it
        dtype = _dtype_name(arg.value, names)
        if keyword == "dtype" or dtype is not None:
            made = _dtype_of(factory, names)
            if dtype is None or made is None:
                return None
            if dtype != made:
                sure = True
                moves.append(("dtype", arg.value))
            continue
        device = _device_kind(arg.value, function, names, module_bindings)
        if device == "cpu":
            continue
        if _keyword(factory, "device") is not None:
            return None  # already made on a device: whether `.to` copies is not known here
        if device != "unknown":
            moves.append(("device", arg.value))  # surely a device (not a dtype): the factory takes it
        else:
            unknown_target = True
        if device == "gpu":
            sure = True
        else:
            conditions.append(f"when `{_short(_EMPTY.code_for_node(arg.value))}` is not the CPU")
    if not moves and not sure and not unknown_target:
        return None
    shown = _short(_EMPTY.code_for_node(call.func.attr) + "(" + ", ".join(
        _EMPTY.code_for_node(arg).strip().rstrip(",") for arg in call.args) + ")")
    condition = "" if sure else " and ".join(conditions)
    # A target that may be a dtype as well as a device (`.to(target)`) cannot be moved by keyword.
    return LostLeaf(maker, call, f"`.{shown}` returns a copy", condition, () if unknown_target else tuple(moves))


def _factory_of(maker, function: FunctionFacts, names: TorchNames) -> Optional[cst.Call]:
    """The torch factory call that made the leaf (through a name bound to it, or `.requires_grad_()`)."""
    if isinstance(maker, cst.Name):
        origins = {b.leaf_origin for b in function.bindings_at(maker)}
        maker = origins.pop() if len(origins) == 1 else None
    if isinstance(maker, cst.Call) and isinstance(maker.func, cst.Attribute) and maker.func.attr.value == "requires_grad_":
        maker = maker.func.value
    elif isinstance(maker, cst.Call) and names.qualified_name(maker.func) in PARAMETER_CLASSES:
        # `nn.Parameter(torch.zeros(n))`: its device and dtype are the factory's; data made any
        # other way (`torch.zeros(n).to(device)`) may already be where `.to()` would move it.
        maker = maker.args[0].value if maker.args and maker.args[0].keyword is None else None
    if isinstance(maker, cst.Call):
        module, _, name = (names.qualified_name(maker.func) or "").rpartition(".")
        if module == "torch" and name in LEAF_FACTORIES:
            return maker
    return None


def _dtype_of(factory: Optional[cst.Call], names: TorchNames) -> Optional[str]:
    """The dtype a factory makes: its `dtype=` or the default float32; None when not known."""
    if factory is None:
        return None
    given = _keyword(factory, "dtype")
    if given is None:
        name = (names.qualified_name(factory.func) or "").rpartition(".")[2]
        return None if name in ("tensor", "as_tensor") or name.endswith("_like") else "float32"
    return _dtype_name(given, names)


def _dtype_name(expr, names: TorchNames) -> Optional[str]:
    qualified = names.qualified_name(expr) or ""
    module, _, name = qualified.rpartition(".")
    return DTYPE_ALIASES.get(name) if module == "torch" else None


def _device_kind(expr, function: FunctionFacts, names: TorchNames, module_bindings: dict, depth: int = 0) -> str:
    """"cpu", "gpu" (surely not the CPU), "device" (a device, maybe the CPU) or "unknown" (maybe
    not a device at all), from literals, `torch.device(...)`, `x.device` and the names bound to them."""
    if depth > 4 or expr is None:
        return "unknown"
    if isinstance(expr, cst.SimpleString):
        text = str(expr.evaluated_value)
        return "cpu" if text == "cpu" else ("gpu" if text.split(":")[0] in ("cuda", "mps", "xpu") else "unknown")
    if isinstance(expr, cst.Call) and names.qualified_name(expr.func) == "torch.device":
        kind = _device_kind(expr.args[0].value, function, names, module_bindings, depth + 1) if expr.args else "unknown"
        return "device" if kind == "unknown" else kind
    if isinstance(expr, cst.Attribute) and expr.attr.value == "device":
        return "device"
    if isinstance(expr, cst.IfExp):
        kinds = {_device_kind(expr.body, function, names, module_bindings, depth + 1),
                 _device_kind(expr.orelse, function, names, module_bindings, depth + 1)}
        return _joined(kinds)
    if isinstance(expr, cst.Name):
        # A name the function does not bind is a module global (`device = torch.device(...)` at the top).
        values = [b.value for b in function.bindings_at(expr)] or module_bindings.get(expr.value, [])
        return _joined({_device_kind(value, function, names, module_bindings, depth + 1) for value in values}) \
            if values else "unknown"
    return "unknown"


def _joined(kinds: set) -> str:
    if len(kinds) == 1:
        return kinds.pop()
    return "unknown" if "unknown" in kinds or not kinds else "device"


def _use_in_a_function(binding, facts: ModuleFacts):
    """(node, kind): a use as a leaf of a top-level name in a function that reads it as a global."""
    for function in facts.all_functions():
        if function.node is facts.module:
            continue
        for name, node, kind in _leaf_uses(function, facts.names):
            if kind != "retain_grad" and name.value == binding.name and binding in facts.reaching(name, function)[1]:
                return node, kind
    return None


def _globals(facts: ModuleFacts) -> dict:
    """Module-level name -> the values it is assigned (None for imports, defs, loop variables)."""
    found: dict = {}
    for binding in facts.function_facts(facts.module).bindings:
        found.setdefault(binding.name, []).append(binding.value)
    return found


# ------------------------------------------------------------------- uses as a leaf


def _leaf_uses(function: FunctionFacts, names: TorchNames) -> list[tuple[cst.Name, cst.CSTNode, str]]:
    """(name, node, kind) for `name.grad` ("grad"), names in an optimizer's parameter list
    ("optimizer") and `name.retain_grad()` ("retain_grad").

    Walks the function's own body once (not nested functions), only for functions that bind a
    copied leaf, which few do.
    """
    found = []
    body = function.node.body if isinstance(function.node, cst.Module) else [function.node.body]
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, cst.Attribute) and node.attr.value == "grad" and isinstance(node.value, cst.Name):
            found.append((node.value, node, "grad"))
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
                and node.func.attr.value == "retain_grad" and isinstance(node.func.value, cst.Name):
            found.append((node.func.value, node, "retain_grad"))
        elif isinstance(node, cst.Call) and _is_optimizer(node, names):
            params = next((arg.value for arg in node.args if arg.keyword is None or arg.keyword.value == "params"), None)
            for name in _parameter_names(params, function):
                found.append((name, node, "optimizer"))
        stack.extend(reversed(child_nodes(node)))
    return found


def _is_optimizer(call: cst.Call, names: TorchNames) -> bool:
    qualified = names.qualified_name(call.func) or ""
    module, _, name = qualified.rpartition(".")
    return module in ("torch.optim",) and name[:1].isupper()


def _parameter_names(params, function: FunctionFacts, depth: int = 0) -> list[cst.Name]:
    """Names in `[w, b]`, `[{"params": [w]}]`, or a name bound to such a list."""
    if params is None or depth > 3:
        return []
    if isinstance(params, (cst.List, cst.Tuple)):
        return [name for element in params.elements for name in _parameter_names(element.value, function, depth + 1)
                if not isinstance(element, cst.StarredElement)]
    if isinstance(params, cst.Dict):
        return [name for element in params.elements if isinstance(element, cst.DictElement)
                and isinstance(element.key, cst.SimpleString) and element.key.evaluated_value == "params"
                for name in _parameter_names(element.value, function, depth + 1)]
    if isinstance(params, cst.Name):
        bindings = function.bindings_at(params)
        if bindings and all(isinstance(b.value, (cst.List, cst.Tuple)) for b in bindings):
            return [name for b in bindings for name in _parameter_names(b.value, function, depth + 1)]
        return [params] if depth > 0 else []
    return []


# ------------------------------------------------------------------------------ fix


def _fix(value: cst.BaseExpression, lost: LostLeaf, facts: ModuleFacts) -> Optional[NodeFix]:
    """Build the leaf where it will live (`device=`/`dtype=` in the factory), or call
    `.requires_grad_()` last; for `nn.Parameter(x).op()`, wrap `x.op()` instead. Only for a
    leaf made in this statement."""
    maker = lost.maker
    if _is_parameter(maker, facts.names):
        return _parameter_fix(value, lost)
    if not (isinstance(maker, cst.Call) and _keyword(maker, "requires_grad") is not None):
        return None
    name = (facts.names.qualified_name(maker.func) or "").rpartition(".")[2]
    if lost.moves and value is lost.copy:
        args = [arg for arg in maker.args if arg.keyword is None or arg.keyword.value not in
                {keyword for keyword, _ in lost.moves} | {"requires_grad"}]
        args += [cst.Arg(keyword=cst.Name(keyword), value=moved,
                         equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
                 for keyword, moved in lost.moves]
        args.append(_keyword_arg(maker, "requires_grad"))
        fixed = maker.with_changes(args=[arg.with_changes(comma=cst.MaybeSentinel.DEFAULT) for arg in args])
        moved = ", ".join(f"{keyword}=" for keyword, _ in lost.moves)
        if name in DETERMINISTIC_FACTORIES:
            return Rule.safe_fix(f"Make the leaf where it lives ({moved} in the factory)", value, fixed)
        return NodeFix(Applicability.UNSAFE, f"Make the leaf where it lives ({moved} in the factory; "
                       "the random numbers drawn differ)", ((value, fixed),))
    plain = maker.with_changes(args=[arg.with_changes(comma=cst.MaybeSentinel.DEFAULT) for arg in maker.args
                                     if not (arg.keyword is not None and arg.keyword.value == "requires_grad")])
    fixed = method_call(value.deep_replace(maker, plain), "requires_grad_")
    return Rule.unsafe_fix("Call `.requires_grad_()` last, on the tensor that is kept", value, fixed)


def _parameter_fix(value, lost: LostLeaf) -> Optional[NodeFix]:
    """`nn.Parameter(x).to(device)` -> `nn.Parameter(x.to(device))`, `nn.Parameter(x) * s` ->
    `nn.Parameter(x * s)`: the operation moves inside, onto the data. Unsafe: the module gains a
    registered parameter (`state_dict()` keys change, old checkpoints load differently)."""
    maker, copy = lost.maker, lost.copy
    if value is not copy or not maker.args or maker.args[0].keyword is not None or maker.args[0].star:
        return None
    data = maker.args[0].value
    if isinstance(copy, cst.Call) and copy.func.value is maker:
        moved = copy.with_changes(func=copy.func.with_changes(value=as_receiver(data)))
    elif isinstance(copy, cst.BinaryOperation) and (copy.left is maker or copy.right is maker):
        moved = copy.deep_replace(maker, as_receiver(data))
    else:
        return None
    fixed = maker.with_changes(args=[maker.args[0].with_changes(value=moved), *maker.args[1:]])
    return Rule.unsafe_fix("Apply the operation to the data inside `nn.Parameter(...)`", value, fixed)


# --------------------------------------------------------------------------- helpers


def _keyword_arg(call: cst.Call, keyword: str) -> Optional[cst.Arg]:
    return next((arg for arg in call.args if arg.keyword is not None and arg.keyword.value == keyword), None)


def _keyword(call: cst.Call, keyword: str) -> Optional[cst.BaseExpression]:
    arg = _keyword_arg(call, keyword)
    return arg.value if arg is not None else None


def _literal(expr) -> Optional[bool]:
    if isinstance(expr, cst.Name) and expr.value in ("True", "False"):
        return expr.value == "True"
    return None


def _string(text: str) -> cst.SimpleString:
    return cst.SimpleString(f'"{text}"')


_EMPTY = cst.Module(body=[])


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 50 else text[:47] + "..."

