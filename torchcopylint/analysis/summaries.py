"""Function summaries: what a function, method or lambda of the module does, as its callers see it.

Real training code spreads one step over several places: `def D(x): return netD(x)`, a lambda
bound to a name, `fake = self.sample(n)`, networks held in a dict (`nets["D"](x)`), a generator
written as a function of raw tensors (`def G(z): return relu(z @ W1 + b1) @ W2`). A summary says,
for one function and once per module (ModuleFacts.summary, computed on first question):

- what it returns: which argument it forwards (or a view of it), whether it is a network's
  output, a copy or a new tensor, which arguments' graphs reach it, and whether it may carry a
  graph at all (not detached, not made under no-grad);
- which networks it calls, with the arguments that reach each one's input attached to autograd,
  and whether each one's output reaches what it returns;
- the names from outside it (module level, or an enclosing function) that the returned value is
  computed from, attached: a function of tensors an optimizer trains is a network over them;
- whether it runs `backward()`, steps optimizers, zeroes gradients;
- which argument it writes in place: `ModuleFacts.function_effect`, read, never recomputed here;
- whether what it returns requires grad: `ModuleFacts.autograd`, read, never recomputed here.

At a call site, `ModuleFacts.callee_summary(call, function)` resolves the callee: a module-level
function, `self.method(...)`, a function defined in the enclosing function, a lambda bound to a
name, a name bound to another function. Recursion is bounded (a function whose summary is being
computed answers None to its own callees); what cannot be resolved is None, and the rules that
ask stay silent.

This module reads ModuleFacts through the object it is handed and never imports it (facts.py
imports this module lazily): no import cycle.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Optional, Union

import libcst as cst

from torchcopylint.analysis.aliasing import OPAQUE, Binding, FunctionFacts
from torchcopylint.analysis.graphs import VIEW_METHODS, _attached, _is_attribute_name, _is_callee, loss_slice
from torchcopylint.analysis.training import backpropagated_expression, module_key, takes_gradients
from torchcopylint.analysis.syntax import reads_gradient, single_index, writes_gradient
from torchcopylint.analysis.torchnames import dotted_name

SummarizedNode = Union[cst.FunctionDef, cst.Lambda]
# How deep summaries follow callees of callees (`sample` -> `G` -> `netG`).
MAX_DEPTH = 4
# Calls that are never networks: builtins a training loop calls on tensors and numbers.
NOT_NETWORKS = frozenset(
    {"print", "len", "isinstance", "range", "enumerate", "zip", "int", "float", "bool", "str", "list", "tuple",
     "dict", "set", "sorted", "min", "max", "sum", "abs", "round", "any", "all", "map", "filter", "next", "iter",
     "getattr", "setattr", "hasattr", "super", "type", "repr", "format", "open", "id", "vars"}
)
COPY_METHODS = frozenset({"clone", "copy", "float", "double", "half", "to", "cuda", "cpu", "contiguous"})


@dataclass(frozen=True)
class NetworkUse:
    """A call of a network inside a function, seen from the function's callers."""

    key: str  # as the function spells it: "netD", "self.D", 'nets["D"]'
    aliases: frozenset  # every key naming the same network there: a dict's element, a name bound to it
    parameter: Optional[int]  # the network is the function's own argument number N (then `key` is its name)
    inputs: frozenset  # positional arguments of the function whose graph reaches the network's input
    returned: bool  # the network's output reaches what the function returns, attached to the graph
    call: cst.Call  # the call, where it is written (for messages)
    via: tuple = ()  # the summaries it was reached through, outermost first (their labels)


@dataclass(frozen=True)
class KeptArgument:
    """An argument a call keeps beyond itself: a method's `self.sum += val * n` (`into` "self.sum"),
    a function's `history.append(value)` into another of its arguments (`into` that argument's index)."""

    index: int  # the positional argument kept (its graph, attached)
    into: Union[str, int]
    statement: cst.CSTNode  # the accumulation, in the callee
    container: bool  # kept in a list or dict (else a running sum)


@dataclass
class FunctionSummary:
    node: SummarizedNode
    name: str
    label: str  # "function `D`", "lambda `D`", "method `self.sample`"
    parameters: tuple  # positional parameter names (after `self`/`cls` for a method)
    scope: Optional[FunctionFacts]  # where the function is defined (its free names resolve there)
    facts_of_body: Optional[FunctionFacts]  # the body's data flow (None for a lambda)
    # "argument" (returns an argument as it is), "view" (a view or alias of one), "copy", "network"
    # (a network's output), "new" (a tensor made here), "none" (returns nothing), "unknown"
    returns: str = "unknown"
    returned_argument: Optional[int] = None  # for "argument" and "view"
    returned_arguments: frozenset = frozenset()  # arguments whose graph reaches the return, attached
    carries_graph: bool = True  # False when every return is detached or made under no-grad
    networks: tuple = ()  # NetworkUse
    free_tensors: frozenset = frozenset()  # outside names the return is computed from, attached
    backward: bool = False
    stepped: frozenset = frozenset()  # optimizer keys stepped (`opt.step()`, `scaler.step(opt)`)
    zeroes_gradients: bool = False  # `zero_grad()`, or writes `.grad`
    differentiates: bool = False  # calls `torch.autograd.grad` (a gradient penalty, a second-order term)
    _module: object = field(default=None, repr=False)
    _writes: object = field(default=None, repr=False)
    _requires_grad: object = field(default=None, repr=False)
    _requires_grad_known: bool = field(default=False, repr=False)
    _kept: object = field(default=None, repr=False)

    def accepts(self, call: cst.Call) -> bool:
        """Can the call be made as written: no more positional arguments than the function takes (a
        homework's stub `def d_loss(): return  # TODO` called with two says nothing of them)?"""
        if isinstance(self.node.params.star_arg, cst.Param) or any(arg.star for arg in call.args):
            return True
        return len([arg for arg in call.args if arg.keyword is None]) <= len(self.parameters)

    @property
    def writes(self):
        """What a call does to its arguments (`ModuleFacts.function_effect`, the one place that knows)."""
        if self._writes is None:
            node = self.node
            self._writes = self._module.function_effect(node, self.name) if type(node) is cst.FunctionDef \
                else OPAQUE
        return self._writes

    @property
    def requires_grad(self):
        """Why what the function returns surely requires grad (`ModuleFacts.autograd`), or None."""
        if not self._requires_grad_known:
            self._requires_grad_known = True
            self._requires_grad = self._returned_origin()
        return self._requires_grad

    def _returned_origin(self):
        flow = self._module.autograd
        if type(self.node) is cst.Lambda:
            scope = self.scope
            if scope is None:
                return None
            statement = next((b.statement for b in scope.bindings if b.value is self.node), None)
            return flow.origin(self.node.body, scope, statement) if statement is not None else None
        function = self.facts_of_body
        origins = [flow.origin(statement.value, function, statement) for statement in _return_statements(function)]
        return origins[0] if origins and all(origins) else None

    @property
    def kept_arguments(self) -> tuple:
        """The arguments each call adds, attached, to what outlives the call (`ModuleFacts.containers`'
        accumulations of the body, in grad mode): `self.` state, or a container another argument is.
        A parameter the body rebinds anywhere (`val = val.item()`) is not followed."""
        if self._kept is None:
            self._kept = self._read_kept_arguments()
        return self._kept

    def _read_kept_arguments(self) -> tuple:
        function, facts = self.facts_of_body, self._module
        if function is None:
            return ()
        rebound = {binding.name for binding in function.bindings if binding.kind != "param"}
        index_of = {binding: self.parameters.index(binding.name) for binding in function.parameters
                    if binding.name in self.parameters and binding.name not in rebound}
        found = []
        for accumulation in facts.containers.of(function).accumulations:
            statement = accumulation.statement
            if not facts.grad_enabled_at(function, statement):
                continue
            if accumulation.holder is None:
                into = f"self.{accumulation.attribute}" if self.label.startswith("method") else None
            else:
                holders = [index_of.get(binding) for binding in function.bindings_at(accumulation.holder)]
                into = holders[0] if len(holders) == 1 and holders[0] is not None else None
            if into is None:
                continue
            for index in sorted(_parameters_reaching(accumulation.value, statement, function, index_of, facts)):
                if index != into:
                    found.append(KeptArgument(index, into, statement, accumulation.container))
        return tuple(found)

    def networks_returned(self) -> list:
        return [use for use in self.networks if use.returned]

    @property
    def free_tensors_requiring_grad(self) -> frozenset:
        """The outside names the return is computed from whose every assignment surely requires
        grad there (`ModuleFacts.autograd`): `W = torch.randn(..., requires_grad=True)`."""
        found = set()
        summaries = self._module.summaries
        function = self.facts_of_body if self.facts_of_body is not None else self.scope
        for name in self.free_tensors:
            scope = summaries.scope_of_name(name, function) if function is not None else None
            bindings = [b for b in scope.bindings if b.name == name] if scope is not None else []
            if bindings and all(self._module.autograd.binding_origin(b, scope) for b in bindings):
                found.add(name)
        return frozenset(found)


class Summaries:
    """Summaries of one module's functions, computed on first question (ModuleFacts.summaries)."""

    def __init__(self, facts) -> None:
        self.facts = facts
        self._summaries: dict = {}
        self._in_progress: set = set()
        self._enclosing: Optional[dict] = None

    # ------------------------------------------------------------------ queries

    def summary(self, node: SummarizedNode, scope: Optional[FunctionFacts] = None,
                name: Optional[str] = None) -> Optional[FunctionSummary]:
        """The summary of a function or lambda; None while it is being computed (recursion)."""
        found = self._summaries.get(node)
        if found is not None:
            return found
        if node in self._in_progress:
            return None
        self._in_progress.add(node)
        try:
            found = self._summarize(node, scope, name)
        finally:
            self._in_progress.discard(node)
        self._summaries[node] = found
        return found

    def callee_summary(self, call: cst.Call, function: FunctionFacts) -> Optional[FunctionSummary]:
        """The summary of what `call` calls, when it is a function, method or lambda of this module."""
        resolved = self.resolve_callee(call.func, function)
        if resolved is None:
            return None
        node, scope, name = resolved
        return self.summary(node, scope, name)

    def resolve_callee(self, func: cst.BaseExpression, function: FunctionFacts, depth: int = 0):
        """(node, defining scope, name) of the function `func` names, or None.

        `D` for `def D(x)` at the top or in an enclosing function, `D = lambda x: ...`,
        `D = discriminate` (a name bound to another function), `self.sample` for a method of the
        class (or of a base class in the file), `self.net.reset_states` for a method of the file's
        class `self.net` is built from."""
        if depth > MAX_DEPTH:
            return None
        if type(func) is cst.Name:
            if func.value in NOT_NETWORKS or self.facts.class_called(func, function) is not None:
                return None
            bindings = function.bindings_at(func) or _own_bindings(func.value, function)
            if bindings:
                return self._resolve_bindings(bindings, function, func.value, depth)
            return self._resolve_free(func.value, function, depth)
        if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self":
            owner = self.facts.classes.get(function.class_name or "")
            if owner is None:
                return None
            attribute = func.attr.value
            values = self.facts.attribute_values(owner, attribute)
            if values:
                # `self.D = lambda x: ...`: the same lambda everywhere, or nothing known.
                if all(value is values[0] for value in values) and type(values[0]) is cst.Lambda:
                    method = owner.assigned_in.get(values[0])
                    scope = self.facts.function_facts(method) if method is not None else None
                    return values[0], scope, f"self.{attribute}"
                return None
            method = self._method(owner, attribute)
            if method is not None:
                return method, None, f"self.{attribute}"
        if type(func) is cst.Attribute and type(func.value) is cst.Attribute and type(func.value.value) is cst.Name \
                and func.value.value.value == "self" and func.attr.value not in ("forward", "__call__"):
            # `self.net.reset_states(h, c)`, every `self.net = Net(...)` a class of the file: its method
            # (of the classes built there, the one that has it: the call fails on any other).
            owner = self.facts.classes.get(function.class_name or "")
            values = self.facts.attribute_values(owner, func.value.attr.value) if owner is not None else []
            built = {value.func.value for value in values if type(value) is cst.Call and type(value.func) is cst.Name}
            if values and all(type(value) is cst.Call and type(value.func) is cst.Name for value in values) \
                    and built <= set(self.facts.classes):
                methods = {method for method in (self._method(self.facts.classes[name], func.attr.value)
                                                 for name in built) if method is not None}
                if len(methods) == 1:
                    return methods.pop(), None, f"self.{func.value.attr.value}.{func.attr.value}"
        return None

    def network_keys(self, expr: cst.BaseExpression, function: FunctionFacts, depth: int = 0) -> frozenset:
        """Every key naming the network `expr` is, in `function`'s scope: `netD`; for `D` bound to
        `netD`, both; for `nets["D"]` with `nets = {"D": netD}`, `nets["D"]` and `netD`; for
        `self.models["disc"]`, that key and the element `self.models = nn.ModuleDict({...})` holds."""
        key = module_key(expr)
        keys = {key} if key is not None else set()
        if depth > MAX_DEPTH:
            return frozenset(keys)
        if type(expr) is cst.Attribute and expr.attr.value == "forward":
            expr = expr.value
        if type(expr) is cst.Name:
            local = function.bindings_at(expr) or _own_bindings(expr.value, function)
            bindings = local or self._outer_bindings(expr.value, function)
            values = [binding.value for binding in bindings]
            if values and all(type(value) in (cst.Name, cst.Attribute, cst.Subscript) for value in values):
                scope = function if local else self._scope_of_free(expr.value, function)
                for value in values:
                    keys |= self.network_keys(value, scope or function, depth + 1)
        elif type(expr) is cst.Subscript:
            index = constant_index(expr)
            if index is not None:
                for element, scope in self._container_elements(expr.value, index, function):
                    keys |= self.network_keys(element, scope, depth + 1)
        return frozenset(keys)

    # ------------------------------------------------------------------ resolution

    def _method(self, owner, name: str, seen: Optional[set] = None):
        method = owner.methods.get(name)
        if method is not None:
            return method
        seen = seen or {owner.name}
        for base in owner.base_names:
            local = self.facts.classes.get(base)
            if local is not None and local.name not in seen:
                seen.add(local.name)
                found = self._method(local, name, seen)
                if found is not None:
                    return found
        return None

    def _resolve_bindings(self, bindings, function: FunctionFacts, name: str, depth: int):
        resolved = {}
        for binding in bindings:
            found = self._resolve_binding(binding, function, name, depth)
            if found is None:
                return None
            resolved[found[0]] = found  # the same function, however it was reached
        return next(iter(resolved.values())) if len(resolved) == 1 else None

    def _resolve_binding(self, binding: Binding, function: FunctionFacts, name: str, depth: int):
        if binding.kind == "def":
            node = binding.statement
            return (node, function, name) if type(node) is cst.FunctionDef else None
        if binding.kind != "assign" or binding.value is None:
            return None
        value = binding.value
        if type(value) is cst.Lambda:
            return value, function, name
        if type(value) in (cst.Name, cst.Attribute):
            return self.resolve_callee(value, function, depth + 1)
        return None

    def _resolve_free(self, name: str, function: FunctionFacts, depth: int):
        scope = self._scope_of_free(name, function)
        if scope is None:
            return None
        bindings = [binding for binding in scope.bindings if binding.name == name]
        body = scope.node.body if type(scope.node) is cst.Module else getattr(scope.node.body, "body", ())
        if len(bindings) > 1 and all(binding.kind == "def" and binding.statement in body for binding in bindings):
            # A function defined again further down (a notebook cell that rewrites it): a body that reads
            # the name runs once the enclosing scope has run, which leaves the last definition bound.
            # (Definitions in branches, `if cuda: def f(...)`, stay undecided.)
            bindings = [max(bindings, key=lambda binding: scope.order_of(binding.statement))]
        return self._resolve_bindings(bindings, scope, name, depth)

    def scope_of_name(self, name: str, function: FunctionFacts) -> Optional[FunctionFacts]:
        """Where a name read in `function` is bound: the function itself, or an enclosing scope."""
        if any(binding.name == name for binding in function.bindings):
            return function
        return self._scope_of_free(name, function)

    def _scope_of_free(self, name: str, function: FunctionFacts) -> Optional[FunctionFacts]:
        """The enclosing function (or the module) that binds a name `function` reads but does not bind."""
        current = function
        while True:
            outer = self._enclosing_of(current)
            if outer is None:
                return None
            if any(binding.name == name for binding in outer.bindings):
                return outer
            current = outer

    def _outer_bindings(self, name: str, function: FunctionFacts) -> list:
        scope = self._scope_of_free(name, function)
        return [binding for binding in scope.bindings if binding.name == name] if scope is not None else []

    def _enclosing_of(self, function: FunctionFacts) -> Optional[FunctionFacts]:
        """The function a nested function is defined in; the module for a top-level one or a method."""
        if type(function.node) is cst.Module:
            return None
        if self._enclosing is None:
            self._enclosing = {}
            for outer in self.facts.all_functions():
                for binding in outer.bindings:
                    if binding.kind == "def" and type(binding.statement) is cst.FunctionDef:
                        self._enclosing[binding.statement] = outer
        found = self._enclosing.get(function.node)
        if found is not None:
            return found
        if function.class_name is not None:
            # A method: its free names are the module's (a class body is no enclosing scope).
            return self.facts.function_facts(self.facts.module)
        return None

    def _container_elements(self, container: cst.BaseExpression, index, function: FunctionFacts) -> list:
        """(element, scope) for `container[index]`: a dict or list literal (or `nn.ModuleDict({...})`,
        `nn.ModuleList([...])`) the container name or `self.` attribute was built as."""
        values: list = []
        if type(container) is cst.Name:
            bindings = function.bindings_at(container) or _own_bindings(container.value, function)
            scope = function
            if not bindings:
                scope = self._scope_of_free(container.value, function)
                bindings = self._outer_bindings(container.value, function)
            values = [(binding.value, scope) for binding in bindings if binding.kind == "assign"]
            if len(values) != len(bindings):
                return []
        elif type(container) is cst.Attribute and type(container.value) is cst.Name \
                and container.value.value == "self":
            owner = self.facts.classes.get(function.class_name or "")
            if owner is None:
                return []
            for value in self.facts.attribute_values(owner, container.attr.value):
                method = owner.assigned_in.get(value)
                values.append((value, self.facts.function_facts(method) if method is not None else function))
        found = []
        for value, scope in values:
            element = _element(value, index)
            if element is None:
                return []
            found.append((element, scope))
        return found

    # ---------------------------------------------------------------- computing

    def _summarize(self, node: SummarizedNode, scope: Optional[FunctionFacts], name: Optional[str]):
        if type(node) is cst.Lambda:
            return self._summarize_lambda(node, scope, name or "<lambda>")
        function = self.facts.function_facts(node)
        owner = self.facts.class_of(node)
        parameters = [binding.name for binding in function.parameters]
        if owner is not None and parameters and parameters[0] in ("self", "cls"):
            parameters = parameters[1:]
        label = f"method `self.{node.name.value}`" if owner is not None else f"function `{node.name.value}`"
        summary = FunctionSummary(node, node.name.value, label, tuple(parameters),
                                  scope if scope is not None else self._enclosing_of(function), function,
                                  _module=self.facts)
        index_of = {binding: parameters.index(binding.name) for binding in function.parameters
                    if binding.name in parameters}
        returns = list(_return_statements(function))
        returned_calls: set = set()
        carries = False
        kinds = set()
        for statement in returns:
            value = statement.value
            kinds.add(self._returned_kind(value, function, index_of, summary))
            if not self.facts.grad_enabled_at(function, statement) and type(value) is not cst.Name:
                continue  # `with torch.no_grad(): return G(z)`: made without a graph
            if value is not None and self.facts.autograd.never_requires_grad(value, function, statement):
                continue  # `return np.array([loss.item() for loss in losses])`: no graph, whatever it read
            graph = loss_slice(value, statement, function, self.facts, through_summaries=True)
            if graph.nodes:
                carries = True
            returned_calls |= graph.calls
            summary.returned_arguments |= {index_of[b] for b in graph.bindings if b in index_of}
            summary.free_tensors |= self._free_tensors(graph.nodes, function)
        if not returns:
            kinds.add("none")
        summary.returns = next(iter(kinds)) if len(kinds) == 1 else "unknown"
        summary.carries_graph = carries
        networks = []
        for call, statement in function.call_statement.items():
            networks.extend(self._network_uses(call, statement, function, index_of, call in returned_calls, summary))
            self._note_training(call, function, summary)
        # `reset_grad()` of a course notebook: `p.grad = Variable(data.new().resize_as_(data).zero_())` (or
        # `p.grad = None`) for each parameter discards gradients as `zero_grad()` does.
        summary.zeroes_gradients = summary.zeroes_gradients or any(
            type(statement) is cst.Assign and writes_gradient(statement) for statement in function.statement_order)
        summary.networks = tuple(networks)
        return summary

    def _summarize_lambda(self, node: cst.Lambda, scope: Optional[FunctionFacts], name: str):
        parameters = tuple(param.name.value for param in node.params.params)
        summary = FunctionSummary(node, name, f"lambda `{name}`", parameters, scope, None, _module=self.facts)
        body = node.body
        summary.returns = "argument" if type(body) is cst.Name and body.value in parameters else "unknown"
        if summary.returns == "argument":
            summary.returned_argument = parameters.index(body.value)
        networks = []
        for child, parent in _attached(body):
            if type(child) is cst.Name and not _is_callee(child, parent) and not _is_attribute_name(child, parent):
                if child.value in parameters:
                    summary.returned_arguments |= {parameters.index(child.value)}
                elif scope is not None and self._is_tensor_name(child.value, scope, lambda_scope=True):
                    summary.free_tensors |= {child.value}
            if type(child) is not cst.Call or scope is None:
                continue
            inputs = frozenset(parameters.index(name.value) for arg in child.args for name, _ in _attached_names(arg.value)
                               if name.value in parameters)
            nested = self.callee_summary(child, scope) if self.resolve_callee(child.func, scope) else None
            if nested is not None:
                networks.extend(self._through(nested, child, scope, lambda expr: _lambda_arguments(expr, parameters),
                                              True, summary))
                continue
            keys = self._callable_keys(child, scope)
            if keys:
                parameter = parameters.index(child.func.value) if type(child.func) is cst.Name \
                    and child.func.value in parameters else None
                networks.append(NetworkUse(module_key(child.func) or "", keys, parameter, inputs, True, child))
        summary.carries_graph = True
        summary.networks = tuple(networks)
        return summary

    def _returned_kind(self, value, function: FunctionFacts, index_of: dict, summary: FunctionSummary) -> str:
        root = value
        view = False
        while type(root) is cst.Call and type(root.func) is cst.Attribute \
                and self.facts.names.qualified_name(root.func) is None:
            method = root.func.attr.value
            if method in VIEW_METHODS or method in ("detach", "view_as"):
                view = True
                root = root.func.value
            elif method in COPY_METHODS:
                return "copy"
            else:
                break
        if type(root) is cst.Subscript:
            view, root = True, root.value
        if type(root) is cst.Name:
            bindings = function.bindings_at(root)
            parameters = [b for b in bindings if b in index_of]
            if parameters and len(parameters) == len(bindings):
                summary.returned_argument = index_of[parameters[0]]
                return "view" if view else "argument"
            if bindings and all(b.module_output for b in bindings):
                return "network"
            if bindings and all(b.made_by == "copy" for b in bindings):
                return "copy"
            if bindings and all(b.made_by == "new" for b in bindings):
                return "new"
            return "unknown"
        if type(root) is cst.Call and not view:
            if self._callable_keys(root, function) and self.facts.names.qualified_name(root.func) is None:
                return "network"
            if self.facts.names.qualified_name(root.func):
                return "new"
        return "unknown"

    def _network_uses(self, call: cst.Call, statement, function: FunctionFacts, index_of: dict, returned: bool,
                      summary: FunctionSummary) -> list:
        grad = self.facts.grad_enabled_at(function, statement)
        resolved = self.resolve_callee(call.func, function)
        if resolved is not None:
            nested = self.summary(*resolved)
            if nested is None:
                return []

            def arguments(expr):
                return _parameters_reaching(expr, statement, function, index_of, self.facts) if grad else frozenset()

            return self._through(nested, call, function, arguments, returned and grad, summary)
        keys = self._callable_keys(call, function)
        if not keys:
            return []
        inputs: set = set()
        if grad:
            for arg in call.args:
                if not arg.star:
                    inputs |= _parameters_reaching(arg.value, statement, function, index_of, self.facts)
        func = call.func.value if type(call.func) is cst.Attribute and call.func.attr.value == "forward" \
            else call.func
        parameter = None
        if type(func) is cst.Name:
            bindings = function.bindings_at(func)
            parameter = next((index_of[b] for b in bindings if b in index_of), None)
        return [NetworkUse(module_key(func) or "", keys, parameter, frozenset(inputs), returned and grad, call)]

    def _through(self, nested: FunctionSummary, call: cst.Call, function: FunctionFacts, arguments, returned: bool,
                 summary: FunctionSummary) -> list:
        """The networks a nested summary calls, as the calling function sees them."""
        positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
        found = []
        for use in nested.networks:
            keys, parameter = use.aliases, None
            if use.parameter is not None:
                if use.parameter >= len(positional):
                    continue
                passed = positional[use.parameter]
                keys = self.network_keys(passed, function)
                if not keys:
                    continue
                reached = arguments(passed)
                if type(passed) is cst.Name and len(reached) == 1:
                    parameter = next(iter(reached))
            inputs = frozenset().union(*(arguments(positional[i]) for i in use.inputs if i < len(positional))) \
                if use.inputs else frozenset()
            found.append(NetworkUse(use.key, keys, parameter, inputs, returned and use.returned, use.call,
                                    (nested.label, *use.via)))
        if returned:
            summary.free_tensors |= nested.free_tensors
        return found

    def _callable_keys(self, call: cst.Call, function: FunctionFacts) -> frozenset:
        """Keys of a callee that may be a network: a name, a `self.` attribute, a container element;
        not a torch function, a builtin, a class of the file, or a tensor method (`x.view`)."""
        func = call.func
        if type(func) is cst.Attribute and func.attr.value == "forward":
            func = func.value
        if self.facts.names.qualified_name(func) is not None:
            return frozenset()
        if type(func) is cst.Name:
            if func.value in NOT_NETWORKS or self.facts.class_called(func, function) is not None:
                return frozenset()
        elif type(func) is cst.Attribute:
            root = func
            while type(root) is cst.Attribute:
                root = root.value
            if not (type(root) is cst.Name and root.value == "self"):
                return frozenset()
        elif type(func) is not cst.Subscript:
            return frozenset()
        return self.network_keys(func, function)

    def _note_training(self, call: cst.Call, function: FunctionFacts, summary: FunctionSummary) -> None:
        func = call.func
        if takes_gradients(call, self.facts.names):
            summary.differentiates = True
        if type(func) is not cst.Attribute:
            return
        method = func.attr.value
        if method == "step":
            # `opt.step()`, `opt.step(closure)`, AMP's `scaler.step(opt)`: either may be the optimizer.
            keys = {dotted_name(func.value)}
            if call.args and type(call.args[0].value) in (cst.Name, cst.Attribute):
                keys.add(dotted_name(call.args[0].value))
            summary.stepped |= keys - {None}
        elif method == "zero_grad" or method == "zero_" and reads_gradient(func.value):
            summary.zeroes_gradients = True  # `opt.zero_grad()`, `p.grad.zero_()`, `p.grad.data.zero_()`
        elif backpropagated_expression(call, function, self.facts) is not None:
            summary.backward = True

    def _free_tensors(self, nodes, function: FunctionFacts) -> frozenset:
        """Names in a returned value's slice that the function does not bind and that an enclosing
        scope binds by assignment (a tensor made there, not an import, a function or a class)."""
        found = set()
        for node, parent, _ in nodes:
            if type(node) is cst.Name and not _is_callee(node, parent) and not _is_attribute_name(node, parent) \
                    and not function.bindings_at(node) and node.value not in ("True", "False", "None", "self"):
                if self._is_tensor_name(node.value, function):
                    found.add(node.value)
        return frozenset(found)

    def _is_tensor_name(self, name: str, function: FunctionFacts, lambda_scope: bool = False) -> bool:
        """Is `name`, unbound in `function` (or, for a lambda, read in its defining `function`), bound by
        assignment in the scope it comes from?"""
        if lambda_scope:
            scope = function if any(binding.name == name for binding in function.bindings) \
                else self._scope_of_free(name, function)
        else:
            scope = self._scope_of_free(name, function)
        if scope is None:
            return False
        bindings = [binding for binding in scope.bindings if binding.name == name]
        return bool(bindings) and all(binding.kind in ("assign", "requires_grad", "augassign") for binding in bindings)


# ---------------------------------------------------------------------- helpers


def constant_index(subscript: cst.Subscript):
    """"D" for `nets["D"]`, 0 for `nets[0]`; None for anything else."""
    value = single_index(subscript)
    if type(value) in (cst.SimpleString, cst.Integer):
        try:
            return ast.literal_eval(value.value)
        except (ValueError, SyntaxError):
            return None
    return None


def _element(value, index):
    """The element `index` of a dict or list literal (or `nn.ModuleDict({...})`, `nn.ModuleList([...])`)."""
    if type(value) is cst.Call and len(value.args) == 1 and value.args[0].keyword is None \
            and (dotted_name(value.func) or "").rpartition(".")[2] in ("ModuleDict", "ModuleList", "dict", "list"):
        value = value.args[0].value
    if type(value) is cst.Dict and isinstance(index, str):
        for element in value.elements:
            if type(element) is not cst.DictElement:
                return None  # `{**others}`: unknown keys
            if type(element.key) is cst.SimpleString and _literal(element.key) == index:
                return element.value
        return None
    if type(value) in (cst.List, cst.Tuple) and isinstance(index, int) and not isinstance(index, bool):
        elements = value.elements
        if any(type(element) is cst.StarredElement for element in elements):
            return None
        if -len(elements) <= index < len(elements):
            return elements[index].value
    return None


def _literal(node: cst.SimpleString):
    try:
        return ast.literal_eval(node.value)
    except (ValueError, SyntaxError):
        return None


def _own_bindings(name: str, function: FunctionFacts) -> list:
    """Every binding of `name` in the function, for a read the walk did not record (a lambda's body
    read before the name is bound at the top level, a name bound later in the body)."""
    return [binding for binding in function.bindings if binding.name == name]


def _return_statements(function: FunctionFacts) -> list:
    return [statement for statement in function.statement_order
            if type(statement) is cst.Return and statement.value is not None]


def _parameters_reaching(expr, statement, function: FunctionFacts, index_of: dict, facts) -> frozenset:
    """The function's arguments whose graph reaches `expr` (through names, not `.detach()`)."""
    graph = loss_slice(expr, statement, function, facts, through_summaries=True)
    return frozenset(index_of[binding] for binding in graph.bindings if binding in index_of)


def _attached_names(expr):
    for node, parent in _attached(expr):
        if type(node) is cst.Name and not _is_callee(node, parent) and not _is_attribute_name(node, parent):
            yield node, parent


def _lambda_arguments(expr, parameters: tuple) -> frozenset:
    return frozenset(parameters.index(name.value) for name, _ in _attached_names(expr) if name.value in parameters)
