"""Leaves meant to be trained, and the copies that lose them (TCL012's facts).

A leaf is made by a torch factory called with `requires_grad=True`, `Variable(data,
requires_grad=True)` (the pre-0.4 API), `.requires_grad_()` or `nn.Parameter(...)`. An operation
that returns another tensor (`.to(device)`, `.cuda()`, `.double()`, `.type(dtype)`, arithmetic, a
view) gives a non-leaf: a name bound to it is not the leaf autograd fills. Whether a conversion
copies depends on the device and dtype the leaf was made with and the one asked for: those come
from analysis/placement.py.

Where the leaf is named: a local or top-level name, a `self.` attribute (its values anywhere in the
class: `self.w = torch.zeros(n, requires_grad=True)` in `__init__`, `self.w = self.w.to(self.device)`
in `to_device()`), or a list built by a comprehension. Where it is used as a leaf: `w.grad` read,
`w` in the parameters of a `torch.optim` optimizer, in the same function, any method of the class,
or (for a top-level name) any function of the module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional

import libcst as cst

from torchcopylint.analysis.aliasing import (LEAF_FACTORIES, PARAMETER_CLASSES, VARIABLE_CLASSES, FunctionFacts,
                                            makes_a_leaf_requiring_grad)
from torchcopylint.analysis.autograd import DIFFERENTIABLE_METHODS
from torchcopylint.analysis.syntax import child_nodes
from torchcopylint.analysis.torchnames import TorchNames

ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.MatrixMultiply, cst.Power)
# Methods whose result is always a new non-leaf tensor (a view or a copy recorded by autograd).
NON_LEAF_METHODS = frozenset({"view", "view_as", "reshape", "reshape_as", "t", "unsqueeze", "transpose", "permute",
                              "expand", "expand_as", "clone"})
DTYPE_METHODS = {"double": "float64", "float": "float32", "half": "float16", "bfloat16": "bfloat16"}
LEGACY_NAMES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
                "bfloat16": "BFloat16Tensor"}
_EMPTY = cst.Module(body=[])


@dataclass(frozen=True)
class LostLeaf:
    maker: cst.BaseExpression  # the expression that made the leaf (a factory call, or a name bound to one)
    copy: cst.BaseExpression  # the operation that returned a non-leaf
    how: str  # "`.to(device)` returns a copy"
    condition: str = ""  # "when `device` is not the CPU": the copy is made only then
    moves: tuple = ()  # (keyword, value) that the factory could take instead of the copy


@dataclass(frozen=True)
class LeafUse:
    """A use of a name as a leaf: `w.grad` ("grad"), `w` in an optimizer's parameters ("optimizer"),
    `w.retain_grad()` ("retain_grad")."""

    named: cst.BaseExpression  # the `w` (a Name) or `self.w` (an Attribute) used
    node: cst.CSTNode  # the `.grad` attribute, or the optimizer call
    kind: str
    function: FunctionFacts


class LeafCopies:
    """TCL012's questions for one module; `facts` is its ModuleFacts."""

    def __init__(self, facts) -> None:
        self.facts = facts
        self.names: TorchNames = facts.names
        self._uses: dict = {}

    # --------------------------------------------------------- the copy of a leaf

    def lost_leaf(self, expr, function: FunctionFacts, attribute: Optional[str] = None) -> Optional[LostLeaf]:
        """The leaf and the operation that copied it, when `expr` is a non-leaf made from a fresh leaf.
        `attribute`: the `self.` attribute `expr` is assigned to (so `self.w.to(d)` there copies
        what the class made `self.w`)."""
        if type(expr) is cst.ListComp:
            return self.lost_leaf(expr.elt, function)  # `[torch.ones(2, requires_grad=True).cuda() for _ in l]`
        if type(expr) is cst.BinaryOperation and isinstance(expr.operator, ARITHMETIC):
            for side in (expr.left, expr.right):
                maker = self.leaf_maker(side, function, attribute)
                if maker is not None:
                    operator = _EMPTY.code_for_node(expr.operator).strip()
                    return LostLeaf(maker, expr, f"`{operator}` makes a new tensor computed from the leaf")
                deeper = self.lost_leaf(side, function, attribute)
                if deeper is not None:
                    return deeper
            return None
        if not (type(expr) is cst.Call and type(expr.func) is cst.Attribute) or self.names.qualified_name(expr.func):
            return None
        inner = expr.func.value
        maker = self.leaf_maker(inner, function, attribute)
        if maker is None:
            if expr.func.attr.value in DIFFERENTIABLE_METHODS | {"requires_grad_", "type"}:
                return self.lost_leaf(inner, function, attribute)  # `.to(device).double()`: still the copy's descendant
            return None
        return self._copy_made_by(expr, maker, function, attribute)

    def leaf_maker(self, expr, function: FunctionFacts, attribute: Optional[str] = None):
        """A factory with `requires_grad=True`, `Variable(..., requires_grad=True)`, `.requires_grad_()`,
        `nn.Parameter(...)`, a name bound to one, or `self.<attribute>` that the class makes one."""
        if type(expr) is cst.Name:
            bindings = function.bindings_at(expr)
            if bindings and all(b.leaf in ("factory", "requires_grad_", "parameter") for b in bindings):
                return expr
            return None
        if type(expr) is cst.Attribute:
            return expr if attribute is not None and self.attribute_leaf(expr, function, attribute) else None
        if type(expr) is cst.Call:
            if type(expr.func) is cst.Attribute and expr.func.attr.value == "requires_grad_" \
                    and not self.names.qualified_name(expr.func):
                return None if expr.args and _literal(expr.args[0].value) is False else expr
            qualified = self.names.qualified_name(expr.func) or ""
            if qualified in PARAMETER_CLASSES:
                return expr
            if makes_a_leaf_requiring_grad(expr, self.names):
                return expr
        return None

    def attribute_leaf(self, expr: cst.Attribute, function: FunctionFacts, attribute: str) -> Optional[cst.Call]:
        """`self.w` read where `self.w` is reassigned: the leaf the class makes it everywhere else."""
        if not (type(expr.value) is cst.Name and expr.value.value == "self" and expr.attr.value == attribute):
            return None
        owner = self.facts.classes.get(function.class_name or "")
        if owner is None:
            return None
        made = [value for value in owner.attribute_values.get(attribute, []) if not _rooted_at(value, attribute)]
        makers = [self.leaf_maker(value, self.facts.function_facts(owner.assigned_in[value])) for value in made]
        if made and all(type(maker) is cst.Call and maker is value for maker, value in zip(makers, made)):
            return made[0]
        return None

    def _copy_made_by(self, call: cst.Call, maker, function: FunctionFacts,
                      attribute: Optional[str]) -> Optional[LostLeaf]:
        method = call.func.attr.value
        factory = self.factory_of(maker, function, attribute)
        if method in NON_LEAF_METHODS:
            return LostLeaf(maker, call, f"`.{method}()` returns a new tensor (a view or copy) recorded by autograd")
        if method == "cuda":
            if factory is None or _keyword(factory, "device") is not None or self._made_where_its_input_is(factory):
                # Made on a device already (`torch.randn_like(image)` on the image's, which the code has
                # usually moved to the GPU): `.cuda()` may return the leaf itself.
                return None
            device = _cuda_device(call)
            if device is None:
                return None
            shown = f"`.cuda({', '.join(cst.Module([]).code_for_node(arg.value) for arg in call.args if arg.keyword is None)})`"
            # Made on the CPU, `.cuda()`, `.cuda(0)` and `.cuda(device)` all return a copy.
            return LostLeaf(maker, call, f"{shown} returns a copy on the GPU", moves=(("device", device),))
        placement = self.facts.placement
        if method in DTYPE_METHODS:
            made = placement.dtype_of(factory, function) if factory is not None else None
            if made is None or made == DTYPE_METHODS[method]:
                return None  # same dtype: `.float()` of a float tensor returns the leaf itself
            return LostLeaf(maker, call, f"`.{method}()` returns a {DTYPE_METHODS[method]} copy",
                            moves=(("dtype", self._dtype_expression(DTYPE_METHODS[method])),))
        if method == "to" and factory is not None:
            return self._to_copy(call, maker, factory, function)
        if method == "type" and factory is not None and len(call.args) == 1 and call.args[0].keyword is None:
            return self._type_copy(call, maker, factory, function)
        return None

    def _to_copy(self, call: cst.Call, maker, factory: cst.Call, function: FunctionFacts) -> Optional[LostLeaf]:
        """`.to(device)`, `.to("cuda")`, `.to(torch.float64)`, `.to(device, dtype)`: a copy when it converts."""
        placement = self.facts.placement
        moves = []
        sure = False
        unknown_target = False
        conditions = []
        for arg in call.args:
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword == "copy":
                if _literal(arg.value) is True:
                    sure = True
                continue
            if keyword not in (None, "device", "dtype") or arg.star:
                return None  # non_blocking, memory_format, `*args`: leave it
            dtype = placement.dtype_value(arg.value, function)
            if keyword == "dtype" or dtype is not None:
                made = placement.dtype_of(factory, function)
                if dtype is None or made is None or dtype not in LEGACY_NAMES:
                    return None  # an integer dtype, or one not in sight
                if dtype != made:
                    sure = True
                    moves.append(("dtype", arg.value))
                continue
            device = placement.device_kind(arg.value, function)
            if device == "cpu":
                continue
            if _keyword(factory, "device") is not None or self._made_where_its_input_is(factory):
                # Already made on a device (`torch.randn_like(image)` on the image's, which the code has
                # usually moved there): whether `.to` copies is not known here.
                return None
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

    def _made_where_its_input_is(self, factory: cst.Call) -> bool:
        """`torch.zeros_like(x)`, and `torch.tensor(w)` of a tensor `w` (a copy on `w`'s device): made
        where its input lives, which the code has usually moved already; `.to(device)` may return it."""
        if _takes_the_device_of_its_input(factory):
            return True
        qualified = self.names.qualified_name(factory.func) or ""
        data = factory.args[0].value if factory.args and factory.args[0].keyword is None else None
        return qualified in ("torch.tensor", "torch.as_tensor") and data is not None \
            and self.facts.tensorness(data).is_tensor

    def _type_copy(self, call: cst.Call, maker, factory: cst.Call, function: FunctionFacts) -> Optional[LostLeaf]:
        """`.type(torch.cuda.FloatTensor)`, `.type(dtype)`: a copy when the type differs from the leaf's."""
        placement = self.facts.placement
        made = placement.dtype_of(factory, function)
        if made not in LEGACY_NAMES or _keyword(factory, "device") is not None:
            return None  # where the leaf lives, or what it holds, is not in sight
        target = call.args[0].value
        shown = _short(_EMPTY.code_for_node(target))
        leaf_type = f"torch.{LEGACY_NAMES[made]}"
        targets = placement.type_targets(target, function)
        if targets is not None and all(dtype == made and device in ("cpu", "same") for dtype, device in targets):
            return None  # the leaf's own type: `.type()` returns the leaf itself
        if targets is None or not all(dtype != made or device == "gpu" for dtype, device in targets):
            return LostLeaf(maker, call, f"`.type({shown})` returns a copy",
                            f"when `{shown}` is not `{leaf_type}`, the leaf's type")
        moves = []
        if len(targets) == 1:
            ((dtype, device),) = targets
            if device == "gpu":
                moves.append(("device", _string("cuda")))
            if dtype != made and dtype in LEGACY_NAMES:
                moves.append(("dtype", self._dtype_expression(dtype)))
        return LostLeaf(maker, call, f"`.type({shown})` returns a copy (the leaf is a `{leaf_type}`)",
                        moves=tuple(moves))

    def factory_of(self, maker, function: FunctionFacts, attribute: Optional[str] = None) -> Optional[cst.Call]:
        """The torch factory call that made the leaf (through a name bound to it, `.requires_grad_()`,
        the data of `nn.Parameter(...)` or `Variable(...)`, or the class's other value of `self.<attribute>`)."""
        if type(maker) is cst.Name:
            origins = {b.leaf_origin for b in function.bindings_at(maker)}
            maker = origins.pop() if len(origins) == 1 else None
        elif type(maker) is cst.Attribute and attribute is not None:
            maker = self.attribute_leaf(maker, function, attribute)
        if type(maker) is cst.Call and type(maker.func) is cst.Attribute and maker.func.attr.value == "requires_grad_":
            maker = maker.func.value
        elif type(maker) is cst.Call and self.names.qualified_name(maker.func) in PARAMETER_CLASSES | VARIABLE_CLASSES:
            # `nn.Parameter(torch.zeros(n))`: its device and dtype are the factory's; data made any
            # other way (`torch.zeros(n).to(device)`) may already be where `.to()` would move it.
            maker = maker.args[0].value if maker.args and maker.args[0].keyword is None else None
        if type(maker) is cst.Call:
            module, _, name = (self.names.qualified_name(maker.func) or "").rpartition(".")
            if module == "torch" and name in LEAF_FACTORIES:
                return maker
        return None

    def _dtype_expression(self, dtype: str) -> cst.BaseExpression:
        return cst.parse_expression(f"{self.names.local_name_of('torch') or 'torch'}.{dtype}")

    # ------------------------------------------------------------- uses as a leaf

    def uses(self, function: FunctionFacts) -> list[LeafUse]:
        """`w.grad`, `self.w.grad`, `w` / `self.w` / a list of them in an optimizer's parameters,
        `w.retain_grad()`, in the function's own body (not nested functions). Computed once per
        function, only for functions asked about, which bind or read a copied leaf: few do."""
        found = self._uses.get(function.node)
        if found is not None:
            return found
        found = []
        body = function.node.body if type(function.node) is cst.Module else [function.node.body]
        stack = list(reversed(body))
        while stack:
            node = stack.pop()
            if type(node) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
                continue
            if type(node) is cst.Attribute and node.attr.value == "grad" and _named(node.value):
                found.append(LeafUse(node.value, node, "grad", function))
            elif type(node) is cst.Call and type(node.func) is cst.Attribute \
                    and node.func.attr.value == "retain_grad" and _named(node.func.value):
                found.append(LeafUse(node.func.value, node, "retain_grad", function))
            elif type(node) is cst.Call and self.is_optimizer(node):
                params = next((arg.value for arg in node.args if arg.keyword is None or arg.keyword.value == "params"),
                              None)
                for named in _parameter_names(params, function):
                    found.append(LeafUse(named, node, "optimizer", function))
            stack.extend(reversed(child_nodes(node)))
        self._uses[function.node] = found
        return found

    def is_optimizer(self, call: cst.Call) -> bool:
        module, _, name = (self.names.qualified_name(call.func) or "").rpartition(".")
        return module in ("torch.optim",) and name[:1].isupper()

    def functions_reading(self, name: str) -> Iterator[FunctionFacts]:
        """The functions of the module that read the top-level `name` (they do not bind it themselves)."""
        module = self.facts.function_facts(self.facts.module)
        for function in self.facts.all_functions():
            if function is module or function.class_name is not None:
                continue
            if any(read.node.value == name and not read.bindings for read in function.reads.values()):
                yield function

    def class_functions(self, owner) -> list[FunctionFacts]:
        return [self.facts.function_facts(method) for method in owner.methods.values()]


def _named(expr) -> bool:
    """`w` or `self.w`."""
    return type(expr) is cst.Name or (type(expr) is cst.Attribute and type(expr.value) is cst.Name
                                          and expr.value.value == "self")


def _parameter_names(params, function: FunctionFacts, depth: int = 0) -> list:
    """`w`, `self.w` in `[w, b]`, `[{"params": [w]}]`, a name bound to such a list, or a name bound
    to a list comprehension (the list itself)."""
    if params is None or depth > 3:
        return []
    if type(params) in (cst.List, cst.Tuple):
        return [named for element in params.elements if type(element) is not cst.StarredElement
                for named in _parameter_names(element.value, function, depth + 1)]
    if type(params) is cst.Dict:
        return [named for element in params.elements if type(element) is cst.DictElement
                and type(element.key) is cst.SimpleString and element.key.evaluated_value == "params"
                for named in _parameter_names(element.value, function, depth + 1)]
    if type(params) is cst.ListComp:
        return [params]
    if type(params) is cst.Name:
        bindings = function.bindings_at(params)
        if bindings and all(type(b.value) in (cst.List, cst.Tuple) for b in bindings):
            return [named for b in bindings for named in _parameter_names(b.value, function, depth + 1)]
        if bindings and all(type(b.value) is cst.ListComp for b in bindings):
            return [params]
        return [params] if depth > 0 else []
    if type(params) is cst.Attribute and depth > 0 and _named(params):
        return [params]
    return []


def _rooted_at(value, attribute: str) -> bool:
    """Is `value` computed from `self.<attribute>` (`self.w.to(d)`, `self.w * 2`)?"""
    stack = [value]
    while stack:
        node = stack.pop()
        if type(node) is cst.Attribute and node.attr.value == attribute and type(node.value) is cst.Name \
                and node.value.value == "self":
            return True
        stack.extend(child_nodes(node))
    return False


def _takes_the_device_of_its_input(factory: cst.Call) -> bool:
    """`torch.zeros_like(x)`: made where `x` lives, without a `device=`."""
    name = factory.func.attr.value if isinstance(factory.func, cst.Attribute) else \
        factory.func.value if isinstance(factory.func, cst.Name) else ""
    return name.endswith("_like")


def _keyword(call: cst.Call, keyword: str) -> Optional[cst.BaseExpression]:
    return next((arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == keyword), None)


def _literal(expr) -> Optional[bool]:
    if type(expr) is cst.Name and expr.value in ("True", "False"):
        return expr.value == "True"
    return None


def _cuda_device(call: cst.Call):
    """The device `.cuda(...)` moves to, as a factory's `device=` would say it: "cuda" for
    `.cuda()`, "cuda:1" for `.cuda(1)`, the expression itself for `.cuda(device)`; None when the
    arguments are not plain (a star argument)."""
    devices = [arg.value for arg in call.args if arg.keyword is None or arg.keyword.value == "device"]
    if any(arg.star for arg in call.args) or len(devices) > 1:
        return None
    if not devices:
        return _string("cuda")
    if type(devices[0]) is cst.Integer:
        return _string(f"cuda:{devices[0].value}")
    return devices[0]


def _string(text: str) -> cst.SimpleString:
    return cst.SimpleString(f'"{text}"')


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 50 else text[:47] + "..."
