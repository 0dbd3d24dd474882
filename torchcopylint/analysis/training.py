"""Where losses are backpropagated (`loss.backward()`, `scaler.scale(loss).backward()`,
`accelerator.backward(loss)`, `self.manual_backward(loss)`), which optimizer trains which module,
and which names are modules by how a function uses them (`model.eval()`)."""

from __future__ import annotations

from dataclasses import dataclass
import re
from typing import Optional

import libcst as cst

from torchcopylint.analysis.aliasing import FunctionFacts
from torchcopylint.analysis.gan_roles import ArgumentRoles, argument_roles
from torchcopylint.analysis.syntax import child_nodes, single_index, walk
from torchcopylint.analysis.torchnames import MODULE_RETURNING_METHODS, TorchNames, dotted_name


@dataclass(frozen=True)
class Backward:
    call: cst.Call
    loss: cst.BaseExpression  # the expression backpropagated from
    statement: cst.CSTNode


# Calls that take gradients without `.backward()`: a gradient penalty, a second-order term, an attack.
GRADIENT_FUNCTIONS = frozenset({"torch.autograd.grad", "torch.autograd.functional.vjp"})


def takes_gradients(call: cst.Call, names: TorchNames) -> bool:
    """`torch.autograd.grad(...)` (`autograd.grad` however imported), `torch.autograd.functional.vjp(...)`."""
    func = call.func
    return names.qualified_name(func) in GRADIENT_FUNCTIONS or (
        type(func) is cst.Attribute and func.attr.value == "grad" and (dotted_name(func) or "").endswith("autograd.grad"))


def backward_calls(function: FunctionFacts, facts) -> list[Backward]:
    """The autograd backward calls of a function (`facts`: the ModuleFacts, which knows the file's
    classes: `layer.backward(grad)` on an object of a class of the file is that class's method)."""
    found = []
    for call, statement in function.call_statement.items():
        loss = backpropagated_expression(call, function, facts)
        if loss is not None:
            found.append(Backward(call, loss, statement))
    return found


def backpropagated_expression(call: cst.Call, function: FunctionFacts, facts,
                              seen: frozenset = frozenset()) -> Optional[cst.BaseExpression]:
    """What an autograd backward call backpropagates (the loss), or None when the call is not one."""
    func = call.func
    if type(func) is not cst.Attribute:
        return None
    method = func.attr.value
    positional = [arg.value for arg in call.args if arg.keyword is None]
    if method == "manual_backward":
        return positional[0] if positional else None
    if method != "backward":
        return None
    receiver = func.value
    # `scaler.scale(loss).backward()`: AMP's scaler multiplies; the loss is inside.
    if type(receiver) is cst.Call and type(receiver.func) is cst.Attribute \
            and receiver.func.attr.value == "scale" and receiver.args:
        return receiver.args[0].value
    own = _own_backward(call, receiver, function, facts, seen)
    if own is not _AUTOGRAD:
        return own
    if _result_kept(call, function) and (not facts.names.imports_torch
                                         or object_of_an_unknown_class(receiver, function, facts)):
        # Autograd's backward returns None: in a file that never imports torch, `dp =
        # criterion.backward(out, y)` is a hand-written one of a class imported from another file (a
        # NumPy course's own layers); so it is where torch is imported, on an object built by a class
        # that is not torch's (`upsample = Upsample1d(2)`, star-imported from the course's own module:
        # an autograder's `backward_res = upsample.backward(forward_res)`). (A loss module's `backward()`
        # may return its loss tensor, and accumulating that keeps the graph: one reached otherwise.)
        return None
    if positional and not _is_tensor(receiver, function):
        # `accelerator.backward(loss)`, `torch.autograd.backward(loss)`: the loss is the argument.
        return positional[0]
    return receiver


def backward_values_used(facts) -> bool:
    """Does the file use the value of a `.backward(...)` call (`dp = criterion.backward(out, y)`,
    `model.backward(x, criterion.backward(out, y))`)? Autograd's returns None: such a backward is
    written by hand (a course's NumPy framework)."""
    for function in facts.all_functions():
        for call, statement in function.call_statement.items():
            if type(call.func) is cst.Attribute and call.func.attr.value == "backward" \
                    and not (type(statement) is cst.Expr and statement.value is call):
                return True
    return False


def object_of_an_unknown_class(receiver: cst.BaseExpression, function: FunctionFacts, facts) -> bool:
    """Is the receiver a name every binding of which is an object built by a class that is neither
    torch's nor the file's (`Upsample1d(factor)`, a capitalised name from another module)?"""
    if type(receiver) is not cst.Name:
        return False
    bindings = function.bindings_at(receiver)
    if not bindings:
        return False
    for binding in bindings:
        value = binding.value
        if binding.kind != "assign" or type(value) is not cst.Call:
            return False
        name = value.func.attr.value if type(value.func) is cst.Attribute else \
            value.func.value if type(value.func) is cst.Name else ""
        if not name[:1].isupper() or facts.names.qualified_name(value.func) is not None or name in facts.classes:
            return False
    return True


def _result_kept(call: cst.Call, function: FunctionFacts) -> bool:
    """The call's value is assigned or returned (`grad_input = layer.backward(x, grad_output)`)."""
    statement = function.call_statement.get(call)
    return type(statement) in (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return) and statement.value is call


# ------------------------------------------------- backward methods of the file's own classes

_AUTOGRAD = cst.Name("autograd")  # a sentinel: "not a class of the file, autograd's backward"


def _own_backward(call: cst.Call, receiver: cst.BaseExpression, function: FunctionFacts, facts,
                  seen: frozenset):
    """Courses write backpropagation by hand: a class of the file with `forward`, `backward` and
    `step` over NumPy arrays, and `layer.backward(grad)` is a call of that method, not autograd.
    An object of a class the file defines is what its `backward` method does: the argument that
    method backpropagates with autograd (a trainer's `def backward(self, loss): loss.backward()`),
    or None (not autograd at all). Where the receiver's class is not known (a loop variable over
    layers, an argument) in a file that defines such hand-written backward methods, and nothing
    but this call says the receiver is a tensor, the call is taken as one of them: None. A method
    that runs autograd on the object's own state (a style-transfer loss module's `def
    backward(self): self.loss.backward(retain_graph=True); return self.loss`) backpropagates no
    expression of the caller's: None too. The class of a receiver is followed through what a
    function of the file returns (a hand-written engine's `loss = squared_error(...)`).
    _AUTOGRAD otherwise."""
    classes = _receiver_classes(receiver, function, facts)
    if classes is None:
        if facts.names.qualified_name(receiver) is not None or (
                _is_tensor(receiver, function) and not _tensor_only_by_this_use(receiver, function)):
            return _AUTOGRAD
        handwritten = [local for local in facts.classes.values()
                       if _backward_method(local, facts) is not None and not _is_autograd_function(local, facts)
                       and _method_backpropagates(local, facts, seen) is None]
        return None if handwritten else _AUTOGRAD
    results = []
    for local in classes:
        if _is_autograd_function(local, facts):
            return _AUTOGRAD
        method = _backward_method(local, facts)
        if method is None:
            if not _bases_all_local(local, facts):
                return _AUTOGRAD  # `backward` may come from a base class we cannot see
            return None  # no such method: not an autograd call (it would raise AttributeError)
        results.append(_method_backpropagates(local, facts, seen))
    positions = {position for position in results}
    if len(positions) != 1 or None in positions:
        return None
    position = positions.pop()
    positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    return positional[position] if position < len(positional) else None


def _tensor_only_by_this_use(receiver: cst.BaseExpression, function: FunctionFacts) -> bool:
    """Nothing but a method call such as `.backward()` says the receiver is a tensor: a loop variable
    or an argument not annotated as one (`for sl in style_losses: sl.backward()`). In a file whose
    classes define `backward` methods of their own, it may be one of those objects."""
    if not isinstance(receiver, cst.Name):
        return False
    bindings = function.bindings_at(receiver)
    if not bindings:
        return False
    for binding in bindings:
        if binding.kind == "loop":
            continue
        if binding.kind == "param" and isinstance(binding.statement, cst.Param) and (
                binding.statement.annotation is None
                or "Tensor" not in (dotted_name(binding.statement.annotation.annotation) or "")):
            continue
        return False
    return True


def _receiver_classes(receiver: cst.BaseExpression, function: FunctionFacts, facts) -> Optional[list]:
    """The classes of this file the receiver is surely an object of (`net = Net(...)`, `self.net`
    assigned `Net(...)`, `self` in a method); None when that is not known."""
    if type(receiver) is cst.Name and receiver.value == "self" and function.class_name in facts.classes:
        return [facts.classes[function.class_name]]
    if isinstance(receiver, cst.Name):
        bindings = facts.reaching(receiver, function)[1]  # a global too
        annotated = [_annotated_class(binding, facts) for binding in bindings]
        if bindings and all(annotated):
            return annotated  # `def train(net: TwoLayer, ...)`
        values = [binding.value for binding in bindings]
    elif isinstance(receiver, cst.Attribute) and isinstance(receiver.value, cst.Name) \
            and receiver.value.value == "self" and function.class_name in facts.classes:
        values = list(facts.attribute_values(facts.classes[function.class_name], receiver.attr.value))
    else:
        return None
    classes = []
    for value in values:
        found = _classes_made_by(value, function, facts, frozenset())
        if found is None:
            return None
        classes.extend(found)
    return classes or None


def _annotated_class(binding, facts):
    """The class of the file a parameter is annotated with (`net: TwoLayer`), or None."""
    if binding.kind != "param" or not isinstance(binding.statement, cst.Param) or binding.statement.annotation is None:
        return None
    return facts.classes.get(dotted_name(binding.statement.annotation.annotation) or "")




def _classes_made_by(value, function: FunctionFacts, facts, seen: frozenset) -> Optional[list]:
    """The classes of this file a value is surely an object of: `Net(...)`; what a function of the
    file returns (`loss = squared_error(model, xs, ys)` returning a hand-written engine's `Value`);
    a name every binding of which is one; `a + b` with `a` one (a class that defines its own
    arithmetic returns its own objects, as an autograd engine written by hand does). None when not
    known."""
    if len(seen) > 6:
        return None
    if isinstance(value, cst.BinaryOperation):
        return _classes_made_by(value.left, function, facts, seen)
    if isinstance(value, cst.Name):
        bindings = [b for b in function.bindings_at(value) if b not in seen]
        made = [b for b in bindings if b.kind != "augassign"]
        if not made or any(b.value is None or b.kind not in ("assign", "walrus") for b in made):
            return None
        classes = []
        for binding in made:
            found = _classes_made_by(binding.value, function, facts, seen | {binding})
            if found is None:
                return None
            classes.extend(found)
        if len(made) < len(bindings) and not all(_defines_arithmetic(local, facts) for local in classes):
            return None  # `loss += term`: an object of its own class only if the class says how to add
        return classes or None
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) \
            and value.func.attr.value in MODULE_RETURNING_METHODS:
        found = _classes_made_by(value.func.value, function, facts, seen)
        return found if found and all(facts.is_module_class(local) for local in found) else None
    if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Name):
        return None
    local = facts.classes.get(value.func.value)
    if local is not None:
        return [local]
    defined = facts.module_function_called(value.func, function)
    if defined is None or defined in seen:
        return None
    body = facts.function_facts(defined)
    returns = [statement.value for statement in body.statement_order
               if isinstance(statement, cst.Return) and statement.value is not None]
    classes = []
    for returned in returns:
        found = _classes_made_by(returned, body, facts, seen | {defined})
        if found is None:
            return None
        classes.extend(found)
    return classes or None


def _defines_arithmetic(local, facts) -> bool:
    """Does a class of the file define how its objects add (`__add__`, `__iadd__`), as a hand-written
    autograd engine's value class does?"""
    return any(facts.method_of(local, name) is not None for name in ("__add__", "__iadd__", "__radd__"))


def _backward_method(local, facts, visited: Optional[set] = None) -> Optional[cst.FunctionDef]:
    """The `backward` method a class of the file defines or inherits from another class of the file."""
    method = local.methods.get("backward")
    if method is not None:
        return method
    visited = visited if visited is not None else {local.name}
    for base in local.base_names:
        parent = facts.classes.get(base)
        if parent is not None and parent.name not in visited:
            visited.add(parent.name)
            found = _backward_method(parent, facts, visited)
            if found is not None:
                return found
    return None


def _bases_all_local(local, facts, visited: Optional[set] = None) -> bool:
    """Does the class derive only from `object` and classes of this file (so every method is in sight)?"""
    visited = visited if visited is not None else {local.name}
    for base in local.base_names:
        if base == "object":
            continue
        parent = facts.classes.get(base)
        if parent is None:
            return False
        if parent.name not in visited:
            visited.add(parent.name)
            if not _bases_all_local(parent, facts, visited):
                return False
    return True


def _is_autograd_function(local, facts) -> bool:
    """`class Clip(torch.autograd.Function)`: its `backward` is autograd's, called by autograd."""
    for base in local.node.bases:
        qualified = facts.names.qualified_name(base.value) or ""
        if qualified.startswith("torch.autograd"):
            return True
    return False


def _method_backpropagates(local, facts, seen: frozenset) -> Optional[int]:
    """Which argument (counted after `self`) the class's `backward` method backpropagates with
    autograd (`def backward(self, loss): self.scaler.scale(loss).backward()`); None when it does
    not (hand-written backpropagation over arrays)."""
    method = _backward_method(local, facts)
    if method is None or method in seen:
        return None
    if method in facts.backward_positions:
        return facts.backward_positions[method]
    position = _position_backpropagated(method, facts, seen | {method})
    facts.backward_positions[method] = position
    return position


def _position_backpropagated(method: cst.FunctionDef, facts, seen: frozenset) -> Optional[int]:
    method_facts = facts.function_facts(method)
    parameters = [binding for binding in method_facts.parameters if binding.name not in ("self", "cls")]
    for inner, _ in method_facts.call_statement.items():
        loss = backpropagated_expression(inner, method_facts, facts, seen)
        root = _root(loss) if loss is not None else None
        if root is None:
            continue
        for binding in method_facts.bindings_at(root):
            if binding in parameters:
                return parameters.index(binding)
    return None


def _root(expr) -> Optional[cst.Name]:
    while type(expr) in (cst.Attribute, cst.Subscript) or (
            type(expr) is cst.Call and type(expr.func) is cst.Attribute):
        expr = expr.value if type(expr) is not cst.Call else expr.func.value
    return expr if type(expr) is cst.Name else None


def flowing_bindings(expr: cst.BaseExpression, function: FunctionFacts, through_detach: bool = True) -> set:
    """Every assignment whose value flows into `expr`, through names, followed back transitively;
    without `through_detach`, only those a gradient of `expr` reaches (not through `x.detach()`)."""
    found: set = set()
    pending = [expr]
    while pending:
        for node in _walk_expression(pending.pop(), through_detach):
            if type(node) is cst.Name:
                for binding in function.bindings_at(node):
                    if binding not in found:
                        found.add(binding)
                        if binding.value is not None:
                            pending.append(binding.value)
                        elif binding.kind == "augassign" and type(binding.statement) is cst.AugAssign:
                            # `loss += term`: the sum holds the term and what it held before.
                            pending.extend((binding.statement.value, binding.statement.target))
    return found


def backpropagated_bindings(function: FunctionFacts, backwards: list[Backward]) -> set:
    """The assignments whose values some loss this function backpropagates sends gradients to
    (`d(samples.detach())` sends none to `samples`)."""
    found: set = set()
    for backward in backwards:
        found |= flowing_bindings(backward.loss, function, through_detach=False)
    return found


# Calls whose result carries no gradient back to their receiver.
GRADIENT_CUTS = frozenset({"detach", "item", "tolist", "numpy"})


def _walk_expression(node: cst.CSTNode, through_detach: bool = True):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if type(current) in (cst.Lambda, cst.FunctionDef, cst.ClassDef):
            continue
        if not through_detach and type(current) is cst.Call and type(current.func) is cst.Attribute \
                and current.func.attr.value in GRADIENT_CUTS:
            continue
        stack.extend(child_nodes(current))


def _is_tensor(expr: cst.BaseExpression, function: FunctionFacts) -> bool:
    if type(expr) is cst.Name:
        bindings = function.bindings_at(expr)
        return bool(bindings) and all(binding.tensorness.is_tensor for binding in bindings)
    return type(expr) is not cst.Attribute


# ---------------------------------------------------------------- modules by use

# Methods that, among what training code calls, only an nn.Module has (not a tensor, not an optimizer).
MODULE_ONLY_METHODS = frozenset({"eval", "train", "parameters", "named_parameters", "modules", "named_modules",
                                 "children", "named_children", "register_forward_hook"})


def modules_by_use(function: FunctionFacts) -> frozenset:
    """Names (`model`, `self.net`) this function calls a module-only method on: they are modules."""
    found = set()
    for call in function.call_statement:
        func = call.func
        if type(func) is cst.Attribute and func.attr.value in MODULE_ONLY_METHODS:
            key = module_key(func.value)
            if key is not None:
                found.add(key)
    return frozenset(found)


def eval_mode_switches(function: FunctionFacts) -> dict:
    """Modules put in evaluation mode (`model.eval()`, `model.train(False)`) -> the earliest statement order."""
    found: dict = {}
    for call, statement in function.call_statement.items():
        func = call.func
        if type(func) is not cst.Attribute:
            continue
        evaluating = (func.attr.value == "eval" and not call.args) or (
            func.attr.value == "train" and len(call.args) == 1 and type(call.args[0].value) is cst.Name
            and call.args[0].value.value == "False")
        key = module_key(func.value) if evaluating else None
        if key is not None:
            order = function.order_of(statement)
            found[key] = min(order, found.get(key, order))
    return found


# ---------------------------------------------------------------- optimizers and steps


@dataclass(frozen=True)
class OptimizerStep:
    optimizer: str  # "optD", "self.opt_d"
    call: cst.Call
    statement: cst.CSTNode
    order: int


@dataclass(frozen=True)
class GradSwitch:
    """`netG.requires_grad_(False)`, `p.requires_grad = False` over `netG.parameters()`, `set_requires_grad(netG, False)`.
    `enabled` is None where the switch sets a value the analysis cannot read (`toggle_grad(G, mode ==
    "joint")`): the parameters may be off, and what rests on their being on stays silent."""

    modules: frozenset
    enabled: Optional[bool]
    order: int

    def covers(self, key: Optional[str]) -> bool:
        """Does the switch set the parameters of `key` (a module or a parameter): switched itself, or
        held by a switched module (`G.decoder`, `net.fc.weight`, `layers[0]` of `G`, `net`, `layers`)?"""
        return key is not None and any(key == module or key.startswith((module + ".", module + "["))
                                       for module in self.modules)


def switched_off_at(key: Optional[str], switches: list[GradSwitch], order: int) -> bool:
    """Were the parameters of `key` (a module or a parameter) off at `order`: set so by the last switch
    before it that covers them (its own, or that of a module holding them)? A switch whose value is
    not known (`toggle_grad(G, flag)`) may have set them off: yes."""
    state: Optional[bool] = True
    for switch in switches:
        if switch.order < order and switch.covers(key):
            state = switch.enabled
    return not state


def module_key(expr: cst.BaseExpression) -> Optional[str]:
    """`netD`, `self.D`: how a module is named; `self.D.forward` counts as `self.D`. A network held
    in a container under a constant key is named with it: `nets["D"]`, `self.models["disc"]`,
    `self.nets[0]` (string keys always in double quotes)."""
    name = dotted_name(expr)
    if name is None:
        if type(expr) is cst.Attribute and expr.attr.value == "forward":
            return module_key(expr.value)
        if type(expr) is cst.Subscript:
            return _container_key(expr)
        return None
    return name[: -len(".forward")] if name.endswith(".forward") else name


def _container_key(expr: cst.Subscript) -> Optional[str]:
    index = single_index(expr)
    if type(index) is cst.Integer:
        shown = index.value
    elif type(index) is cst.SimpleString and index.value[:1] in ("'", '"') and "\\" not in index.value:
        quote = index.value[0]
        text = index.value[1:-1] if not index.value.startswith(quote * 3) else None
        if text is None or '"' in text:
            return None
        shown = f'"{text}"'
    else:
        return None
    base = module_key(expr.value)
    return f"{base}[{shown}]" if base is not None else None


def parameter_owners(expr: cst.CSTNode) -> frozenset:
    """Modules whose `.parameters()` (or `.named_parameters()`) appear in an expression."""
    owners = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if type(node) is cst.Call and type(node.func) is cst.Attribute \
                and node.func.attr.value in ("parameters", "named_parameters"):
            key = module_key(node.func.value)
            if key is not None:
                owners.add(key)
        stack.extend(child_nodes(node))
    return frozenset(owners)


def _is_scheduler(qualified: Optional[str], callee: str) -> bool:
    """A learning-rate scheduler (`lr_scheduler.ReduceLROnPlateau(opt_d)`, `StepLR`, timm's
    `CosineLRScheduler`): built over an optimizer, and its `step()` changes rates, not parameters."""
    return (qualified or "").startswith(("torch.optim.lr_scheduler.", "torch.optim.swa_utils.")) \
        or "schedul" in callee.lower() or callee.endswith("LR")


def optimizer_parameters(value: Optional[cst.BaseExpression], names: TorchNames) -> Optional[cst.BaseExpression]:
    """For `Adam(params, lr=...)` (any optimizer class): the `params` expression; else None."""
    if type(value) is not cst.Call or not value.args:
        return None
    qualified = names.qualified_name(value.func)
    callee = (dotted_name(value.func) or "").rpartition(".")[2]
    is_optimizer_class = (qualified or "").startswith("torch.optim.") or callee[:1].isupper() \
        or "optim" in callee.lower()
    if not is_optimizer_class or _is_scheduler(qualified, callee):
        return None
    return next((arg.value for arg in value.args if arg.keyword is None or arg.keyword.value == "params"), None)


def optimized_tensor_names(params: cst.BaseExpression, function: FunctionFacts, depth: int = 0) -> frozenset:
    """The names of the tensors an optimizer is built over when it is given tensors, not a module's
    `.parameters()`: `[W1, b1]`, `gen_params` bound to such a list, `G_params + D_params`,
    `itertools.chain(a, b)`, `[{"params": gen_params}]`. Empty when that cannot be read."""
    if depth > 4:
        return frozenset()
    if type(params) in (cst.List, cst.Tuple):
        found: frozenset = frozenset()
        for element in params.elements:
            value = element.value
            if type(element) is cst.StarredElement or type(value) in (cst.List, cst.Tuple, cst.Dict):
                found |= optimized_tensor_names(value, function, depth + 1)
            elif type(value) is cst.Name:
                found |= _tensor_or_list(value, function, depth)
        return found
    if type(params) is cst.Dict:
        for element in params.elements:
            if type(element) is cst.DictElement and type(element.key) is cst.SimpleString \
                    and element.key.value.strip("'\"") == "params":
                return optimized_tensor_names(element.value, function, depth + 1)
        return frozenset()
    if type(params) is cst.Name:
        bindings = function.bindings_at(params)
        if bindings and all(b.kind == "assign" and type(b.value) in (cst.List, cst.Tuple, cst.BinaryOperation,
                                                                     cst.Call) for b in bindings):
            return frozenset().union(*(optimized_tensor_names(b.value, function, depth + 1) for b in bindings))
        return frozenset()
    if type(params) is cst.BinaryOperation and type(params.operator) is cst.Add:
        return optimized_tensor_names(params.left, function, depth + 1) | \
            optimized_tensor_names(params.right, function, depth + 1)
    if type(params) is cst.Call and (dotted_name(params.func) or "").rpartition(".")[2] in ("list", "chain", "tuple"):
        return frozenset().union(frozenset(), *(optimized_tensor_names(arg.value, function, depth + 1)
                                                for arg in params.args))
    return frozenset()


def _tensor_or_list(name: cst.Name, function: FunctionFacts, depth: int) -> frozenset:
    """A list element: a tensor's name, or the name of another list of them."""
    bindings = function.bindings_at(name)
    if bindings and all(type(b.value) in (cst.List, cst.Tuple) for b in bindings):
        return frozenset().union(*(optimized_tensor_names(b.value, function, depth + 1) for b in bindings))
    return frozenset({name.value})


def _iterated_dict(iterated: cst.BaseExpression) -> tuple:
    """`nets`, `nets.keys()`, `nets.items()`: (the dict, "keys" or "items"); (None, "") otherwise."""
    if type(iterated) is cst.Call and type(iterated.func) is cst.Attribute and not iterated.args \
            and iterated.func.attr.value in ("keys", "items"):
        return iterated.func.value, iterated.func.attr.value
    return (iterated, "keys") if dotted_name(iterated) is not None else (None, "")


def _loop_names(target: cst.BaseExpression, parts: str) -> tuple:
    """(the key's name, the value's name or None) a loop over a dict binds."""
    if parts == "keys" and type(target) is cst.Name:
        return target.value, None
    if parts == "items" and type(target) in (cst.Tuple, cst.List) and len(target.elements) == 2 \
            and all(type(element.value) is cst.Name for element in target.elements):
        return target.elements[0].value.value, target.elements[1].value.value
    return None, None


def _written_out_keys(value: Optional[cst.BaseExpression]) -> Optional[list]:
    """The keys of `{"G": ..., "D": ...}` or `dict(G=..., D=...)`, all constant; None otherwise."""
    if type(value) is cst.Dict:
        keys = [_literal_key(element.key) if type(element) is cst.DictElement else None for element in value.elements]
    elif type(value) is cst.Call and type(value.func) is cst.Name and value.func.value == "dict" \
            and all(arg.keyword is not None for arg in value.args):
        keys = [arg.keyword.value for arg in value.args]
    else:
        return None
    return keys if keys and all(isinstance(key, str) for key in keys) else None


def _with_element(expression: cst.BaseExpression, networks: cst.BaseExpression, key_name: str,
                  value_name: Optional[str], key: str) -> cst.BaseExpression:
    """`expression` for one key: the loop's key name read as that key, and its value name (and
    `networks[key_name]`) as the dict's element under it (`nets["D"]`)."""
    element = cst.Subscript(value=networks, slice=[cst.SubscriptElement(cst.Index(cst.SimpleString(f'"{key}"')))])

    class Substitute(cst.CSTTransformer):
        def leave_Subscript(self, original, updated):
            index = single_index(original)
            if type(index) is cst.Name and index.value == key_name and original.value.deep_equals(networks):
                return element
            return updated

        def leave_Name(self, original, updated):
            return element if value_name is not None and original.value == value_name else updated

    return expression.visit(Substitute())


def optimizer_modules(value: Optional[cst.BaseExpression], names: TorchNames,
                      function: Optional[FunctionFacts] = None) -> frozenset:
    """For `Adam(netD.parameters(), ...)` (any optimizer class): {"netD"}; else empty.

    The parameters may also come through a variable of the same function
    (`params = filter(..., vae.parameters()); AdamW(params)`).
    """
    params = optimizer_parameters(value, names)
    if params is None:
        return frozenset()
    owners = parameter_owners(params)
    if not owners and type(params) is cst.Name and function is not None:
        for binding in function.bindings_at(params):
            if binding.value is not None:
                owners |= parameter_owners(binding.value)
    return owners


# LightningModule's switches of all its parameters' `requires_grad`, by the value they set.
LIGHTNING_SWITCHES = {"freeze": False, "unfreeze": True}


class TrainingFacts:
    """Which optimizer updates which module, module-wide (optimizers are often made in one
    function and stepped in another, under the same names)."""

    def __init__(self, facts) -> None:
        self.facts = facts
        self.optimizers: dict[str, frozenset] = {}
        self._module_aliases: dict[str, list] = {}  # a module's name -> (`self.D`, the method that sets it)
        # A module's plain name -> the functions that build an optimizer over it (`trains_module`).
        self._trained_in: dict[str, list] = {}
        for function in facts.all_functions():
            for binding in function.bindings:
                modules = optimizer_modules(binding.value, facts.names, function)
                if modules:
                    self.optimizers[binding.name] = self.optimizers.get(binding.name, frozenset()) | modules
                    for module in modules:
                        self._trained_in.setdefault(module, []).append(function)
            self._record_attribute_optimizers(function)
            self._record_held_optimizers(function)
        # `self.D = D` then `Adam(D.parameters())`: the optimizer trains `self.D` too.
        for key, modules in list(self.optimizers.items()):
            extra = set()
            for module in modules:
                for alias, method in self._module_aliases.get(module, ()):
                    if self._same_variable(module, method):
                        extra.add(alias)
                        self._trained_in.setdefault(alias, []).append(method)
            self.optimizers[key] = modules | frozenset(extra)
        self.configured = self._configured_optimizers()
        self._lightning_unpacking()
        self._roles: dict = {}
        self._tensor_networks: Optional[dict] = None
        self._held: dict = {}
        self.held_notes: dict = {}  # a held optimizer's key -> where its dicts are, for messages
        self._switching: dict = {}  # a function of the file -> what switch_of_parameters says of it
        self._switches: dict = {}  # a function's node -> its grad switches (grad_switches), worked out once

    def trained_modules(self) -> frozenset:
        """The modules (by key: `netG`, `self.D`) some optimizer of the file trains."""
        return frozenset().union(*self.optimizers.values()) if self.optimizers else frozenset()

    def trains_module(self, key: Optional[str], function: FunctionFacts) -> bool:
        """Is the module `key`, as `function` reads it, one an optimizer of the file trains? Optimizers
        are made in one function and stepped in another under the same names, so a name counts
        file-wide; but not a parameter of `function` where every optimizer over that name is built in
        other functions, each over its own parameter or local of that name: another variable (a
        notebook's torch `train_gan(generator, ...)` beside its Keras `train_dcgan(generator, ...)`).
        What a call passes for such a parameter decides instead (the callers' values)."""
        if key is None or key not in self.trained_modules():
            return False
        builders = self._trained_in.get(key)
        if not builders:
            return True
        if key.startswith("self.") and key.count(".") == 1:
            # `self.generator` of one class is not that of another class (a Keras model's wrapper
            # beside a torch trainer), unless one extends the other.
            return function.class_name is None or any(
                builder.class_name is None or self._related_classes(builder.class_name, function.class_name)
                for builder in builders)
        return "." in key or self._same_variable(key, function)

    def _same_variable(self, name: str, function: FunctionFacts) -> bool:
        """May `name`, as `function` reads it, be the module the optimizers over that name train? Not a
        parameter of `function` when every such optimizer is built in other functions over a parameter
        or local of their own."""
        if name not in {parameter.name for parameter in function.parameters}:
            return True
        return any(builder is function or builder.number == 0 or not _local_name(builder, name)
                   for builder in self._trained_in.get(name, ()))

    def _related_classes(self, first: str, second: str) -> bool:
        """Is one class the other, or a class of the file that extends it?"""
        return first in self.facts.lineage(second) or second in self.facts.lineage(first)

    def tensor_networks(self) -> dict:
        """Optimizers built over raw tensors (`Adam([W1, b1, W2, b2])`, `Adam(gen_params)`) -> the
        functions and lambdas of the file whose output is computed from those tensors, attached: a
        function of tensors an optimizer trains is a network over them (`def G(z): return
        relu(z @ W1 + b1) @ W2`), named as it is called (`G`). Computed on first use: only files that
        build such an optimizer pay for the function summaries it reads."""
        if self._tensor_networks is None:
            self._tensor_networks = {}
            stepped = set()
            for call in self.facts.method_calls("step"):
                stepped.add(dotted_name(call.func.value))
                if call.args:
                    stepped.add(dotted_name(call.args[0].value))  # `scaler.step(opt)`
            stepped -= set(self.optimizers) | {None}
            if not stepped:
                return self._tensor_networks
            for function in self.facts.all_functions():
                for binding in function.bindings:
                    if binding.kind != "assign" or binding.name not in stepped:
                        continue
                    params = optimizer_parameters(binding.value, self.facts.names)
                    if params is None or parameter_owners(params):
                        continue
                    tensors = optimized_tensor_names(params, function)
                    networks = self._functions_over(tensors, function) if tensors else frozenset()
                    if networks:
                        self._tensor_networks[binding.name] = self._tensor_networks.get(binding.name, frozenset()) \
                            | networks
        return self._tensor_networks

    def _functions_over(self, tensors: frozenset, function: FunctionFacts) -> frozenset:
        """Functions and lambdas visible where the optimizer is built whose returned value is computed
        from one of `tensors` (names of that scope)."""
        module = self.facts.function_facts(self.facts.module)
        candidates = []  # (node, defining scope, name, the names of that scope it reads)
        scopes = [function] if function is module else [function, module]
        for scope in scopes:
            # The module's functions read module-level names: only those the function does not bind.
            wanted = tensors if scope is function else \
                frozenset(name for name in tensors if not any(b.name == name for b in function.bindings))
            if not wanted:
                continue
            for binding in scope.bindings:
                if binding.kind == "def" and type(binding.statement) is cst.FunctionDef:
                    candidates.append((binding.statement, scope, binding.name, wanted))
                elif binding.kind == "assign" and type(binding.value) is cst.Lambda:
                    candidates.append((binding.value, scope, binding.name, wanted))
        found = set()
        for node, scope, name, wanted in candidates:
            summary = self.facts.summary(node, scope, name)
            if summary is not None and summary.free_tensors & wanted:
                found.add(name)
        return frozenset(found)

    def _record_held_optimizers(self, function: FunctionFacts) -> None:
        """Optimizers held in a dict under constant keys, each over a network held the same way:
        `optims = {"G": Adam(G.parameters()), ...}`, `optims["D"] = Adam(...)`, and, for each key of a
        dict of networks written out (`nets = {"G": ..., "D": ...}`), `for k in nets: optims[k] =
        Adam(nets[k].parameters())` or `{k: Adam(v.parameters()) for k, v in nets.items()}`:
        {'optims["D"]': {'nets["D"]'}}."""
        names = self.facts.names
        for statement in function.statement_order:
            if type(statement) is not cst.Assign or len(statement.targets) != 1:
                continue
            target, value = statement.targets[0].target, statement.value
            holder = dotted_name(target)
            held: list = []  # (key, the expression that makes the optimizer)
            if holder is not None and type(value) is cst.Dict:
                held = [(_literal_key(element.key), element.value) for element in value.elements
                        if type(element) is cst.DictElement]
            elif holder is not None and type(value) is cst.DictComp:
                held = self._comprehension_entries(value, function)
            elif type(target) is cst.Subscript and module_key(target) is not None:
                holder, held = None, [(module_key(target), value)]
            elif type(target) is cst.Subscript and dotted_name(target.value) is not None:
                held = self._loop_entries(statement, target, function)
                holder = dotted_name(target.value) if held else None
            for key, made in held:
                modules = optimizer_modules(made, names, function) if key is not None else frozenset()
                if modules:
                    full = f'{holder}["{key}"]' if holder is not None else key
                    self.optimizers[full] = self.optimizers.get(full, frozenset()) | modules

    def _comprehension_entries(self, value: cst.DictComp, function: FunctionFacts) -> list:
        """`{k: Adam(v.parameters()) for k, v in nets.items()}` (or `for k in nets`, reading `nets[k]`):
        one (key, the optimizer's expression for that key's network) per key of `nets`'s dict."""
        loop = value.for_in
        if loop.inner_for_in is not None or loop.ifs or type(value.key) is not cst.Name:
            return []
        networks, parts = _iterated_dict(loop.iter)
        keys = self._dict_keys(networks, function) if networks is not None else None
        if not keys:
            return []
        key_name, value_name = _loop_names(loop.target, parts)
        if key_name != value.key.value:
            return []
        return [(key, _with_element(value.value, networks, key_name, value_name, key)) for key in keys]

    def _loop_entries(self, statement: cst.Assign, target: cst.Subscript, function: FunctionFacts) -> list:
        """`optims[k] = Adam(nets[k].parameters())` in `for k in nets:` (or `nets.keys()`, or
        `for k, net in nets.items()`): one entry per key of `nets`'s dict."""
        index = single_index(target)
        loops = function.loops_of.get(statement, ())
        if type(index) is not cst.Name or not loops or type(loops[-1]) is not cst.For:
            return []
        loop = loops[-1]
        networks, parts = _iterated_dict(loop.iter)
        keys = self._dict_keys(networks, function) if networks is not None else None
        key_name, value_name = _loop_names(loop.target, parts)
        if not keys or key_name != index.value:
            return []
        return [(key, _with_element(statement.value, networks, key_name, value_name, key)) for key in keys]

    def _dict_keys(self, networks: cst.BaseExpression, function: FunctionFacts) -> Optional[list]:
        """The constant keys of the dict `networks` names, when every value it is given is written out
        (`{"G": ..., "D": ...}`, `dict(G=..., D=...)`), here or at the module's top level."""
        name = dotted_name(networks)
        if name is None:
            return None
        values = []
        if name.startswith("self.") and function.class_name in self.facts.classes:
            values = self.facts.attribute_values(self.facts.classes[function.class_name], name[len("self."):])
        elif type(networks) is cst.Name:
            bindings = function.bindings_at(networks)
            if not bindings:
                scope = self.facts.summaries.scope_of_name(name, function)
                bindings = [b for b in scope.bindings if b.name == name] if scope is not None else []
            values = [binding.value for binding in bindings]
        keys: list = []
        for value in values:
            found = _written_out_keys(value)
            if found is None:
                return None
            keys.extend(key for key in found if key not in keys)
        return keys or None

    def _record_attribute_optimizers(self, function: FunctionFacts) -> None:
        """`self.opt_d = Adam(...)` and `self.D = D` inside a method."""
        for statement in function.statement_order:
            if type(statement) is not cst.Assign or len(statement.targets) != 1:
                continue
            target = statement.targets[0].target
            if type(target) is cst.Tuple and type(statement.value) is cst.Tuple \
                    and len(target.elements) == len(statement.value.elements):
                # `self.G, self.D = G, D`
                for element, value in zip(target.elements, statement.value.elements):
                    key = dotted_name(element.value)
                    if key is not None and key.startswith("self.") and type(value.value) is cst.Name:
                        self._module_aliases.setdefault(value.value.value, []).append((key, function))
                continue
            if not (type(target) is cst.Attribute and type(target.value) is cst.Name
                    and target.value.value == "self"):
                continue
            key = f"self.{target.attr.value}"
            modules = optimizer_modules(statement.value, self.facts.names, function)
            if modules:
                self.optimizers[key] = self.optimizers.get(key, frozenset()) | modules
                for module in modules:
                    self._trained_in.setdefault(module, []).append(function)
            elif type(statement.value) is cst.Name:
                self._module_aliases.setdefault(statement.value.value, []).append((key, function))

    def _configured_optimizers(self) -> list[str]:
        """Lightning: the optimizers `configure_optimizers` returns, in order."""
        for class_facts in self.facts.classes.values():
            method = class_facts.methods.get("configure_optimizers")
            if method is None:
                continue
            function = self.facts.function_facts(method)
            for escape in function.escapes:
                if escape.how != "returned":
                    continue
                value = escape.node
                if type(value) is cst.Tuple and value.elements and type(value.elements[0].value) in (cst.List, cst.Tuple):
                    value = value.elements[0].value  # `return [opt_g, opt_d], [schedulers]`
                if type(value) in (cst.List, cst.Tuple):
                    keys = [dotted_name(element.value) or "" for element in value.elements]
                    for key, element in zip(keys, value.elements):
                        modules = self._modules_of_returned(element.value, function)
                        if modules and key:
                            self.optimizers[key] = self.optimizers.get(key, frozenset()) | modules
                    return keys
        return []

    def _modules_of_returned(self, expr, function: FunctionFacts) -> frozenset:
        if type(expr) is cst.Name:
            return frozenset().union(*(optimizer_modules(b.value, self.facts.names) for b in function.bindings_at(expr)))
        return optimizer_modules(expr, self.facts.names)

    def _lightning_unpacking(self) -> None:
        """`opt_g, opt_d = self.optimizers()` names the configured optimizers in order."""
        if not self.configured:
            return
        for call in self.facts.method_calls("optimizers"):
            if not (type(call.func.value) is cst.Name and call.func.value.value == "self"):
                continue
            for function in self.facts.all_functions():
                statement = function.call_statement.get(call)
                if type(statement) is cst.Assign and type(statement.targets[0].target) in (cst.Tuple, cst.List):
                    targets = statement.targets[0].target.elements
                    for element, configured in zip(targets, self.configured):
                        key = dotted_name(element.value)
                        if key and configured in self.optimizers:
                            self.optimizers[key] = self.optimizers[configured]

    def optimizers_of(self, function: FunctionFacts) -> dict:
        """The optimizers as seen in one function: those built in the file, the function's
        optimizer arguments paired with its network arguments (gan_roles), and optimizers held in
        dicts beside their network (`D["solver"]` trains `D["model"]`)."""
        roles = self.argument_roles(function)
        raw = self.tensor_networks()
        held = self.held_optimizers(function)
        if not roles.optimizers and not raw and not held:
            return self.optimizers
        return {**raw, **held, **self.optimizers, **roles.optimizers}

    def held_optimizers(self, function: FunctionFacts) -> dict:
        """Optimizers stepped as a dict's element beside the network they train: `for D in
        discriminators: ... D["solver"].step()` where every dict of `discriminators` is a literal
        `{"model": m, "solver": Adam(m.parameters())}` (in the list's literal, or appended to it):
        {'D["solver"]': {'D["model"]'}}. The note for messages is in `held_notes`."""
        found = self._held.get(function.node)
        if found is not None:
            return found
        found = self._held[function.node] = {}
        for key, call, _ in self._step_calls(function):
            receiver = call.args[0].value if call.args else call.func.value
            if key in found or type(receiver) is not cst.Subscript or type(receiver.value) is not cst.Name:
                continue
            held = self._held_in_dicts(receiver, function)
            if held is not None:
                found[key], self.held_notes[key] = held
        return found

    def _held_in_dicts(self, receiver: cst.Subscript, function: FunctionFacts):
        """(the network keys, the note) for `D["solver"]`; None unless every dict agrees."""
        slices = receiver.slice
        index = _literal_key(slices[0].slice.value) if len(slices) == 1 and type(slices[0].slice) is cst.Index \
            else None
        holder = receiver.value
        if index is None:
            return None
        dicts, where = self._dicts_named(holder, function)
        if not dicts:
            return None
        keys = None
        for literal, scope in dicts:
            entries = {_literal_key(element.key): element.value for element in literal.elements
                       if type(element) is cst.DictElement}
            if len(entries) != len(literal.elements) or index not in entries:
                return None
            modules = optimizer_modules(entries[index], self.facts.names, scope)
            trained = frozenset(name for name, value in entries.items()
                                if name is not None and name != index and module_key(value) in modules)
            if not trained or (keys is not None and trained != keys):
                return None
            keys = trained
        networks = frozenset(f'{holder.value}["{name}"]' for name in keys)
        shown = sorted(keys)[0]
        return networks, f'each dict {where} holds the network under "{shown}" and its optimizer under "{index}"'

    def _dicts_named(self, holder: cst.Name, function: FunctionFacts) -> tuple:
        """The dict literals a name may be: bound to one, or a loop variable over a list of them
        (a literal, or a list the dicts are appended to). ([(dict, its scope)], where, for messages)."""
        bindings = function.bindings_at(holder)
        if not bindings:
            return [], ""
        if all(binding.kind == "assign" and type(binding.value) is cst.Dict for binding in bindings):
            return [(binding.value, function) for binding in bindings], f"`{holder.value}`"
        if len(bindings) != 1:
            return [], ""
        binding = next(iter(bindings))
        loop = binding.statement
        if binding.kind != "loop" or type(loop) is not cst.For or loop.target is not binding.target \
                or type(loop.iter) is not cst.Name:
            return [], ""
        listed = loop.iter
        scope = function
        lists = function.bindings_at(listed)
        if not lists:
            scope = self.facts.summaries.scope_of_name(listed.value, function)
            lists = [b for b in scope.bindings if b.name == listed.value] if scope is not None else []
        found = []
        for container in lists:
            elements = self.facts.containers.of(scope).elements(container)
            if not elements or not all(type(element) is cst.Dict for element in elements):
                return [], ""
            found.extend((element, scope) for element in elements)
        return found, f"of `{listed.value}`"

    def argument_roles(self, function: FunctionFacts) -> ArgumentRoles:
        roles = self._roles.get(function.node)
        if roles is None:
            stepped = [(key, function.order_of(statement)) for key, _, statement in self._step_calls(function)]
            roles = ArgumentRoles()
            if any(key not in self.optimizers for key, _ in stepped):
                backwards = [(function.order_of(b.statement), b.loss) for b in backward_calls(function, self.facts)]
                roles = argument_roles(function, self.optimizers, self._call_sites_of(function), stepped, backwards)
            self._roles[function.node] = roles
        return roles

    def _call_sites_of(self, function: FunctionFacts) -> list:
        """Calls of this function in the file, each as (call, caller): facts.call_sites_of's index
        (none when the calls are not all in sight, e.g. the function is handed on as a callback)."""
        return [(call, caller) for caller, call, _ in self.facts.call_sites_of(function) or ()]

    @staticmethod
    def _step_calls(function: FunctionFacts) -> list:
        """(key, call, statement) of `opt.step()` and AMP's `scaler.step(opt)` (keyed by `opt`)."""
        found = []
        for call, statement in function.call_statement.items():
            func = call.func
            if type(func) is cst.Attribute and func.attr.value == "step":
                key = module_key(call.args[0].value) if call.args else module_key(func.value)
                if key is not None:
                    found.append((key, call, statement))
        return found

    def steps(self, function: FunctionFacts, optimizers: Optional[dict] = None) -> list[OptimizerStep]:
        """`opt.step()` / `scaler.step(opt)` of the optimizers known in the function (or of `optimizers`,
        when a caller tells what a helper's optimizer arguments are)."""
        optimizers = self.optimizers_of(function) if optimizers is None else optimizers
        found = []
        for call, statement in function.call_statement.items():
            func = call.func
            if not (type(func) is cst.Attribute and func.attr.value == "step"):
                continue
            key = module_key(func.value)
            if key not in optimizers and call.args:
                key = module_key(call.args[0].value)  # AMP: `scaler.step(optD)`
            if key in optimizers:
                found.append(OptimizerStep(key, call, statement, function.order_of(statement)))
        return sorted(found, key=lambda step: step.order)

    def _switched_by_helper(self, call: cst.Call, function: FunctionFacts) -> Optional[tuple[frozenset, Optional[bool]]]:
        """The modules a call of a function that switches its argument's parameters switches, and to
        what: `toggle_grad(model_tgt, False)` by its flag, `freeze(netG)` by the constant its body writes
        (None for a flag that is no literal); for a function the file does not define, by its name
        (`toggle_grad`, `set_requires_grad`, imported). None when the callee is not such a function."""
        resolved = self.facts.summaries.resolve_callee(call.func, function)
        if resolved is None or type(resolved[0]) is not cst.FunctionDef:
            return _switched_by_name(call)
        if resolved[0] not in self._switching:
            self._switching[resolved[0]] = switched_parameters(resolved[0])
        switch = self._switching[resolved[0]]
        if switch is None:
            return _switched_by_name(call)  # a body this reading does not follow (a list of networks)
        method = type(call.func) is cst.Attribute  # `self.toggle(net, False)`: `self` is not passed
        arguments = [arg.value for arg in call.args if arg.keyword is None]
        module_at = switch.module_at - method
        if not 0 <= module_at < len(arguments):
            return None
        flag = switch.constant
        if switch.flag_at is not None:
            flag_at = switch.flag_at - method
            if not 0 <= flag_at < len(arguments):
                return None
            flag = _literal_flag(arguments[flag_at])
        return frozenset(_module_keys_in(arguments[module_at])), flag

    def grad_switches(self, function: FunctionFacts) -> list[GradSwitch]:
        """The switches of parameters' `requires_grad` in the function, in statement order (asked by several
        rules and analyses, worked out once per function)."""
        if function.node not in self._switches:
            self._switches[function.node] = self._grad_switches(function)
        return self._switches[function.node]

    def _grad_switches(self, function: FunctionFacts) -> list[GradSwitch]:
        switches = []
        for call, statement in function.call_statement.items():
            func = call.func
            if type(func) is cst.Attribute and func.attr.value in ("toggle_optimizer", "untoggle_optimizer") \
                    and call.args:
                # Lightning: toggling one optimizer switches every other optimizer's parameters off.
                chosen = dotted_name(call.args[0].value)
                others = frozenset().union(*(modules for key, modules in self.optimizers.items() if key != chosen))
                if others:
                    switches.append(GradSwitch(others, func.attr.value == "untoggle_optimizer",
                                               function.order_of(statement)))
                continue
            flag = _boolean_argument(call)
            if type(func) not in (cst.Attribute, cst.Name):
                continue
            order = function.order_of(statement)
            if type(func) is cst.Attribute and func.attr.value in LIGHTNING_SWITCHES and not call.args \
                    and self.facts.summaries.resolve_callee(func, function) is None:
                # `model.freeze()` of a LightningModule (a method no class of the file defines): every
                # parameter off (and the module in evaluation mode); `unfreeze()` the reverse.
                modules = frozenset({module_key(func.value)} - {None})
                if modules:
                    switches.append(GradSwitch(modules, LIGHTNING_SWITCHES[func.attr.value], order))
                continue
            if type(func) is cst.Attribute and func.attr.value == "requires_grad_" and flag is not None:
                # `netG.requires_grad_(False)`, or `p.requires_grad_(False)` in `for p in netG.parameters():`
                modules = _loop_parameter_owners(func.value, statement, function) or \
                    _comprehension_parameter_owners(call, statement) or frozenset({module_key(func.value)} - {None})
                if modules:
                    switches.append(GradSwitch(modules, flag, order))
            elif call.args:
                # a helper whose body switches the parameters of one argument: by another
                # (`toggle_grad(model_tgt, False)`, `set_requires_grad([G1, G2], False)`), or always one
                # way (`freeze(netG)`); one the file imports, by its name.
                switched = self._switched_by_helper(call, function)
                if switched is not None and switched[0]:
                    switches.append(GradSwitch(switched[0], switched[1], order))
        for statement, loops in function.loops_of.items():
            # `for p in netG.parameters(): p.requires_grad = False`
            if not (type(statement) is cst.Assign and type(statement.targets[0].target) is cst.Attribute
                    and statement.targets[0].target.attr.value == "requires_grad"):
                continue
            flag = statement.value
            if not (type(flag) is cst.Name and flag.value in ("True", "False")):
                continue
            owner = statement.targets[0].target.value
            modules = _loop_parameter_owners(owner, statement, function)
            if not modules and type(owner) is cst.Attribute:
                # `net.fc.weight.requires_grad = False`: that parameter alone
                modules = frozenset({module_key(owner)} - {None})
            if modules:
                switches.append(GradSwitch(modules, flag.value == "True", function.order_of(statement)))
        return sorted(switches, key=lambda switch: switch.order)


@dataclass(frozen=True)
class ParameterSwitch:
    """A function that sets `requires_grad` of the parameters of its `module_at`-th argument: to its
    `flag_at`-th argument (`toggle_grad(model, flag)`), or to `constant` (`freeze(model)`)."""

    module_at: int
    flag_at: Optional[int]
    constant: Optional[bool]


def switched_parameters(node: cst.FunctionDef) -> Optional[ParameterSwitch]:
    """How the function sets `requires_grad` of a module argument's parameters: `for p in
    model.parameters(): p.requires_grad_(flag)` (or `p.requires_grad = flag`, or `False`), or
    `model.requires_grad_(flag)`; None otherwise."""
    names = [param.name.value for param in node.params.params]
    found = None
    for sub in walk(node.body):
        switched, flag = None, None
        if type(sub) is cst.Call and type(sub.func) is cst.Attribute and sub.func.attr.value == "requires_grad_" \
                and len(sub.args) == 1 and type(sub.args[0].value) is cst.Name:
            switched, flag = sub.func.value, sub.args[0].value.value
        elif type(sub) is cst.Assign and len(sub.targets) == 1 and type(sub.targets[0].target) is cst.Attribute \
                and sub.targets[0].target.attr.value == "requires_grad" and type(sub.value) is cst.Name:
            switched, flag = sub.targets[0].target.value, sub.value.value
        if switched is None or (flag not in names and flag not in ("True", "False")):
            continue
        owners = {key for key in (module_key(switched),) if key in names}
        if not owners and type(switched) is cst.Name:
            # `p` of `for p in model.parameters()`: the loop's module.
            owners = {owner for loop in walk(node.body) if type(loop) is cst.For and type(loop.target) is cst.Name
                      and loop.target.value == switched.value for owner in parameter_owners(loop.iter) if owner in names}
        if len(owners) != 1:
            continue
        module_at = names.index(owners.pop())
        switch = ParameterSwitch(module_at, names.index(flag), None) if flag in names else \
            ParameterSwitch(module_at, None, flag == "True")
        if found is not None and found != switch:
            return None  # `freeze` and `unfreeze` in one body: no single way
        found = switch
    return found


def _loop_parameter_owners(switched: cst.BaseExpression, statement: cst.CSTNode, function: FunctionFacts) -> frozenset:
    """The modules whose parameters `p` iterates, for `p` the target of the loop around `statement`:
    `for p in netG.parameters(): p.requires_grad_(False)`, `for name, p in netG.named_parameters(): ...`."""
    loops = function.loops_of.get(statement) or ()
    loop = loops[-1] if loops else None
    if type(switched) is not cst.Name or type(loop) is not cst.For:
        return frozenset()
    target = loop.target.elements[-1].value if type(loop.target) is cst.Tuple and loop.target.elements \
        else loop.target
    if type(target) is cst.Name and target.value == switched.value:
        return parameter_owners(loop.iter)
    return frozenset()


def _comprehension_parameter_owners(call: cst.Call, statement: cst.CSTNode) -> frozenset:
    """The modules whose parameters a comprehension around `p.requires_grad_(flag)` iterates, for `p`
    its target: `[p.requires_grad_(False) for p in netG.parameters()]`."""
    switched = call.func.value if type(call.func) is cst.Attribute else None
    if type(switched) is not cst.Name:
        return frozenset()
    for node in walk(statement):
        if type(node) in (cst.ListComp, cst.GeneratorExp, cst.SetComp) and any(sub is call for sub in walk(node.elt)):
            target = node.for_in.target
            if type(target) is cst.Tuple and target.elements:
                target = target.elements[-1].value  # `for name, p in netG.named_parameters()`
            if type(target) is cst.Name and target.value == switched.value:
                return parameter_owners(node.for_in.iter)
    return frozenset()


def _literal_key(key) -> Optional[str]:
    if type(key) is cst.SimpleString and key.value[:1] in ("'", '"') and not key.value.startswith(key.value[0] * 3):
        return key.value[1:-1]
    return None


# Helpers that switch their argument's parameters by a flag, known by name where the file does not
# define them (`from utils import *`, then `toggle_grad(G, False)`).
SWITCHING_HELPER = re.compile(r"(?i)(requires_?grad|toggle_?grad|set_?grad)s?$")
# Helpers that switch their one argument's parameters always one way, known by name where the file does not
# define them (`from utils import *`, then `freeze(G)`): off, or on for `unfreeze`.
FREEZING_HELPER = re.compile(r"(?i)^(un)?freeze(?:_(?:model|net|network|module|modules|params|parameters|weights"
                             r"|all))?$|^frozen_params$")
# What the text of a file that switches parameters holds somewhere: the switch itself, its helper's
# body, the helper's name, Lightning's `toggle_optimizer`.
SWITCH_FRAGMENTS = ("requires_grad", "requiresgrad", "RequiresGrad", "toggle", "set_grad", "setgrad", "freeze",
                    "frozen")


def _switched_by_name(call: cst.Call) -> Optional[tuple[frozenset, Optional[bool]]]:
    """`set_requires_grad([G1, G2], False)`, `toggle_grad(self.G, False)` of a helper out of sight: the
    modules among its arguments, switched by its flag (None when the flag is no literal)."""
    name = (dotted_name(call.func) or "").rsplit(".", 1)[-1]
    positional = [arg.value for arg in call.args if arg.keyword is None]
    flags = [arg.value for arg in call.args if arg.keyword is not None]  # `requires_grad=False`
    constant = FREEZING_HELPER.match(name)
    if constant is not None and len(positional) == 1 and not flags:
        # `freeze(G)`, `unfreeze(model)`: one way always (not `freeze_bn`, which keeps statistics).
        return frozenset(_module_keys_in(positional[0])), constant.group(1) is not None
    if not SWITCHING_HELPER.search(name) or len(positional) + len(flags) < 2 or len(flags) > 1:
        return None
    if not flags:
        positional, flags = positional[:-1], positional[-1:]
    modules = frozenset(key for value in positional for key in _module_keys_in(value))
    return modules, _literal_flag(flags[0])


def _literal_flag(value: cst.BaseExpression) -> Optional[bool]:
    return value.value == "True" if type(value) is cst.Name and value.value in ("True", "False") else None


def _boolean_argument(call: cst.Call) -> Optional[bool]:
    for arg in call.args:
        if type(arg.value) is cst.Name and arg.value.value in ("True", "False"):
            return arg.value.value == "True"
    if type(call.func) is cst.Attribute and call.func.attr.value == "requires_grad_" and not call.args:
        return True
    return None


def _module_keys_in(expr) -> list:
    if type(expr) in (cst.List, cst.Tuple):
        return [key for element in expr.elements for key in _module_keys_in(element.value)]
    key = module_key(expr)
    return [key] if key else []


def built_by_torch_nn(func: cst.BaseExpression, function: FunctionFacts, facts, depth: int = 0) -> bool:
    """Is the callee surely a module of `torch.nn` itself (`self.BCE_loss` assigned `nn.BCELoss()`,
    `criterion = nn.MSELoss()`, or an argument every call of the function in the file passes one for:
    `G_train(..., BCELoss, L1)` with `L1 = nn.L1Loss()`)? Such a module keeps nothing of its inputs
    after the call."""
    if type(func) is cst.Name:
        _, bindings = facts.reaching(func, function)
        if bindings and all(binding.kind == "param" for binding in bindings):
            passed = facts.arguments_passed(func) if depth < 2 else None
            return bool(passed) and all(_torch_nn_value(value, facts, depth + 1) for value in passed)
        values = [binding.value for binding in bindings]
        if not bindings or any(binding.kind not in ("assign", "walrus") for binding in bindings):
            return False
    elif type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self" \
            and function.class_name in facts.classes:
        values = facts.attribute_values(facts.classes[function.class_name], func.attr.value)
    else:
        return False
    return bool(values) and all(_torch_nn_class_call(value, facts) for value in values)


def _torch_nn_value(value: cst.BaseExpression, facts, depth: int) -> bool:
    """What a call passes for such an argument: `nn.L1Loss()` itself, or a name bound to one where it is read."""
    if type(value) is cst.Call:
        return _torch_nn_class_call(value, facts)
    found = facts.read_of(value) if type(value) is cst.Name else None
    return found is not None and built_by_torch_nn(value, found[0], facts, depth)


def _torch_nn_class_call(value, facts) -> bool:
    """`nn.BCELoss()`, also moved: `nn.BCELoss().cuda()`."""
    while type(value) is cst.Call and type(value.func) is cst.Attribute \
            and value.func.attr.value in MODULE_RETURNING_METHODS:
        value = value.func.value
    qualified = facts.names.qualified_name(value.func) if type(value) is cst.Call else None
    return qualified is not None and qualified.startswith("torch.nn.") and qualified.count(".") == 2


def _local_name(function: FunctionFacts, name: str) -> bool:
    """Is `name` a parameter of `function` or bound in it (not a global it reads)?"""
    return any(binding.name == name for binding in (*function.parameters, *function.bindings))
