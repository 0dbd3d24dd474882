"""ModuleFacts: everything rules read about one module, each fact computed once.

Cheap facts (imports, classes, the call index) are computed eagerly in one pass;
the per-function data flow is computed on first use, so a file that only a
call-pattern rule looks at never pays for it. Positions (line/column) are
resolved on demand, only for files that have something to report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import libcst as cst
from libcst.metadata import CodeRange

from torchcopylint.analysis.aliasing import (
    OPAQUE,
    PURE,
    Callees,
    CallEffect,
    FlowState,
    FunctionFacts,
    FunctionWalker,
    Read,
    _argument_is_true,
    _argument_is_variable,
    grad_mode_of_context,
    parameter_tensorness,
)
from torchcopylint.analysis.catalog import INPLACE_MODULE_ARGUMENT
from torchcopylint.analysis.positions import Positions
from torchcopylint.analysis.syntax import child_nodes, walk
from torchcopylint.analysis.tensors import (
    TENSOR_RETURNING_METHODS,
    Tensorness,
    TensorTyping,
    combine,
)
from torchcopylint.analysis.torchnames import TorchNames, dotted_name

# (the class, the method) an expression that builds a layer is written in
LayerContext = tuple

PURE_BUILTINS = frozenset(
    {"print", "len", "isinstance", "issubclass", "range", "enumerate", "zip", "int", "float", "bool",
     "str", "repr", "type", "getattr", "hasattr", "max", "min", "abs", "sum", "round", "list", "tuple",
     "dict", "set", "sorted", "id", "hash", "super", "iter", "next", "format", "any", "all", "map", "filter"}
)

@dataclass
class ClassFacts:
    node: cst.ClassDef
    name: str
    base_names: list[str]
    methods: dict[str, cst.FunctionDef] = field(default_factory=dict)
    # `self.<attribute> = <call>` assignments, by attribute; several when reassigned.
    attribute_values: dict[str, list[cst.BaseExpression]] = field(default_factory=dict)
    # each of those values -> the method it is assigned in (to resolve the names it uses)
    assigned_in: dict[cst.BaseExpression, cst.FunctionDef] = field(default_factory=dict)


class ModuleFacts(Callees):
    def __init__(self, module: cst.Module, path: str = "<string>", source: Optional[str] = None) -> None:
        """`source`: the text `module` was parsed from, if known (positions are cheaper with it)."""
        self.module = module
        self.path = path
        self.names = TorchNames.from_module(module)
        self.typing = TensorTyping(self.names, returns=self.returned_tensorness)
        self._returned: dict[cst.FunctionDef, Tensorness] = {}
        self.classes: dict[str, ClassFacts] = {}
        self.module_functions: dict[str, cst.FunctionDef] = {}
        self.calls: list[cst.Call] = []
        # Every function definition, nested ones too, in the order of a depth-first walk.
        self.function_nodes: list[cst.FunctionDef] = []
        self._method_calls: dict[str, list[cst.Call]] = {}
        self._class_of_function: dict[cst.FunctionDef, ClassFacts] = {}
        self._function_facts: dict[cst.CSTNode, FunctionFacts] = {}
        self._in_progress: set = set()
        self._all_function_facts: Optional[list[FunctionFacts]] = None
        self._reads: Optional[dict[cst.Name, tuple[FunctionFacts, Read]]] = None
        self._positions = Positions(module, source)
        self._called_without_grad: Optional[set] = None
        self._call_sites: Optional[dict] = None
        self._training = None
        self._autograd = None
        self._placement = None
        self._loaders = None
        self._callers: Optional[dict] = None
        self._index()

    # -------------------------------------------------------------- indexing

    def _index(self) -> None:
        """One walk over the module: calls, function definitions, and `self.x = ...` in methods."""
        for statement in self.module.body:
            if isinstance(statement, cst.FunctionDef):
                self.module_functions[statement.name.value] = statement
            elif isinstance(statement, cst.ClassDef):
                self._index_class(statement)
        # method -> its `self.<attribute> = value` assignments (not those of nested functions)
        self_assignments: dict[cst.FunctionDef, list[tuple[str, cst.BaseExpression]]] = {}
        stack: list[tuple[cst.CSTNode, Optional[cst.FunctionDef]]] = [(self.module, None)]
        while stack:
            node, method = stack.pop()
            kind = type(node)
            if kind is cst.Call:
                self.calls.append(node)
                if type(node.func) is cst.Attribute:
                    self._method_calls.setdefault(node.func.attr.value, []).append(node)
            elif kind is cst.Assign and method is not None:
                for target in node.targets:
                    target = target.target
                    if type(target) is cst.Attribute and type(target.value) is cst.Name \
                            and target.value.value == "self":
                        self_assignments.setdefault(method, []).append((target.attr.value, node.value))
            for child in child_nodes(node):
                child_kind = type(child)
                child_method = method
                if child_kind is cst.FunctionDef:
                    self.function_nodes.append(child)
                    child_method = child if child in self._class_of_function else None
                elif child_kind is cst.ClassDef or child_kind is cst.Lambda:
                    child_method = None
                stack.append((child, child_method))
        for method, facts in self._class_of_function.items():  # in the order of the class bodies
            for attribute, value in self_assignments.get(method, ()):
                facts.attribute_values.setdefault(attribute, []).append(value)
                facts.assigned_in[value] = method

    def _index_class(self, node: cst.ClassDef) -> None:
        facts = ClassFacts(node, node.name.value, [dotted_name(base.value) or "" for base in node.bases])
        self.classes[facts.name] = facts
        for statement in node.body.body:
            if isinstance(statement, cst.FunctionDef):
                facts.methods[statement.name.value] = statement
                self._class_of_function[statement] = facts

    # ------------------------------------------------------------- queries

    def method_calls(self, method: str) -> list[cst.Call]:
        """Calls spelled `<receiver>.<method>(...)`, in no particular order."""
        return self._method_calls.get(method, [])

    def class_of(self, function: cst.FunctionDef) -> Optional[ClassFacts]:
        return self._class_of_function.get(function)

    def is_module_class(self, facts: ClassFacts, seen: Optional[set] = None) -> bool:
        """Does the class derive from torch.nn.Module, directly or through classes in this file?"""
        seen = seen or set()
        for base in facts.node.bases:
            qualified = self.names.qualified_name(base.value)
            if qualified is not None and qualified.startswith("torch.nn."):
                return True
            local = self.classes.get(dotted_name(base.value) or "")
            if local is not None and local.name not in seen:
                seen.add(local.name)
                if self.is_module_class(local, seen):
                    return True
        return False

    def function_facts(self, node: cst.CSTNode) -> FunctionFacts:
        """Data flow of one function (or of the module's top-level code), computed once."""
        facts = self._function_facts.get(node)
        if facts is not None:
            return facts
        owner = self.class_of(node) if isinstance(node, cst.FunctionDef) else None
        name = node.name.value if isinstance(node, cst.FunctionDef) else "<module>"
        facts = FunctionFacts(node, name, owner.name if owner else None)
        if isinstance(node, cst.FunctionDef):
            facts.decorated_grad_enabled = _decorated_grad_mode(node, self.names)
        self._in_progress.add(node)
        walker = FunctionWalker(facts, self.names, self.typing, _BoundCallees(self, owner))
        if isinstance(node, cst.FunctionDef):
            in_module_class = owner is not None and self.is_module_class(owner)
            walker.run(parameter_tensorness(node, self.names, in_module_class))
        else:
            walker.run(())
        self._in_progress.discard(node)
        self._function_facts[node] = facts
        return facts

    def all_functions(self) -> list[FunctionFacts]:
        """Every function in the module (nested ones too) and the top-level code."""
        if self._all_function_facts is None:
            self._all_function_facts = [self.function_facts(node) for node in [self.module, *self.function_nodes]]
        return self._all_function_facts

    def read_of(self, name: cst.Name) -> Optional[tuple[FunctionFacts, Read]]:
        """The function a name is read in, and what reaches that read."""
        if self._reads is None:
            self._reads = {}
            for function in self.all_functions():
                for node, read in function.reads.items():
                    self._reads[node] = (function, read)
        return self._reads.get(name)

    @property
    def training(self):
        """Optimizers, the modules they update, and their steps (TrainingFacts), built on first use."""
        if self._training is None:
            from torchcopylint.analysis.training import TrainingFacts

            self._training = TrainingFacts(self)
        return self._training

    @property
    def autograd(self):
        """Which values surely require grad (GradFlow), answered on demand and cached."""
        if self._autograd is None:
            from torchcopylint.analysis.autograd import GradFlow

            self._autograd = GradFlow(self)
        return self._autograd

    @property
    def placement(self):
        """The device and dtype of expressions (Placement), answered on demand."""
        if self._placement is None:
            from torchcopylint.analysis.placement import Placement

            self._placement = Placement(self)
        return self._placement

    @property
    def loaders(self):
        """Data loaders and their batches (DataLoaders), answered on demand."""
        if self._loaders is None:
            from torchcopylint.analysis.loaders import DataLoaders

            self._loaders = DataLoaders(self)
        return self._loaders

    def tensorness(self, expr: cst.BaseExpression) -> Tensorness:
        """How sure we are that `expr` is a tensor, names resolved by the data flow."""
        def lookup(name: cst.Name) -> Tensorness:
            found = self.read_of(name)
            if found is None or not found[1].bindings:
                return Tensorness.UNKNOWN
            return combine(binding.tensorness for binding in found[1].bindings)

        return self.typing.of(expr, lookup)

    def returned_tensorness(self, call: cst.Call) -> Tensorness:
        """What a call of a function defined at the top of this module returns: SURE when every
        `return` gives a sure tensor, LIKELY when every one gives a tensor, else UNKNOWN."""
        function = self.module_functions.get(call.func.value) if isinstance(call.func, cst.Name) else None
        if function is None or function in self._in_progress:
            return Tensorness.UNKNOWN
        found = self._returned.get(function)
        if found is None:
            self._returned[function] = Tensorness.UNKNOWN  # recursion guard
            # A generator or a coroutine returns neither of its values.
            values = [] if function.asynchronous is not None or _yields(function) else _returned_values(function)
            facts = self.function_facts(function)

            def lookup(name: cst.Name) -> Tensorness:
                bindings = facts.bindings_at(name)
                return combine(binding.tensorness for binding in bindings) if bindings else Tensorness.UNKNOWN

            found = combine(self.typing.of(value, lookup) for value in values) if values else Tensorness.UNKNOWN
            if not found.is_tensor:
                found = Tensorness.UNKNOWN
            self._returned[function] = found
        return found

    # ------------------------------------------------------------ grad mode

    def call_site(self, call: cst.Call) -> Optional[tuple[FunctionFacts, cst.CSTNode]]:
        """The function a call is made in, and the statement holding it."""
        if self._call_sites is None:
            self._call_sites = {}
            for function in self.all_functions():
                for node, statement in function.call_statement.items():
                    self._call_sites[node] = (function, statement)
        return self._call_sites.get(call)

    def call_sites_of(self, function: FunctionFacts) -> Optional[list]:
        """The calls of a function of this file, each as (caller's FunctionFacts, call, statement):
        a module-level function called by its name where the name is not rebound, a method called
        as `self.<name>(...)` in its class, a nested function called by name where it is defined.
        None when the calls are not all in sight here: the name is also read as a value (handed on
        as a callback), the function is decorated (other than `staticmethod`/`classmethod`/a grad
        mode), or it is a method called implicitly (`forward`, `__call__`, `__init__`...). Built
        once for the module, in one pass over the calls already indexed."""
        if self._callers is None:
            self._callers = self._index_callers()
        if not isinstance(function.node, cst.FunctionDef):
            return None
        return self._callers.get(function.node, [])

    def _index_callers(self) -> dict:
        sites: dict = {}
        handed_on: set = set()
        module = self.function_facts(self.module)
        top_level_kinds: dict = {}
        for binding in module.bindings:
            top_level_kinds.setdefault(binding.name, set()).add(binding.kind)
        callee_names: set = set()
        for caller in self.all_functions():
            for call, statement in caller.call_statement.items():
                callee = self._callee_definition(call.func, caller, top_level_kinds)
                if callee is not None:
                    sites.setdefault(callee, []).append((caller, call, statement))
                    callee_names.add(id(call.func))
        for caller in self.all_functions():
            for name in caller.reads:
                if id(name) in callee_names:
                    continue
                definition = self._callee_definition(name, caller, top_level_kinds)
                if definition is not None:
                    handed_on.add(definition)
        for node in self.function_nodes:
            if node in handed_on or _called_implicitly(node, self) or any(
                    _decorator_name(decorator) not in ("staticmethod", "classmethod")
                    and grad_mode_of_context(decorator.decorator, self.names) is None
                    for decorator in node.decorators):
                sites[node] = None
        return sites

    def _callee_definition(self, func, caller: FunctionFacts, top_level_kinds: dict) -> Optional[cst.FunctionDef]:
        """The function of this file a callee (or a name read) stands for, when surely that one."""
        if isinstance(func, cst.Name):
            bindings = caller.bindings_at(func)
            if bindings:
                if all(binding.kind == "def" and isinstance(binding.statement, cst.FunctionDef)
                       for binding in bindings) and len({b.statement for b in bindings}) == 1:
                    return next(iter(bindings)).statement
                return None
            definition = self.module_functions.get(func.value)
            if definition is not None and top_level_kinds.get(func.value) == {"def"}:
                return definition
            return None
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            owner = self.classes.get(caller.class_name or "")
            return owner.methods.get(func.attr.value) if owner is not None else None
        return None

    def surely_without_grad(self, expr: cst.BaseExpression, function: FunctionFacts, depth: int = 0) -> bool:
        """Is the value surely free of autograd history? Answered by analysis/autograd.py."""
        return self.autograd.never_requires_grad(expr, function)

    def surely_integral(self, expr: cst.BaseExpression, function: FunctionFacts, depth: int = 0) -> bool:
        """Is the tensor surely of an integer or bool dtype? Answered by analysis/placement.py."""
        return self.placement.surely_integral(expr, function)

    def grad_enabled_at(self, function: FunctionFacts, statement: cst.CSTNode) -> bool:
        """Is grad mode on when `statement` runs? Off under no_grad/inference_mode (blocks and
        decorators) and in functions that every call in this file makes under no-grad."""
        mode = function.grad_mode.get(statement)
        if mode is not None:
            return mode
        if function.decorated_grad_enabled is not None:
            return function.decorated_grad_enabled
        return not self._only_called_without_grad(function)

    def _only_called_without_grad(self, function: FunctionFacts) -> bool:
        if self._called_without_grad is None:
            self._called_without_grad = self._functions_only_called_without_grad()
        return function.node in self._called_without_grad

    def _functions_only_called_without_grad(self) -> set:
        """Functions every call of which (in this file) runs under no-grad: directly, or from a
        function that itself only runs so (followed to a fixed point)."""
        call_sites: dict[str, list[tuple[FunctionFacts, Optional[bool]]]] = {}
        for caller in self.all_functions():
            for call, statement in caller.call_statement.items():
                func = call.func
                if isinstance(func, cst.Name):
                    callee = func.value
                elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
                    callee = func.attr.value
                else:
                    continue
                mode = caller.grad_mode.get(statement)
                if mode is None and caller.decorated_grad_enabled is not None:
                    mode = caller.decorated_grad_enabled
                call_sites.setdefault(callee, []).append((caller, mode))
        functions = [f for f in self.all_functions() if isinstance(f.node, cst.FunctionDef)]
        quiet: set = set()
        changed = True
        while changed:
            changed = False
            for function in functions:
                if function.node in quiet:
                    continue
                sites = call_sites.get(function.name)
                if sites and all(mode is False or (mode is None and caller.node in quiet) for caller, mode in sites):
                    quiet.add(function.node)
                    changed = True
        return quiet

    # ------------------------------------------------------------ positions

    def position(self, node: cst.CSTNode) -> CodeRange:
        return self._positions.of(node)

    def line_of(self, node: cst.CSTNode) -> int:
        return self.position(node).start.line

    def code_for(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    # ------------------------------------------------ what calls do (Callees)

    def construction_effect(self, value: cst.BaseExpression, label: str, seen: frozenset = frozenset(),
                            where: Optional[LayerContext] = None) -> CallEffect:
        """What calling the module built by `value` does to its input. `where`: the class and method
        the expression is written in, so that `act` in `nn.Sequential(act, conv)` and `self.relu` in
        `layers.append(self.relu)` can be followed to what they were built from."""
        if where is not None and isinstance(value, (cst.Name, cst.Attribute)):
            return self._named_layer_effect(value, label, seen, where)
        if not isinstance(value, cst.Call):
            return OPAQUE
        qualified = self.names.qualified_name(value.func)
        if qualified is not None:
            module, _, class_name = qualified.rpartition(".")
            if module != "torch.nn":
                return OPAQUE
            if class_name in INPLACE_MODULE_ARGUMENT:
                position = INPLACE_MODULE_ARGUMENT[class_name]
                if _argument_is_true(value, "inplace", position):
                    return CallEffect("writes", f"{label} ({class_name}(inplace=True))")
                if _argument_is_variable(value, "inplace", position):
                    # `nn.ReLU(inplace=inplace)`: decided at run time, so possibly in place.
                    return CallEffect("maybe-writes", f"{label} ({class_name}(inplace=...))")
                return PURE
            if class_name == "Identity":
                return CallEffect("identity", f"{label} (Identity)")
            if class_name == "Sequential":
                return self._sequential_effect(value, label, seen, where)
            if class_name in ("ModuleList", "ModuleDict", "ParameterList", "ParameterDict"):
                return OPAQUE
            return PURE
        callee = dotted_name(value.func) or ""
        local = self.classes.get(callee)
        if local is not None and local.name not in seen:
            return self._local_module_effect(local, label, seen | {local.name})
        factory = self.module_functions.get(callee)
        if factory is not None and callee not in seen:
            # `self.conv1 = conv3x3(...)`: a helper in this file that returns a layer.
            returned = _returned_values(factory)
            if returned:
                return _all_same([self.construction_effect(v, label, seen | {callee}) for v in returned])
        return OPAQUE

    def _sequential_effect(self, value: cst.Call, label: str, seen: frozenset,
                           where: Optional[LayerContext] = None) -> CallEffect:
        if len(value.args) == 1 and value.args[0].star == "*" and where is not None:
            # `nn.Sequential(*layers)`: only the first layer decides what happens to the input.
            firsts = self._first_list_elements(value.args[0].value, where)
            if not firsts:
                return OPAQUE
            effect = _all_same([self.construction_effect(first, label, seen, where) for first in firsts])
            if effect.kind in ("writes", "maybe-writes"):
                return CallEffect(effect.kind, f"{label} (Sequential starting with {_short(effect.description)})")
            return OPAQUE  # the later layers are not followed: nothing more is known
        layers = [arg.value for arg in value.args]
        if not layers or any(arg.star or arg.keyword for arg in value.args):
            return OPAQUE
        first = self.construction_effect(layers[0], label, seen, where)
        if first.kind == "writes":
            return CallEffect("writes", f"{label} (Sequential starting with {_short(first.description)})")
        effects = [first] + [self.construction_effect(layer, label, seen, where) for layer in layers[1:]]
        return PURE if all(effect.kind in ("pure", "writes") for effect in effects) else OPAQUE

    def _named_layer_effect(self, value, label: str, seen: frozenset, where: LayerContext) -> CallEffect:
        """A layer written as a name: a local of the constructing method (`act = nn.ReLU(True)`),
        or a `self.` attribute (`self.relu`), followed to what built it."""
        owner, method = where
        if isinstance(value, cst.Attribute):
            if not (isinstance(value.value, cst.Name) and value.value.value == "self"):
                return OPAQUE
            key = ("self", value.attr.value)
            values = self._attribute_values(owner, value.attr.value) if key not in seen else []
            if not values:
                return OPAQUE
            return _all_same([self.construction_effect(v, label, seen | {key}, (owner, owner.assigned_in.get(v)))
                              for v in values])
        if method is None or method in self._in_progress:
            return OPAQUE
        bindings = self.function_facts(method).bindings_at(value)
        key = ("local", value.value, method)
        if not bindings or key in seen or any(b.value is None or b.kind != "assign" for b in bindings):
            return OPAQUE
        return _all_same([self.construction_effect(b.value, label, seen | {key}, where) for b in bindings])

    def _first_list_elements(self, expr, where: LayerContext) -> list:
        """What may be the first element of the list `expr` names, where it is unpacked into a
        Sequential: the first element of the list it was made as, or the first thing appended to it
        when it starts empty. [] when that cannot be known: an append in a branch or a loop first,
        an insert, an extend, an item assignment, a slice (`rep = rep[1:]`), a list from elsewhere."""
        owner, method = where
        if not isinstance(expr, cst.Name) or method is None or method in self._in_progress:
            return []
        function = self.function_facts(method)
        bindings = function.bindings_at(expr)
        if len(bindings) != 1:
            return []
        made = next(iter(bindings))
        if made.kind != "assign" or not isinstance(made.value, cst.List) \
                or any(isinstance(element, cst.StarredElement) for element in made.value.elements):
            return []
        if made.value.elements:
            first = made.value.elements[0].value
            changes_first = ("insert", "__setitem__")
        else:
            first = None
            changes_first = ("insert", "__setitem__", "extend", "+=")
        top_level = set(_block_statements(method))
        for read in sorted(function.reads_of(made), key=lambda read: function.order_of(read.statement)):
            if read.node is expr:
                break
            use = _list_use(read)
            if use in changes_first or use == "other":
                return []
            if use == "append" and first is None:
                line = function.line_of_statement.get(read.statement, read.statement)
                if line not in top_level:
                    return []  # the first append is conditional or repeated: unknown
                first = read.statement.value.args[0].value if read.statement.value.args else None
                if first is None:
                    return []
        return [first] if first is not None else []

    def _local_module_effect(self, local: ClassFacts, label: str, seen: frozenset) -> CallEffect:
        forward = local.methods.get("forward")
        if forward is None or forward in self._in_progress:
            return OPAQUE
        facts = self.function_facts(forward)
        inputs = [binding for binding in facts.parameters if binding.name not in ("self", "cls")]
        if not inputs:
            return PURE
        first = inputs[0]
        events = facts.events_on(first.storages) if first.storages else []
        if any(event.certainty == "sure" for event in events):
            return CallEffect("writes", f"{label} ({local.name}, whose forward writes its input in place)")
        if events:
            return OPAQUE
        return PURE

    def function_effect(self, function: cst.FunctionDef, label: str) -> CallEffect:
        if function in self._in_progress:
            return OPAQUE
        facts = self.function_facts(function)
        opaque = False
        parameters = facts.parameters
        if self.class_of(function) is not None and parameters and parameters[0].name in ("self", "cls"):
            parameters = parameters[1:]  # `self.clip_(x)`: x is the method's first argument after self
        always_run: Optional[set] = None  # computed only for a helper that writes an argument
        for index, binding in enumerate(parameters):
            events = facts.events_on(binding.storages) if binding.storages else []
            sure = [event for event in events if event.certainty == "sure"]
            if sure and always_run is None:
                always_run = _statements_always_run(function)
            # A write under a condition of the helper's own (`if factor != 1: t.div_(factor)`) may
            # not happen at a given call: the call is opaque, not a sure write.
            writes = [event for event in sure if event.statement in always_run]
            if writes:
                without_grad = facts.decorated_grad_enabled is False or all(
                    facts.grad_mode.get(event.statement) is False or event.without_grad for event in writes)
                return CallEffect("writes", f"{label}() (writes its argument in place)", index, without_grad,
                                  layer=False)
            opaque = opaque or bool(events)
        return OPAQUE if opaque else PURE

    def effect(self, call: cst.Call, state: FlowState, owner: Optional[ClassFacts] = None) -> CallEffect:
        func = call.func
        qualified = self.names.qualified_name(func)
        if qualified is not None:
            return PURE
        if isinstance(func, cst.Call):
            return self.construction_effect(func, self.code_for(func))
        if isinstance(func, cst.Attribute):
            receiver = func.value
            if isinstance(receiver, cst.Name) and receiver.value == "self" and owner is not None:
                values = self._attribute_values(owner, func.attr.value)
                label = f"self.{func.attr.value}"
                if values:
                    return _all_same([self.construction_effect(v, label, where=self._context_of(owner, v))
                                      for v in values])
                method = owner.methods.get(func.attr.value)
                if method is not None:
                    return self.function_effect(method, label)
                return OPAQUE
            if func.attr.value in TENSOR_RETURNING_METHODS:
                return PURE
            return OPAQUE
        if isinstance(func, cst.Name):
            if func.value in PURE_BUILTINS:
                return PURE
            bindings = state.lookup(func.value)
            values = [binding.value for binding in bindings]
            if values and all(value is not None for value in values):
                return _all_same([self.construction_effect(value, func.value) for value in values])
            if func.value in self.classes:
                return PURE  # constructing an object of a class defined here
            function = self.module_functions.get(func.value)
            if function is not None and (not bindings or all(b.kind == "def" for b in bindings)):
                return self.function_effect(function, func.value)
        return OPAQUE

    def is_module_call(self, call: cst.Call, state: FlowState, owner: Optional[ClassFacts] = None) -> bool:
        """Is the callee surely an nn.Module (a torch class, or a module class of this file)?"""
        values = self._callee_values(call, state, owner)
        return bool(values) and all(self._builds_module(value) for value in values)

    def is_layer_call(self, call: cst.Call, state: FlowState, owner: Optional[ClassFacts] = None) -> bool:
        """Is the callee an object built by a constructor call (`self.body = Body()`), used as a layer?"""
        values = self._callee_values(call, state, owner)
        return bool(values) and all(isinstance(value, cst.Call) for value in values)

    def calls_a_module(self, call: cst.Call, function: FunctionFacts) -> bool:
        """After the walk: is the callee surely an nn.Module (`self.head = nn.Linear(...)`, `net = Net()`)?"""
        func = call.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            owner = self.classes.get(function.class_name or "")
            values = self._attribute_values(owner, func.attr.value) if owner is not None else []
        elif isinstance(func, cst.Name):
            values = [binding.value for binding in function.bindings_at(func)]
        else:
            return False
        return bool(values) and all(self._builds_module(value) for value in values)

    def _callee_values(self, call: cst.Call, state: FlowState, owner: Optional[ClassFacts]) -> list:
        """What the callee was assigned: `self.x = ...` in the class, or the name's reaching values."""
        func = call.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            return self._attribute_values(owner, func.attr.value) if owner is not None else []
        if isinstance(func, cst.Name):
            return [binding.value for binding in state.lookup(func.value)]
        return []

    def _builds_module(self, value: Optional[cst.BaseExpression], seen: frozenset = frozenset()) -> bool:
        if not isinstance(value, cst.Call):
            return False
        qualified = self.names.qualified_name(value.func)
        if qualified is not None:
            return qualified.startswith("torch.nn.") and qualified.count(".") == 2 and qualified[9:10].isupper()
        callee = dotted_name(value.func) or ""
        local = self.classes.get(callee)
        if local is not None:
            return self.is_module_class(local)
        factory = self.module_functions.get(callee)
        if factory is not None and callee not in seen:
            returned = _returned_values(factory)
            return bool(returned) and all(self._builds_module(v, seen | {callee}) for v in returned)
        return False

    def _context_of(self, owner: ClassFacts, value: cst.BaseExpression) -> LayerContext:
        """The class and method an attribute's value is assigned in (a base class's, when inherited)."""
        for facts in [owner, *self.classes.values()]:
            method = facts.assigned_in.get(value)
            if method is not None:
                return facts, method
        return owner, None

    def attribute_values(self, owner: ClassFacts, attribute: str) -> list:
        """What `self.<attribute>` is assigned in the class (or in a base class of this file)."""
        return self._attribute_values(owner, attribute)

    def _attribute_values(self, owner: ClassFacts, attribute: str, seen: Optional[set] = None) -> list:
        values = owner.attribute_values.get(attribute)
        if values:
            return values
        seen = seen or {owner.name}
        for base in owner.base_names:
            local = self.classes.get(base)
            if local is not None and local.name not in seen:
                seen.add(local.name)
                found = self._attribute_values(local, attribute, seen)
                if found:
                    return found
        return []


def _block_statements(function: cst.FunctionDef) -> list:
    body = function.body
    return list(body.body) if isinstance(body, cst.IndentedBlock) else [body]


def _list_use(read: Read) -> str:
    """How a read of a list changes it: "append" (`layers.append(v)` as a statement), "extend",
    "insert", "__setitem__", "+=", "read" (left unchanged: `len(layers)`), or "other"."""
    statement = read.statement
    if isinstance(statement, cst.Expr) and isinstance(statement.value, cst.Call):
        func = statement.value.func
        if isinstance(func, cst.Attribute) and func.value is read.node:
            method = func.attr.value
            if method in ("append", "extend", "insert"):
                return method
            return "other"
    if isinstance(statement, cst.AugAssign) and statement.target is read.node:
        return "+="
    if isinstance(statement, cst.Assign) and any(
            isinstance(target.target, cst.Subscript) and target.target.value is read.node for target in statement.targets):
        return "__setitem__"
    if isinstance(statement, (cst.Assign, cst.Expr)) and isinstance(getattr(statement, "value", None), cst.Call) \
            and isinstance(statement.value.func, cst.Name) and statement.value.func.value in ("len", "print"):
        return "read"
    return "other"


class _BoundCallees(Callees):
    """Callees as seen from inside one class's methods (so `self.relu` resolves)."""

    def __init__(self, facts: ModuleFacts, owner: Optional[ClassFacts]) -> None:
        self.facts = facts
        self.owner = owner

    def effect(self, call: cst.Call, state: FlowState) -> CallEffect:
        return self.facts.effect(call, state, self.owner)

    def is_module_call(self, call: cst.Call, state: FlowState) -> bool:
        return self.facts.is_module_call(call, state, self.owner)

    def is_layer_call(self, call: cst.Call, state: FlowState) -> bool:
        return self.facts.is_layer_call(call, state, self.owner)


def _all_same(effects: list[CallEffect]) -> CallEffect:
    """One effect for a name assigned several times: the same one, or whatever is least certain."""
    kinds = {effect.kind for effect in effects}
    if len(kinds) == 1:
        return effects[0]
    if "opaque" in kinds or "identity" in kinds:
        return OPAQUE
    writer = next(effect for effect in effects if effect.kind in ("writes", "maybe-writes"))
    return CallEffect("maybe-writes", writer.description, writer.argument)


def _short(description: str) -> str:
    """`self.relu (ReLU(inplace=True))` -> `ReLU(inplace=True)`."""
    return description.split(" (", 1)[1][:-1] if " (" in description else description


def _decorator_name(decorator: cst.Decorator) -> str:
    return (dotted_name(decorator.decorator) or "").rpartition(".")[2]


def _called_implicitly(function: cst.FunctionDef, facts: "ModuleFacts") -> bool:
    """A method Python or torch calls for the user: `forward` (through `module(x)`), dunders."""
    name = function.name.value
    return facts.class_of(function) is not None and (name == "forward" or name.startswith("__"))


def _decorated_grad_mode(function: cst.FunctionDef, names: TorchNames) -> Optional[bool]:
    """`@torch.no_grad()` / `@torch.inference_mode()` -> False; `@torch.enable_grad()` -> True."""
    for decorator in function.decorators:
        mode = grad_mode_of_context(decorator.decorator, names)
        if mode is not None:
            return mode
    return None


def _returned_values(function: cst.FunctionDef) -> list:
    """The expressions a function returns (not looking into nested functions); [] if any return is bare."""
    values = []
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Return):
            if node.value is None:
                return []
            values.append(node.value)
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        else:
            stack.extend(child_nodes(node))
    return values


def _yields(function: cst.FunctionDef) -> bool:
    """Does the function's own body (not a nested function's) contain `yield`?"""
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Yield):
            return True
        if not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            stack.extend(child_nodes(node))
    return False


def _statements_always_run(function: cst.FunctionDef) -> set:
    """The small statements of `function` that run on every call that returns normally: those of
    its body and of `with` blocks in it, up to the first statement that may return early."""
    always: set = set()
    pending = list(function.body.body) if isinstance(function.body, cst.IndentedBlock) else []
    while pending:
        statement = pending.pop(0)
        if isinstance(statement, cst.SimpleStatementLine):
            always.update(statement.body)
            if any(isinstance(small, cst.Return) for small in statement.body):
                break
        elif isinstance(statement, cst.With) and isinstance(statement.body, cst.IndentedBlock):
            pending[:0] = list(statement.body.body)
        elif any(isinstance(node, cst.Return) for node in walk(statement)):
            break
    return always
