"""What a backward reaches: the values a loss was computed from, in one function.

A backward (or `torch.autograd.grad`) runs through the graph recorded while its
loss was computed. Followed back through the function's bindings from the loss,
the *slice* of a backward is every expression whose value reached the loss while
attached to autograd: not through `.detach()`, `.data`, `.item()`, nor computed
with grad mode off. Two rules read it:

- TCL010 (data-write-under-autograd) asks whether a tensor written through
  `.data` was used in that slice before the write, where autograd saves it;
- TCL011 (retain-graph-workaround) asks whether a later backward shares a graph
  with one that retained it.

Slices are computed on demand, only for functions that have a `.data` write or
a `retain_graph=True` backward; nothing here walks a whole module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import libcst as cst

from torchcopylint.analysis.aliasing import LEAF_FACTORIES, METADATA_ATTRIBUTES, METADATA_METHODS, VARIABLE_CLASSES, \
    Binding, FunctionFacts, _is_basic_index, makes_a_leaf_requiring_grad, unpacked_part
from torchcopylint.analysis.catalog import is_inplace_method_name
from torchcopylint.analysis.syntax import child_nodes, walk
from torchcopylint.analysis.torchnames import MODULE_RETURNING_METHODS, dotted_name
from torchcopylint.analysis.training import (MODULE_ONLY_METHODS, backpropagated_expression, module_key,
                                             parameter_owners)

# Calls whose result carries no graph: the walk does not look into them.
DETACHING_METHODS = frozenset({"detach", "detach_", "item", "tolist", "numpy"})
# Attributes that carry none of the tensor's graph: `x.data`, `x.grad`, and what a tensor is (`x.shape`, `x.dtype`).
NO_GRAPH_ATTRIBUTES = METADATA_ATTRIBUTES | {"data", "grad"}
DETACHING_BUILTINS = frozenset({"float", "int", "bool", "len", "str", "print"})
# Fresh tensors shaped like an argument (`torch.zeros_like(pred)`, `pred.new_ones(n)`): none of its graph.
FRESH_LIKE_METHODS = frozenset({"new_zeros", "new_ones", "new_full", "new_empty", "new_tensor"})
# Views: the saved tensor shares storage with the viewed one, so a write into one is a write into both.
VIEW_METHODS = frozenset({"t", "view", "view_as", "reshape", "transpose", "permute", "unsqueeze", "squeeze",
                          "expand", "expand_as", "flatten", "contiguous", "narrow", "select", "T", "mT"})
# Operations that save their input tensor for the backward whatever the other operands are.
SAVES_INPUT = frozenset({"pow", "square", "norm", "log", "log1p", "log2", "log10", "sin", "cos", "tan", "abs",
                         "atan", "asin", "acos", "erf", "prod", "cumprod", "dist", "cdist", "vector_norm",
                         "matrix_norm"})
# Bilinear operations: each operand is saved for the other's gradient, so only when the other requires grad.
BILINEAR = frozenset({"mm", "matmul", "bmm", "mul", "multiply", "dot", "mv", "outer", "einsum", "linear",
                      "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "bilinear",
                      "baddbmm", "addmm", "addmv", "inner", "tensordot", "kron"})
# Methods whose arguments say where or as what to put the receiver (a device, a dtype, a tensor
# whose dtype and device to take): they bring no graph into the value.
CONVERSION_METHODS = frozenset({"to", "cuda", "cpu", "type", "type_as"})
LITERALS = (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
# Containers of layers whose parameters are surely saved by a forward (several layers, one feeding the next).
LAYER_CONTAINERS = frozenset({"Sequential", "ModuleList", "ModuleDict"})


@dataclass
class Slice:
    """What a loss was computed from, attached to autograd, in one function."""

    # (node, parent, statement): every node of an attached expression that reached the loss.
    nodes: list = field(default_factory=list)
    bindings: set = field(default_factory=set)
    calls: set = field(default_factory=set)
    # The loss also depends on a value made outside this function's sight: a parameter of the
    # function, an attribute (`self.fake`), a name with no assignment here.
    external: bool = False
    # Of those, one that is not an argument of the function (an attribute set elsewhere, a global).
    external_elsewhere: bool = False
    # Reached through a loop's back edge: a value the previous iteration computed.
    carried: bool = False
    # `self.<attribute>` names assigned earlier in the function and followed to that value: the graph
    # is kept on the object (until the attribute is assigned again).
    kept_on_self: set = field(default_factory=set)


def loss_slice(loss: cst.BaseExpression, statement: cst.CSTNode, function: FunctionFacts, facts,
               stop_at: frozenset = frozenset(), through_summaries: bool = False) -> Slice:
    """`stop_at`: bindings the walk does not follow (the `inputs` of `torch.autograd.grad`, where
    autograd stops: what they were made from, in this iteration or the previous one, is not run).
    `through_summaries`: a call of a function of the file brings in only the arguments whose graph
    reaches what it returns (its summary's; the GAN-step analysis, which computes summaries anyway,
    asks for it; other rules leave them uncomputed)."""
    result = Slice()
    pending: list[tuple[cst.CSTNode, cst.CSTNode]] = [(loss, statement)]
    leaves: Optional[set] = None
    while pending:
        expression, where = pending.pop()
        where_order = function.order_of(where)
        parents: dict = {}
        carried = (lambda call: _arguments_returned(call, where, function, facts)) if through_summaries else None
        for node, parent in _attached(expression, carried):
            parents[id(node)] = parent
            result.nodes.append((node, parent, where))
            if type(node) is cst.Call:
                result.calls.add(node)
            elif type(node) is cst.Attribute and not _is_callee(node, parent) \
                    and type(node.value) is cst.Name and node.value.value == "self":
                assigned = _self_assignment_before(node.attr.value, where_order, function)
                if assigned is None:
                    result.external = result.external_elsewhere = True
                elif node.attr.value not in result.kept_on_self:
                    statement, value = assigned
                    if not facts.grad_enabled_at(function, statement) \
                            or _self_value_without_graph(value, statement, function, facts):
                        continue  # `self.y_real_ = torch.ones(n, 1)`: a target, no graph to keep
                    result.kept_on_self.add(node.attr.value)
                    pending.append((value, statement))
            elif type(node) is cst.Name and not _is_callee(node, parent) and not _is_attribute_name(node, parent):
                if node.value == "self" and type(parent) is cst.Attribute and parent.value is node:
                    continue  # `self.x`: judged as the attribute above
                bindings = function.bindings_at(node)
                if not bindings and node.value not in ("True", "False", "None") \
                        and not _roots_a_callee(node, parents) and not _global_constant(node.value, facts):
                    result.external = result.external_elsewhere = True  # a global value (not `F` of `F.relu(...)`)
                for binding in bindings:
                    if binding in stop_at:
                        result.bindings.add(binding)
                        continue
                    leaf_candidate = binding.kind in ("param", "requires_grad") or _made_to_require_grad(binding)
                    if leaf_candidate:
                        if leaves is None:
                            leaves = read_as_leaves(function)
                        if binding in leaves:
                            # The function reads its `.grad`: the code relies on it being a leaf, so
                            # nothing before it belongs to this graph.
                            result.bindings.add(binding)
                            continue
                    if binding.kind == "param" and not _plain_value_parameter(binding):
                        result.external = True
                    # `x_, z_ = x_.cuda(), z_.cuda()`: this name's part, not what the others get
                    value = unpacked_part(binding) or binding.value
                    if function.order_of(binding.statement) >= where_order and not (
                            value is not None and carries_no_graph(value, function, facts, binding.statement)):
                        # Made later in the body: the previous iteration's value, and its graph (a
                        # batch scaled in place of itself, `x = x * 2`, of a tensor that never
                        # requires grad, carries none).
                        result.carried = True
                    if binding in result.bindings:
                        continue
                    result.bindings.add(binding)
                    if _data_rebinding(binding):
                        # `loss.data = torch.FloatTensor([norm])`: new values, the same tensor, whose
                        # `grad_fn` still leads into the graph it had.
                        pending.append((binding.target, binding.statement))
                    if value is not None and facts.grad_enabled_at(function, binding.statement) \
                            and not carries_no_graph(value, function, facts, binding.statement) \
                            and not wrapped_in_variable(value, facts.names):
                        pending.append((value, binding.statement))
                    # `log_probs = []`, then `log_probs.append(dist.log_prob(a))`, then
                    # `torch.cat(log_probs)`: what the list was filled with is in the loss too.
                    for inserted, inserted_at in facts.containers.of(function).insertions(binding) or ():
                        if inserted_at is not binding.statement and facts.grad_enabled_at(function, inserted_at) \
                                and not carries_no_graph(inserted, function, facts, inserted_at) \
                                and not wrapped_in_variable(inserted, facts.names):
                            pending.append((inserted, inserted_at))
    return result


def _data_rebinding(binding) -> bool:
    """Is the binding `x.data = value` (aliasing's `_rebind_data`), which gives `x` new memory only?"""
    statement = binding.statement
    return type(statement) is cst.Assign and any(
        type(target.target) is cst.Attribute and target.target.attr.value == "data" and target.target.value is binding.target
        for target in statement.targets)


# Layers whose forward saves only its input and its own parameters for the backward.
INPUT_SAVING_LAYERS = frozenset(f"torch.nn.{name}" for name in ("Linear", "Conv1d", "Conv2d", "Conv3d"))
# Reductions that save no tensor (only a shape): `loss.sum()`, `z.mean()`.
SHAPE_ONLY_REDUCTIONS = frozenset({"sum", "mean"})
MAX_LEAF_ONLY_DEPTH = 6


def _a_container(expr: cst.BaseExpression, function: FunctionFacts) -> bool:
    """May `expr` be a list, tuple or dict the function builds (`parts = []`, then appended to), whose item
    is whatever was put in it, not a view?"""
    while type(expr) is cst.Subscript:
        expr = expr.value
    if type(expr) is not cst.Name:
        return True
    return any(binding.kind != "assign" or type(binding.value) in CONTAINER_LITERALS
               or (type(binding.value) is cst.Call and dotted_name(binding.value.func) in ("list", "dict", "tuple"))
               for binding in function.bindings_at(expr))


CONTAINER_LITERALS = (cst.List, cst.Tuple, cst.Dict, cst.ListComp, cst.DictComp, cst.Set)


def saves_only_leaves(expr: cst.BaseExpression, function: FunctionFacts, facts, depth: int = 0) -> bool:
    """Does the graph of `expr` save nothing but leaf tensors for its backward (which live anyway, so a
    retained graph holds no memory of its own)? Surely so only for what is seen: a name assigned
    once from such a value; `+`/`-` of such values, and their negation (addition saves no operand); `*`,
    `/`, `@`, `**` of leaves and values without a graph (`y = w * x` with `w` made with `requires_grad=True`,
    also spelled `a.pow(2)`, `torch.mul(w, x)`); a basic index of such a value (`z[0][0]`); one
    `nn.Linear`/`nn.Conv*` layer built in the function applied to a leaf (`z = linear(a)`, `a` a
    leaf); and `.sum()`/`.mean()` of such a value. Anything else (an activation saves its output, a
    network of unknown layers): no."""
    if depth > MAX_LEAF_ONLY_DEPTH:
        return False
    if carries_no_graph(expr, function, facts):
        return True
    if type(expr) is cst.Name:
        bindings = function.bindings_at(expr)
        if len(bindings) != 1:
            return False
        binding = next(iter(bindings))
        if _is_leaf(binding) or _named_view_of_a_leaf(binding, function, facts):
            return True
        return binding.kind == "assign" and binding.value is not None and \
            saves_only_leaves(binding.value, function, facts, depth + 1)
    if type(expr) is cst.UnaryOperation and type(expr.operator) in (cst.Minus, cst.Plus):
        return saves_only_leaves(expr.expression, function, facts, depth + 1)  # `-bloss`: negation saves nothing
    if type(expr) is cst.BinaryOperation:
        if type(expr.operator) in (cst.Add, cst.Subtract):
            return saves_only_leaves(expr.left, function, facts, depth + 1) and \
                saves_only_leaves(expr.right, function, facts, depth + 1)
        if type(expr.operator) in (cst.Multiply, cst.Divide, cst.MatrixMultiply, cst.Power):
            # (`x ** 2` saves `x` and its number of an exponent.)
            return all(_leaf_or_no_graph(operand, function, facts) for operand in (expr.left, expr.right))
        return False
    if type(expr) is cst.Subscript and _is_basic_index(expr) and not _a_container(expr.value, function):
        return saves_only_leaves(expr.value, function, facts, depth + 1)  # `z[0][0]`: a view saves no tensor
    if type(expr) is cst.Call and type(expr.func) is cst.Attribute and not expr.args \
            and expr.func.attr.value in SHAPE_ONLY_REDUCTIONS:
        return saves_only_leaves(expr.func.value, function, facts, depth + 1)
    operands = _product_operands(expr, facts)
    if operands is not None:  # `a.pow(2)`, `torch.mul(w, x)`: as `a ** 2`, `w * x`
        return all(_leaf_or_no_graph(operand, function, facts) for operand in operands)
    if type(expr) is cst.Call and facts.names.qualified_name(expr.func) in INPUT_SAVING_FUNCTIONS and expr.args \
            and expr.args[0].keyword is None and not expr.args[0].star:
        # `F.leaky_relu(x, negative_slope=0.1)` of a leaf: it saves `x` alone (sigmoid, tanh and relu save
        # their output, which is no leaf)
        return _leaf_or_no_graph(expr.args[0].value, function, facts) and all(
            carries_no_graph(arg.value, function, facts) for arg in expr.args[1:])
    if type(expr) is cst.Call and type(expr.func) is cst.Name and len(expr.args) == 1 \
            and expr.args[0].keyword is None and not expr.args[0].star:
        # Every assignment of the name in the function (`layer.requires_grad_()` leaves it the same layer).
        layers = [binding.value for binding in function.bindings
                  if binding.name == expr.func.value and binding.kind != "requires_grad"]
        return bool(layers) and all(type(layer) is cst.Call and facts.names.qualified_name(layer.func)
                                    in INPUT_SAVING_LAYERS for layer in layers) and \
            _leaf_or_no_graph(expr.args[0].value, function, facts)
    return False


# Element-wise functions whose backward saves their input alone (checked on each one's `grad_fn`: its
# `_saved_self`), never their output.
INPUT_SAVING_FUNCTIONS = frozenset(
    [f"torch.nn.functional.{name}" for name in ("leaky_relu", "gelu", "elu", "selu", "celu", "softplus", "silu", "mish",
                                                "hardtanh", "relu6", "hardsigmoid", "hardswish")]
    + [f"torch.{name}" for name in ("sin", "cos", "abs", "square", "log")])
# The method and function spellings of `*`, `/`, `@` and `**`, which save their operands.
PRODUCTS = frozenset({"pow", "mul", "multiply", "div", "divide", "true_divide", "matmul", "mm"})


def _product_operands(expr: cst.BaseExpression, facts) -> Optional[tuple]:
    """The two operands of `a.pow(2)` or `torch.mul(w, x)`, positional only; None for anything else."""
    if type(expr) is not cst.Call or any(arg.keyword is not None or arg.star for arg in expr.args):
        return None
    func = expr.func
    if type(func) is cst.Attribute and func.attr.value in PRODUCTS and len(expr.args) == 1 \
            and facts.names.qualified_name(func) is None:
        return func.value, expr.args[0].value
    qualified = facts.names.qualified_name(func) or ""
    if qualified.startswith("torch.") and qualified[len("torch."):] in PRODUCTS and len(expr.args) == 2:
        return expr.args[0].value, expr.args[1].value
    return None


def _is_leaf(binding: Binding) -> bool:
    return binding.leaf in ("factory", "parameter", "requires_grad_") and binding.leaf_origin is not None


def _leaf_or_no_graph(expr: cst.BaseExpression, function: FunctionFacts, facts) -> bool:
    if type(expr) is cst.Subscript and _is_basic_index(expr) and not _a_container(expr.value, function):
        # `x[0] ** 2`: what the power saves is a view of the leaf, which holds no memory of its own.
        return _leaf_or_no_graph(expr.value, function, facts)
    if type(expr) is cst.Name:
        bindings = function.bindings_at(expr)
        if bindings and all(_is_leaf(binding) or _named_view_of_a_leaf(binding, function, facts)
                            for binding in bindings):
            return True
    return carries_no_graph(expr, function, facts)


def _named_view_of_a_leaf(binding: Binding, function: FunctionFacts, facts) -> bool:
    """`x = torch.tensor([...], requires_grad=True).reshape(2, 3)`, `y = w.view(-1)` with `w` a leaf: a
    view saves no tensor for its backward, and the name keeps the view itself alive anyway."""
    value = binding.value
    if binding.leaf == "view":
        return True
    if not (binding.kind == "assign" and type(value) is cst.Call and type(value.func) is cst.Attribute
            and value.func.attr.value in VIEW_METHODS and type(value.func.value) is cst.Call):
        return False
    return makes_a_leaf_requiring_grad(value.func.value, facts.names)


def _made_to_require_grad(binding: Binding) -> bool:
    """`x = image.detach().clone().requires_grad_(True)`."""
    value = binding.value
    return type(value) is cst.Call and type(value.func) is cst.Attribute \
        and value.func.attr.value == "requires_grad_"


# torch's factories given sizes and numbers only (`torch.randn(x.size(0), z.size(1))`): a new tensor,
# whatever tensors its sizes were read from.
SIZED_FACTORIES = frozenset({"ones", "zeros", "randn", "rand", "empty", "full", "arange", "linspace", "logspace",
                             "eye", "randint", "randperm"})


def cuts_graph(call: cst.Call) -> bool:
    """Does the call's value carry none of its arguments' graph? `x.detach()`, `loss.item()`,
    `float(loss)`, `math.exp(loss)`, `nn.Parameter(t)`, a fresh tensor shaped like one (`torch.zeros_like(pred)`,
    `pred.new_ones(n)`), or sized by one (`torch.randn(x.size(0), z.size(1))`), gradients taken without
    `create_graph=True` (`torch.autograd.grad(out, x)`)."""
    func = call.func
    if type(func) is cst.Attribute and dotted_name(func.value) == "math":
        return True  # `math.exp(loss / previous)`: a Python float
    if type(func) is cst.Attribute and func.attr.value == "grad" \
            and dotted_name(func.value) in ("torch.autograd", "autograd"):
        return _without_create_graph(call)  # gradients, without a graph of their own unless asked for
    if (func.attr.value if type(func) is cst.Attribute else getattr(func, "value", None)) == "Parameter":
        return True  # `nn.Parameter(centers - lr * delta)` is a new leaf made of the values, never their graph
    if type(func) is cst.Attribute:
        name = func.attr.value
        return name in DETACHING_METHODS or name in FRESH_LIKE_METHODS or name in METADATA_METHODS or \
            ((name.endswith("_like") and name in LEAF_FACTORIES or name in SIZED_FACTORIES)
             and dotted_name(func.value) == "torch")
    return type(func) is cst.Name and func.value in DETACHING_BUILTINS


def _without_create_graph(call: cst.Call) -> bool:
    """Is `torch.autograd.grad(...)` called without `create_graph` (nor a value for it that may be true)?"""
    if len([arg for arg in call.args if arg.keyword is None]) >= 5 or any(arg.star for arg in call.args):
        return False  # (outputs, inputs, grad_outputs, retain_graph, create_graph, ...) positionally
    return not may_create_graph(call)


def wrapped_in_variable(value: cst.CSTNode, names) -> bool:
    """`Variable(G(z))`, `z = Variable(z, requires_grad=True)`: since 0.4 a new leaf, detached from
    what it wraps (with or without `requires_grad`), so the graph ends there; also moved or cast
    (`Variable(x, requires_grad=True).to(device).double()`: the copy's graph holds that leaf only)."""
    while type(value) is cst.Call and type(value.func) is cst.Attribute and value.func.attr.value in MOVING_METHODS:
        value = value.func.value
    return type(value) is cst.Call and names.qualified_name(value.func) in VARIABLE_CLASSES


def read_as_leaves(function: FunctionFacts) -> set:
    """Bindings of the names the function uses as leaves of their own: it reads their `.grad`
    (`return x.grad.abs()`) or switches their grad on (`x.requires_grad = True`, `x.requires_grad_()`),
    which only a leaf allows."""
    found: set = set()
    for node in walk(function.node):
        if type(node) is cst.Attribute and node.attr.value == "grad" and type(node.value) is cst.Name:
            found |= function.bindings_at(node.value)
        elif type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "requires_grad_" \
                and type(node.func.value) is cst.Name and not _switched_off(node.args[0].value if node.args else None):
            found |= function.bindings_at(node.func.value)
        elif type(node) is cst.Assign and len(node.targets) == 1 and not _switched_off(node.value):
            target = node.targets[0].target
            if type(target) is cst.Attribute and target.attr.value == "requires_grad" and type(target.value) is cst.Name:
                found |= function.bindings_at(target.value)
    return found


def _switched_off(value: Optional[cst.BaseExpression]) -> bool:
    return type(value) is cst.Name and value.value == "False"


def _self_assignment_before(attribute: str, order: int, function: FunctionFacts) -> Optional[tuple]:
    """(statement, value) of the last `self.<attribute> = value` of the function before the
    statement at `order` (also `self.a, self.b = x, y`: its part), in the same loops (so that it
    is the value the read sees)."""
    found = None
    for statement, position in function.statement_order.items():
        if position >= order or type(statement) is not cst.Assign or len(statement.targets) != 1:
            continue
        value = _value_of_self_attribute(statement.targets[0].target, statement.value, attribute)
        if value is not None and (found is None or position > function.order_of(found[0])):
            found = (statement, value)
    return found


# Methods that move or convert a tensor: what they return carries a graph only if the tensor did.
MOVING_METHODS = frozenset({"to", "cuda", "cpu", "float", "double", "half", "type"})


def _self_value_without_graph(value, statement, function: FunctionFacts, facts, depth: int = 0) -> bool:
    """Does the value assigned to a `self.` attribute surely carry no graph: `torch.ones(n, 1)`, or
    `self.y_real_.cuda()` of an earlier such value?"""
    if carries_no_graph(value, function, facts, statement):
        return True
    while type(value) is cst.Call and type(value.func) is cst.Attribute and value.func.attr.value in MOVING_METHODS:
        value = value.func.value
    if depth > 3 or not (type(value) is cst.Attribute and type(value.value) is cst.Name and value.value.value == "self"):
        return False
    earlier = _self_assignment_before(value.attr.value, function.order_of(statement), function)
    return earlier is not None and _self_value_without_graph(earlier[1], earlier[0], function, facts, depth + 1)


def _value_of_self_attribute(target, value, attribute: str):
    """What `self.<attribute>` gets in an assignment of `value` to `target`, or None."""
    if type(target) is cst.Attribute and target.attr.value == attribute \
            and type(target.value) is cst.Name and target.value.value == "self":
        return value
    if type(target) in (cst.Tuple, cst.List) and type(value) in (cst.Tuple, cst.List) \
            and len(target.elements) == len(value.elements):
        for element, part in zip(target.elements, value.elements):
            if type(element) is not cst.StarredElement and type(part) is not cst.StarredElement:
                found = _value_of_self_attribute(element.value, part.value, attribute)
                if found is not None:
                    return found
    return None


def _attached(expression: cst.CSTNode, arguments_carried: Optional[Callable[[cst.Call], Any]] = None):
    """(node, parent) for every node of `expression` that can carry a graph into its value.

    A callee is not data: `netD(x)` and `self.D(x)` bring in their arguments, not the module
    (whose parameters are leaves, not a graph); `out.view(-1)` brings in `out`.
    `arguments_carried(call)`, where it answers, says which arguments of a call carry their graph
    into its value (a function of the file: those whose graph reaches what it returns), or False
    where its value carries no graph at all (a penalty of the file that takes `torch.autograd.grad`
    without `create_graph=True`).
    """
    stack: list[tuple[cst.CSTNode, Optional[cst.CSTNode]]] = [(expression, None)]
    while stack:
        node, parent = stack.pop()
        if type(node) is cst.Call:
            func = node.func
            carried = arguments_carried(node) if arguments_carried is not None else None
            if cuts_graph(node) or carried is False:
                continue
            yield node, parent
            if carried is not None:
                stack.extend((arg, node) for arg in carried)
            elif not (isinstance(func, cst.Attribute) and func.attr.value in CONVERSION_METHODS):
                stack.extend((arg, node) for arg in node.args)  # `x.to(device)`: a device, or a dtype
            if isinstance(func, cst.Attribute) and func.attr.value in ("forward", "__call__"):
                continue  # `netD.forward(x)`, spelled out: the module is the callee, as in `netD(x)`
            if isinstance(func, cst.Attribute) and not _rooted_at_self(func) and not isinstance(func.value, cst.Name):
                stack.append((func, node))
            elif type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value != "self":
                stack.append((func, node))
            continue
        if type(node) is cst.Attribute and node.attr.value in NO_GRAPH_ATTRIBUTES:
            continue
        if type(node) in (cst.Lambda, cst.FunctionDef, cst.ClassDef):
            continue
        if isinstance(node, cst.Arg):
            # `dtype=np.float32`: the keyword names a parameter of the callee, not a value (it
            # read as a global of unknown origin, which took the graph for one made elsewhere).
            yield node, parent
            stack.append((node.value, node))
            continue
        yield node, parent
        if type(node) is cst.Subscript:
            # `scores[0, target]`: an index selects, it carries no graph into the value.
            stack.append((node.value, node))
            continue
        stack.extend((child, node) for child in child_nodes(node))


def _arguments_returned(call: cst.Call, statement: cst.CSTNode, function: FunctionFacts, facts):
    """For a call of a function of the file, the arguments (`cst.Arg`) whose graph reaches what it
    returns, as its summary says, or False when its value surely carries no graph (a penalty
    returning what `torch.autograd.grad` gives without `create_graph=True`); None for any other call."""
    summary = facts.callee_summary(call, function)
    if summary is None or not summary.accepts(call):
        return None
    if facts.autograd.never_requires_grad(call, function, statement):
        return False
    if any(arg.star for arg in call.args):
        return None
    positional = [arg for arg in call.args if arg.keyword is None]
    carried = [arg for index, arg in enumerate(positional) if index in summary.returned_arguments]
    carried += [arg for arg in call.args if arg.keyword is not None and arg.keyword.value in summary.parameters
                and summary.parameters.index(arg.keyword.value) in summary.returned_arguments]
    return carried


def _plain_value_parameter(binding: Binding) -> bool:
    """`nz: int = 64`, `scale=0.5`: a parameter that holds a number or a flag, not a tensor with a graph."""
    param = binding.statement
    if type(param) is not cst.Param:
        return False
    annotation = param.annotation.annotation if param.annotation is not None else None
    if type(annotation) is cst.Name and annotation.value in ("int", "float", "bool", "str"):
        return True
    return param.default is not None and isinstance(param.default, LITERALS + (cst.Name,)) \
        and (type(param.default) is not cst.Name or param.default.value in ("True", "False", "None"))


def _global_constant(name: str, facts) -> bool:
    """A module-level name bound only to literals, imports, functions or classes: it carries no graph.
    So does a name in capitals that the module does not bind (`C_LAMBDA` of `from constants import *`):
    a constant, by the convention that spells it so."""
    module = facts.function_facts(facts.module)
    bindings = [binding for binding in module.bindings if binding.name == name]
    if not bindings:
        return len(name) > 1 and name.isupper()
    return all(
        binding.kind in ("import", "def") or isinstance(binding.value, LITERALS) for binding in bindings)


def _roots_a_callee(node: cst.Name, parents: dict) -> bool:
    """`F` in `F.cross_entropy(...)`, `torch` in `torch.nn.functional.relu(...)`."""
    current, parent = node, parents.get(id(node))
    while type(parent) is cst.Attribute and parent.value is current:
        current, parent = parent, parents.get(id(parent))
    return current is not node and type(parent) is cst.Call and parent.func is current


def _rooted_at_self(node: cst.CSTNode) -> bool:
    while type(node) is cst.Attribute:
        node = node.value
    return type(node) is cst.Name and node.value == "self"


def _is_callee(node: cst.CSTNode, parent: Optional[cst.CSTNode]) -> bool:
    return type(parent) is cst.Call and parent.func is node


def _is_attribute_name(node: cst.Name, parent: Optional[cst.CSTNode]) -> bool:
    return type(parent) is cst.Attribute and parent.attr is node


# ------------------------------------------------------------------ backwards


@dataclass(frozen=True)
class GraphUse:
    """A backward or `torch.autograd.grad` call: where a graph is consumed."""

    call: cst.Call
    loss: cst.BaseExpression
    statement: cst.CSTNode
    retains: bool  # `retain_graph=True` (or `create_graph=True`, which retains too)
    creates: bool  # `create_graph=True` or a value decided at run time: a higher-order graph may be wanted


def graph_uses(function: FunctionFacts, facts) -> list[GraphUse]:
    """Every backward and autograd.grad call of the function, in statement order."""
    found = []
    for call, statement in function.call_statement.items():
        loss = _backpropagated(call, function, facts)
        if loss is None and _is_autograd_grad(call, facts):
            loss = _first_argument(call, "outputs")
        if loss is None:
            continue
        retains = retains_graph(call) or keyword_is_true(call, "create_graph")
        found.append(GraphUse(call, loss, statement, retains, may_create_graph(call)))
    return sorted(found, key=lambda use: function.order_of(use.statement))


def _backpropagated(call: cst.Call, function: FunctionFacts, facts) -> Optional[cst.BaseExpression]:
    """The loss of a backward call. `y.backward(grad_mask)` backpropagates `y` (the argument is the
    gradient), unless the receiver is `torch.autograd` or an Accelerate/Fabric object, whose `backward`
    takes the loss as its argument."""
    loss = backpropagated_expression(call, function, facts)
    func = call.func
    if loss is None or type(func) is not cst.Attribute or func.attr.value != "backward" or loss is func.value:
        return loss
    receiver = func.value
    if type(receiver) is cst.Call:
        return loss  # `scaler.scale(loss).backward()`
    if facts.names.qualified_name(receiver) in ("torch.autograd",):
        return loss
    label = (dotted_name(receiver) or "").rpartition(".")[2].lower()
    if "accelerator" in label or "fabric" in label:
        return loss
    if type(receiver) is cst.Name:
        for binding in function.bindings_at(receiver):
            callee = dotted_name(binding.value.func) if type(binding.value) is cst.Call else None
            if callee and callee.rpartition(".")[2] in ("Accelerator", "Fabric"):
                return loss
    return receiver


def _is_autograd_grad(call: cst.Call, facts) -> bool:
    qualified = facts.names.qualified_name(call.func)
    if qualified in ("torch.autograd.grad", "torch.autograd.functional.vjp"):
        return True
    name = dotted_name(call.func) or ""
    return name in ("autograd.grad", "torch.autograd.grad")


def _first_argument(call: cst.Call, keyword: str) -> Optional[cst.BaseExpression]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    return positional[0] if positional else None


def keyword_is_true(call: cst.Call, keyword: str) -> bool:
    return any(arg.keyword is not None and arg.keyword.value == keyword and type(arg.value) is cst.Name
               and arg.value.value == "True" for arg in call.args)


def may_create_graph(call: cst.Call) -> bool:
    """`create_graph=` given anything but `False`/`None`: `True`, or a flag decided at run time
    (`create_graph=torch.is_grad_enabled()` in a score network that is also trained through its
    gradient), so a higher-order graph may be wanted."""
    given = keyword_argument(call, "create_graph")
    return any(arg.star for arg in call.args) or \
        given is not None and not (type(given.value) is cst.Name and given.value.value in ("False", "None"))


def retains_graph(call: cst.Call) -> bool:
    """`backward(retain_graph=True)`, or `retain_variables=True`, its pre-0.4 spelling (tutorials
    still carry it): the graph is kept after this backward."""
    return any(keyword_is_true(call, keyword) for keyword in RETAIN_KEYWORDS)


def keyword_argument(call: cst.Call, keyword: str) -> Optional[cst.Arg]:
    return next((arg for arg in call.args if arg.keyword is not None and arg.keyword.value == keyword), None)


RETAIN_KEYWORDS = ("retain_graph", "retain_variables")


def retain_argument(call: cst.Call) -> Optional[cst.Arg]:
    """The `retain_graph=` argument, or `retain_variables=`, its spelling before PyTorch 0.4."""
    return next((arg for arg in call.args if arg.keyword is not None and arg.keyword.value in RETAIN_KEYWORDS), None)


def shares_graph(first: Slice, second: Slice, function: FunctionFacts, facts) -> bool:
    """Do two slices meet in a value that may carry a graph (not a leaf, not data made without grad,
    not a batch of a DataLoader the file builds)?"""
    for binding in first.bindings & second.bindings:
        value = unpacked_part(binding) or binding.value  # `x, z = x.cuda(), z.cuda()`: this name's part
        if holds_network(binding, function, facts):
            continue  # a network both forwards run: what they share through it is its parameters, leaves
        if value is not None and not binding.leaf and binding.kind != "loop" and not loader_data(binding, function, facts) \
                and (not carries_no_graph(value, function, facts, binding.statement)
                     or filled_with_graph(binding, function, facts)):
            return True
    # `r_loss, c_loss = self.losses(batch)`: two values of one call, which may have computed both
    # from one forward (the call's code is not followed here).
    unpacked = {binding.statement for binding in first.bindings if _unpacked_from_one_call(binding)}
    return any(binding.statement in unpacked and _unpacked_from_one_call(binding)
               and not carries_no_graph(binding.value, function, facts, binding.statement)
               for binding in second.bindings - first.bindings)


def graph_kept_on_the_object(graph: Slice, function: FunctionFacts, facts) -> Optional[str]:
    """`self.<attribute>` that the loss reads (itself, or in the methods of the class it calls, two deep) and that
    the class sets to a value computed in grad mode from tensors that require grad (`self.grid_xs =
    (x.requires_grad_(True) + 1) / 2 * h` in `__init__`): a graph made once, which every backward through the
    loss runs through again. The attribute, or None."""
    owner = facts.classes.get(function.class_name or "")
    if owner is None:
        return None
    read: set = set()
    nodes = [node for node, _, _ in graph.nodes] + [call.func for call in graph.calls]  # `self.loss_bc()`
    seen: set = set()
    for _ in range(3):
        attributes = {node.attr.value for node in nodes if type(node) is cst.Attribute
                      and type(node.value) is cst.Name and node.value.value == "self"}
        read |= attributes
        methods = [method for name in attributes if (method := facts.method_of(owner, name)) is not None
                   and method not in seen]
        seen.update(methods)
        nodes = [node for method in methods for node in walk(method)]
    for attribute in sorted(read):
        for value in facts.attribute_values(owner, attribute):
            method = owner.assigned_in.get(value)
            found = facts.autograd.origin(value, facts.function_facts(method), None) if method is not None else None
            if found is not None and found.derived:
                return attribute
    return None


def graph_read_after_the_loop(function: FunctionFacts, name: cst.Name, loop: cst.CSTNode) -> bool:
    """Is the value `name` holds at a backward in `loop` read again, with its graph, after the loop ends (the last
    batch's loss handed to a Hessian, `self.hessian(loss / n, params)`)? A read that keeps no graph (`print(loss)`,
    `loss.item()`, `float(loss)`) is none."""
    end = function.order_of(loop)
    for binding in function.bindings_at(name):
        for read in function.reads_of(binding):
            if loop in function.loops_of.get(read.statement, ()) or function.order_of(read.statement) <= end:
                continue
            if _handed_on_with_its_graph(read.node, read.statement):
                return True
    return False


def _handed_on_with_its_graph(name: cst.Name, statement: cst.CSTNode) -> bool:
    """Does the statement hand `name` to a call that may take gradients through it (`self.hessian(loss / n, p)`,
    `losses.append(loss)`), or keep it (`last = loss`), rather than only show it (`print(f"{loss}")`,
    `loss.item()`, `float(loss)`)?"""
    parents = {id(child): node for node in walk(statement) for child in child_nodes(node)}
    node = name
    while id(node) in parents:
        parent = parents[id(node)]
        if type(parent) is cst.Call:
            if cuts_graph(parent):
                return False  # `print(...)`, `float(loss)`, `loss.item()`: numbers, no graph
            return True
        node = parent
    return True


def holds_network(binding: Binding, function: FunctionFacts, facts) -> bool:
    """Does the binding hold a network: one built in sight (`nn.Sequential(...)`, a module class of the
    file, `Generator().to(device)`) or one the function calls `.parameters()` on? What is handed
    around with it is its parameters, leaves, never a graph."""
    if binding.name in facts.autograd.used_as_modules(function):
        return True
    value = unpacked_part(binding) or binding.value
    while type(value) is cst.Call and type(value.func) is cst.Attribute \
            and value.func.attr.value in MODULE_RETURNING_METHODS:
        value = value.func.value
    return facts.builds_module(value)


def loader_data(binding: Binding, function: FunctionFacts, facts) -> bool:
    """A batch of a DataLoader built in sight, or a device move of one (`image = image.to(device)`):
    a dataset's samples, which carry no graph, whichever backwards read them."""
    batch = facts.loaders.batch_of(binding, function)
    return batch is not None and batch.loader.sure


def filled_with_graph(binding: Binding, function: FunctionFacts, facts) -> bool:
    """Is what the binding made clean given values that may carry a graph afterwards: a tensor whose
    item or slice is assigned one (`k = torch.zeros(2)`, then `k[0] = x[0] ** 2`: autograd records the
    write, CopySlices, and the tensor carries that graph from there on), or a container one is put in
    (`parts = []`, then `parts.append(loss[i:j].sum())`)?"""
    for event in function.events_on(binding.storages):
        statement = event.statement
        if event.kind == "setitem" and not event.without_grad and type(statement) is cst.Assign \
                and not carries_no_graph(statement.value, function, facts, statement):
            return True
    insertions = facts.containers.of(function).insertions(binding)
    return bool(insertions) and any(not carries_no_graph(value, function, facts, statement)
                                    for value, statement in insertions)


def _unpacked_from_one_call(binding: Binding) -> bool:
    statement = binding.statement
    return type(statement) is cst.Assign and type(binding.value) is cst.Call and unpacked_part(binding) is None \
        and any(type(target.target) in (cst.Tuple, cst.List) for target in statement.targets)


def later_backward_through(call: cst.Call, after: cst.CSTNode, function: FunctionFacts,
                           facts) -> Optional[GraphUse]:
    """The first backward (or `autograd.grad`) after the statement `after` whose loss still depends,
    attached to the graph, on `call`'s result.

    One fact for two questions: after a discriminator step's backward that freed the generator's
    graph, the backward that then fails with `Trying to backward through the graph a second time`
    (TCL011). A call of a function of the file brings in only the arguments whose graph reaches what
    it returns (a gradient penalty that wraps its input in `Variable(x, requires_grad=True)` does not
    reach the generator that made `x`)."""
    order = function.order_of(after)
    for use in graph_uses(function, facts):
        if function.order_of(use.statement) > order and not _in_other_branches(function, after, use.statement) \
                and call in loss_slice(use.loss, use.statement, function, facts, through_summaries=True).calls:
            return use
    return None


def _in_other_branches(function: FunctionFacts, first: cst.CSTNode, second: cst.CSTNode) -> bool:
    """Do the two statements sit in different arms of one `if` (`if step % 3 == 0: loss_D.backward()`,
    `else: loss_G.backward()`)? Then no run reaches the second after the first."""
    for node in walk(function.node):
        if type(node) is not cst.If or node.orelse is None:
            continue
        in_body = {id(statement) for statement in walk(node.body)}
        in_else = {id(statement) for statement in walk(node.orelse)}
        if (id(first) in in_body and id(second) in in_else) or (id(first) in in_else and id(second) in in_body):
            return True
    return False


# --------------------------------------------------------------- .data writes


@dataclass(frozen=True)
class DataWrite:
    """A write through `.data`: `w.data.add_(...)`, `w.data = v`, `w.data[i] = v`, `w.data += v`."""

    node: cst.CSTNode  # what the diagnostic sits on: the call, or the assignment
    statement: cst.CSTNode  # the small statement holding it
    written: cst.BaseExpression  # the tensor written: `w` in `w.data.add_(...)`
    data: cst.Attribute  # the `w.data` expression itself
    description: str


def data_writes(function: FunctionFacts) -> list[DataWrite]:
    """The function's writes through `.data`, in statement order."""
    found = []
    for call, statement in function.call_statement.items():
        func = call.func
        if type(func) is cst.Attribute and is_inplace_method_name(func.attr.value):
            data = _data_access(func.value)
            if data is not None:
                found.append(DataWrite(call, statement, data.value, data, f".{func.attr.value}()"))
    for statement in function.statement_order:
        if type(statement) is cst.Assign:
            for target in statement.targets:
                data = _data_access(target.target)
                if data is not None:
                    kind = "= ..." if target.target is data else "[...] = ..."
                    found.append(DataWrite(statement, statement, data.value, data, kind))
        elif type(statement) is cst.AugAssign:
            data = _data_access(statement.target)
            if data is not None:
                found.append(DataWrite(statement, statement, data.value, data, "op= ..."))
    return sorted(found, key=lambda write: function.order_of(write.statement))


def _data_access(expression: cst.BaseExpression) -> Optional[cst.Attribute]:
    """`w.data` for `w.data`, `w.data[i]`, `w.data[:, 0]`; None otherwise."""
    while type(expression) is cst.Subscript:
        expression = expression.value
    if type(expression) is cst.Attribute and expression.attr.value == "data" \
            and type(expression.value) in (cst.Name, cst.Attribute, cst.Subscript):
        return expression
    return None


@dataclass(frozen=True)
class WrittenTensor:
    """What a `.data` write writes into, as the forward would have used it."""

    storages: frozenset  # a local tensor's storages (empty for module parameters)
    path: Optional[str]  # `self.weight`, `model.fc.weight`: an attribute path
    modules: frozenset  # modules whose parameters are written (`for p in net.parameters()`)
    label: str


def written_tensor(write: DataWrite, function: FunctionFacts, facts) -> Optional[WrittenTensor]:
    written = write.written
    label = facts.code_for(written)
    if type(written) is cst.Name:
        owner, bindings = facts.reaching(written, function)  # a global tensor: the top level's assignments
        if not bindings:
            return None
        modules = frozenset().union(*(_parameter_modules(binding, owner, facts) for binding in bindings))
        if modules:
            return WrittenTensor(frozenset(), None, modules, label)
        if any(binding.kind in ("loop", "param", "with", "import", "def") for binding in bindings):
            return None  # a loop variable over something else, an argument: not known here
        storages = frozenset().union(*(binding.storages for binding in bindings))
        return WrittenTensor(storages, None, frozenset(), label) if storages else None
    path = dotted_name(written)
    if path is None or "." not in path:
        return None
    return WrittenTensor(frozenset(), path, frozenset(), label)


def _parameter_modules(binding: Binding, function: FunctionFacts, facts) -> frozenset:
    """For `p` in `for p in net.parameters()`: {"net"}; in `for p in group["params"]` over
    `opt.param_groups`: the modules that optimizer trains."""
    if binding.kind != "loop":
        return frozenset()
    if binding.leaf == "parameter" and binding.leaf_origin is not None:
        return parameter_owners(binding.leaf_origin)
    loop = binding.statement
    if type(loop) is not cst.For:
        return frozenset()
    iterator = loop.iter
    if type(iterator) is cst.Subscript and type(iterator.value) is cst.Name:
        for group in function.bindings_at(iterator.value):
            outer = group.statement
            if group.kind == "loop" and type(outer) is cst.For and type(outer.iter) is cst.Attribute \
                    and outer.iter.attr.value == "param_groups":
                optimizer = dotted_name(outer.iter.value)
                return facts.training.optimizers.get(optimizer, frozenset())
    return frozenset()


@dataclass(frozen=True)
class SavedUse:
    """A use of the written tensor, in a backward's slice, where autograd saves it."""

    node: cst.CSTNode
    statement: cst.CSTNode
    how: str  # for the message: "`x @ w`", "`net(...)`"


# A module's own methods that run no forward: what they do saves nothing for a backward.
NOT_A_FORWARD = MODULE_RETURNING_METHODS | MODULE_ONLY_METHODS | {"zero_grad", "state_dict", "load_state_dict", "apply"}


def saved_uses(written: WrittenTensor, graph: Slice, function: FunctionFacts, facts) -> list[SavedUse]:
    """Uses of `written` in the slice, in grad mode, where the backward will read its values."""
    parents = {id(node): parent for node, parent, _ in graph.nodes}
    found = []
    for node, parent, statement in graph.nodes:
        if not facts.grad_enabled_at(function, statement):
            continue
        if type(node) is cst.Call and (written.modules or written.path):
            key = module_key(node.func)
            if type(node.func) is cst.Attribute and node.func.attr.value in NOT_A_FORWARD:
                continue  # `model.cuda()`, `model.train()`: the module's own method, no submodule's forward
            if key is not None and _related_module(key, written) \
                    and _module_saves_weights(node, key, function, facts, statement, whole=bool(written.modules)):
                found.append(SavedUse(node, statement, f"`{key}(...)`"))
            continue
        if written.storages and type(node) is cst.Name and not _is_callee(node, parent) \
                and not _is_attribute_name(node, parent):
            storages = frozenset().union(*(b.storages for b in facts.reaching(node, function)[1]))
            if storages & written.storages:
                how = _saving_operation(node, parents, function, facts, statement)
                if how:
                    found.append(SavedUse(node, statement, how))
        elif written.path and type(node) is cst.Attribute and dotted_name(node) == written.path \
                and not _is_callee(node, parent):
            how = _saving_operation(node, parents, function, facts, statement)
            if how:
                found.append(SavedUse(node, statement, how))
    return found


def _related_module(key: str, written: WrittenTensor) -> bool:
    """Does calling module `key` use the written parameters? `net(...)` or `net.fc(...)` for all of `net`'s
    parameters; only `net.fc(...)` itself for `net.fc.weight` (which layer of `net` it is, is not known)."""
    for module in written.modules:
        if key == module or key.startswith(module + ".") or module.startswith(key + "."):
            return True
    return bool(written.path) and written.path.rpartition(".")[0] == key


def _module_saves_weights(call: cst.Call, key: str, function: FunctionFacts, facts, statement: cst.CSTNode,
                          whole: bool) -> bool:
    """Does the module's forward save the written weights for the backward?

    All the parameters of a model built elsewhere: yes, a model has several layers and every one
    after the first gets an input that requires grad. One layer (`net.fc.weight`, or a model that is a
    single `nn.Linear`): only when its input requires grad (the weight's gradient needs only the input).
    An embedding never saves its weight.
    """
    values = _module_values(call, key, function, facts)
    classes = []
    for value in values:
        qualified = facts.names.qualified_name(value.func) if type(value) is cst.Call else None
        classes.append(qualified.rpartition(".")[2] if qualified and qualified.startswith("torch.nn.") else None)
    if any(name in ("Embedding", "EmbeddingBag") for name in classes):
        return False
    single_layer = bool(classes) and all(name is not None and name not in LAYER_CONTAINERS for name in classes)
    if whole and not single_layer:
        return True
    return any(requires_grad(arg.value, function, facts, statement) for arg in call.args if arg.keyword is None)


def _module_values(call: cst.Call, key: str, function: FunctionFacts, facts) -> list:
    func = call.func
    if type(func) is cst.Name:
        return [b.value for b in function.bindings_at(func) if b.value is not None]
    if key.startswith("self.") and key.count(".") == 1 and function.class_name in facts.classes:
        return list(facts.classes[function.class_name].attribute_values.get(key[5:], ()))
    return []


def _saving_operation(node: cst.CSTNode, parents: dict, function: FunctionFacts, facts,
                      statement: cst.CSTNode) -> Optional[str]:
    """How an operation that uses `node` saves it for the backward, or None if it does not surely do so."""
    current = node
    parent = parents.get(id(current))
    # Through views: `w.t()`, `w[0]`, `w.view(...)` share storage with `w`.
    while True:
        if type(parent) is cst.Subscript and parent.value is current and _is_basic_index(parent):
            current, parent = parent, parents.get(id(parent))
        elif type(parent) is cst.Attribute and parent.value is current and parent.attr.value in VIEW_METHODS:
            grand = parents.get(id(parent))
            if type(grand) is cst.Call and grand.func is parent:
                current, parent = grand, parents.get(id(grand))
            elif parent.attr.value in ("T", "mT"):
                current, parent = parent, parents.get(id(parent))
            else:
                break
        else:
            break
    shown = facts.code_for(node)
    if type(parent) is cst.BinaryOperation:
        other = parent.right if parent.left is current else parent.left
        operator = parent.operator
        if type(operator) is cst.Power and parent.left is current:
            return f"`{shown} ** ...`"
        if type(operator) is cst.Divide and parent.right is current and type(other) not in (cst.Integer, cst.Float):
            return f"`... / {shown}`"
        if type(operator) in (cst.Multiply, cst.MatrixMultiply):
            if requires_grad(other, function, facts, statement) or _same_root(other, node):
                symbol = "@" if type(operator) is cst.MatrixMultiply else "*"
                return f"`{shown} {symbol} {_short(facts, other)}`" if parent.left is current \
                    else f"`{_short(facts, other)} {symbol} {shown}`"
        return None
    if type(parent) is cst.Arg:
        call = parents.get(id(parent))
        if type(call) is not cst.Call:
            return None
        name = (dotted_name(call.func) or "").rpartition(".")[2]
        if name in SAVES_INPUT:
            return f"`{name}({shown}, ...)`"
        if name in BILINEAR:
            others = [arg.value for arg in call.args if arg is not parent and arg.keyword is None]
            if type(call.func) is cst.Attribute and facts.names.qualified_name(call.func) is None:
                others.append(call.func.value)  # `x.mm(w)`: the receiver is the other operand
            if any(requires_grad(other, function, facts, statement) for other in others):
                return f"`{name}(..., {shown})`"
        return None
    if type(parent) is cst.Attribute and parent.value is current:
        call = parents.get(id(parent))
        if not (type(call) is cst.Call and call.func is parent):
            return None
        name = parent.attr.value
        if name in SAVES_INPUT:
            return f"`{shown}.{name}(...)`"
        if name in BILINEAR and any(requires_grad(arg.value, function, facts, statement) for arg in call.args
                                    if arg.keyword is None):
            return f"`{shown}.{name}(...)`"
    return None


def _same_root(other: cst.CSTNode, node: cst.CSTNode) -> bool:
    return dotted_name(other) is not None and dotted_name(other) == dotted_name(node)


def _short(facts, node: cst.CSTNode, limit: int = 30) -> str:
    text = " ".join(facts.code_for(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def carries_no_graph(expression: cst.BaseExpression, function: FunctionFacts, facts,
                     statement: Optional[cst.CSTNode] = None) -> bool:
    """Is the value surely free of autograd history? The answer is analysis/autograd.py's
    (`never_requires_grad`): numbers, tensors made without `requires_grad=True`, `.detach()`/`.data`,
    and what tensor methods and torch functions make from those alone."""
    return facts.autograd.never_requires_grad(expression, function, statement)


def requires_grad(expression: cst.BaseExpression, function: FunctionFacts, facts,
                  statement: Optional[cst.CSTNode] = None) -> bool:
    """Does the value require grad: a leaf made to, a parameter, a module's output, or computed from
    one in grad mode? The answer is analysis/autograd.py's, on seen or assumed grounds (a network of
    unknown class is taken to have trainable parameters): a backward saves what it needs of those."""
    return facts.autograd.requires_grad(expression, function, statement)
