"""ModuleFacts: everything rules read about one module, each fact computed once.

Cheap facts (imports, classes, the call index) are computed eagerly in one pass;
the per-function data flow is computed on first use, so a file that only a
call-pattern rule looks at never pays for it. Positions (line/column) are
resolved on demand, only for files that have something to report.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

import libcst as cst
from libcst.metadata import CodeRange

from torchcopylint.analysis.aliasing import (
    LEAF_FACTORIES,
    Callees,
    CallEffect,
    FlowState,
    FunctionFacts,
    FunctionWalker,
    Read,
    _keyword_is_true,
    goes_through_detach,
    grad_mode_of_context,
    parameter_tensorness,
)
from torchcopylint.analysis.effects import (
    CalleeEffects,
    LayerContext,
    returned_values as _returned_values,
)
from torchcopylint.analysis.positions import Positions
from torchcopylint.analysis.syntax import child_nodes, walk
from torchcopylint.analysis.tensors import (
    NON_TENSOR_METHODS,
    Tensorness,
    TensorTyping,
    combine,
)
from torchcopylint.analysis.torchnames import TorchNames, dotted_name

# Tensor methods whose result requires grad exactly when the receiver does (their other
# arguments are sizes, devices, dtypes).
GRAD_KEEPING_METHODS = frozenset(
    "clone contiguous to cuda cpu float double half bfloat16 view reshape repeat expand permute transpose "
    "squeeze unsqueeze flatten t pin_memory".split()
)

# What makes or keeps an integer (or bool) tensor; such tensors never require grad.
INTEGRAL_DTYPES = frozenset(
    "long int64 int int32 short int16 int8 uint8 uint16 uint32 uint64 bool LongTensor IntTensor BoolTensor "
    "ByteTensor ShortTensor CharTensor".split()
)
INTEGRAL_TORCH_FUNCTIONS = frozenset(
    "argmax argmin argsort randint randint_like randperm nonzero bucketize searchsorted multinomial "
    "eq ne gt lt ge le isnan isinf isfinite logical_not logical_and logical_or logical_xor "
    "bincount tril_indices triu_indices".split()
)
INTEGRAL_METHODS = frozenset(
    "argmax argmin argsort long int short byte char bool nonzero eq ne gt lt ge le isnan isinf isfinite "
    "logical_not logical_and logical_or logical_xor bincount".split()
)
# Keep the dtype of their (first) tensor.
INTEGRAL_PRESERVING_METHODS = frozenset(
    "clone detach contiguous cpu cuda to view view_as reshape reshape_as flatten squeeze unsqueeze permute "
    "transpose t expand expand_as repeat repeat_interleave narrow select flip roll pin_memory masked_select "
    "index_select gather unfold".split()
)
INTEGRAL_PRESERVING_FUNCTIONS = frozenset(
    "clone flatten reshape squeeze unsqueeze transpose permute cat stack index_select gather flip roll "
    "masked_select narrow select".split()
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


class ModuleFacts(CalleeEffects, Callees):
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
        # Callee effects (effects.py): each function's write summary, computed once.
        self._summaries: dict = {}
        # Module-level `name = value` assignments, by name (`clip = lambda t: t.clamp_(0, 1)`, a table).
        self.module_values: dict[str, list] = {}
        self._name_references: Optional[dict] = None
        self._index()

    # -------------------------------------------------------------- indexing

    def _index(self) -> None:
        """One walk over the module: calls, function definitions, and `self.x = ...` in methods."""
        for statement in self.module.body:
            if isinstance(statement, cst.FunctionDef):
                self.module_functions[statement.name.value] = statement
            elif isinstance(statement, cst.ClassDef):
                self._index_class(statement)
            elif isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.Assign):
                        for target in small.targets:
                            if isinstance(target.target, cst.Name):
                                self.module_values.setdefault(target.target.value, []).append(small.value)
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
        """Data flow of one function (or lambda, or of the module's top-level code), computed once."""
        facts = self._function_facts.get(node)
        if facts is not None:
            return facts
        owner = self.class_of(node) if isinstance(node, cst.FunctionDef) else None
        name = node.name.value if isinstance(node, cst.FunctionDef) else \
            "<lambda>" if isinstance(node, cst.Lambda) else "<module>"
        facts = FunctionFacts(node, name, owner.name if owner else None)
        if isinstance(node, cst.FunctionDef):
            facts.decorated_grad_enabled = _decorated_grad_mode(node, self.names)
        self._in_progress.add(node)
        walker = FunctionWalker(facts, self.names, self.typing, _BoundCallees(self, owner))
        if isinstance(node, cst.FunctionDef):
            in_module_class = owner is not None and self.is_module_class(owner)
            walker.run(parameter_tensorness(node, self.names, in_module_class))
        elif isinstance(node, cst.Lambda):
            params = node.params
            ordered = [*params.posonly_params, *params.params, *params.kwonly_params]
            ordered += [params.star_arg] if isinstance(params.star_arg, cst.Param) else []
            ordered += [params.star_kwarg] if params.star_kwarg is not None else []
            walker.run([(param, Tensorness.UNKNOWN) for param in ordered])
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

    def surely_without_grad(self, expr: cst.BaseExpression, function: FunctionFacts, depth: int = 0) -> bool:
        """Is the tensor surely one that does not require grad: through `.data`/`.detach()`, a
        `.grad`, or a torch factory made without `requires_grad=True` (directly or by name)?"""
        if depth > 8:
            return False
        if goes_through_detach(expr) or (isinstance(expr, cst.Attribute) and expr.attr.value == "grad"):
            return True
        # Only floating-point and complex tensors can require grad.
        if self.surely_integral(expr, function, depth + 1):
            return True
        if isinstance(expr, cst.Call):
            qualified = self.names.qualified_name(expr.func) or ""
            module, _, name = qualified.rpartition(".")
            if module == "torch" and name in LEAF_FACTORIES | {"from_numpy"}:
                return not _keyword_is_true(expr, "requires_grad")
            if module in ("torch", "torch.nn.functional"):
                # `F.softplus(t)` of tensors that need no grad needs none either.
                return all(self._without_grad_operand(arg.value, function, depth) for arg in expr.args
                           if arg.keyword is None)
            if not qualified and isinstance(expr.func, cst.Attribute):
                method = expr.func.attr.value
                if method in NON_TENSOR_METHODS:
                    return True  # `x.size()`, `x.item()`: not a tensor at all
                if method in GRAD_KEEPING_METHODS:
                    # `grid.clone()`, `theta.to(device)`: requires grad exactly when the receiver does.
                    return self.surely_without_grad(expr.func.value, function, depth + 1)
            return False
        if isinstance(expr, cst.BinaryOperation):
            return self._without_grad_operand(expr.left, function, depth) and \
                self._without_grad_operand(expr.right, function, depth)
        if isinstance(expr, cst.UnaryOperation):
            return self._without_grad_operand(expr.expression, function, depth)
        if isinstance(expr, cst.Name):
            bindings = function.bindings_at(expr)
            return bool(bindings) and all(
                binding.value is not None and not binding.leaf
                and self.surely_without_grad(binding.value, function, depth + 1) for binding in bindings)
        return False

    def surely_integral(self, expr: cst.BaseExpression, function: FunctionFacts, depth: int = 0) -> bool:
        """Is the tensor surely of an integer or bool dtype (so it can never require grad)?
        `argmax`, `.long()`, `torch.randint`, a factory with `dtype=torch.long`, a comparison,
        and what views, copies, indexing and moves keep of such a tensor."""
        if depth > 8:
            return False
        if isinstance(expr, cst.Comparison):
            return not any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in expr.comparisons)
        if isinstance(expr, cst.Subscript):
            return self.surely_integral(expr.value, function, depth + 1)
        if isinstance(expr, cst.Attribute):
            if expr.attr.value in ("indices",):  # `x.topk(k).indices`, `x.max(dim).indices`
                return isinstance(expr.value, cst.Call)
            return expr.attr.value in ("data", "T", "mT") and self.surely_integral(expr.value, function, depth + 1)
        if isinstance(expr, cst.Name):
            bindings = function.bindings_at(expr)
            return bool(bindings) and all(
                binding.value is not None and binding.kind in ("assign", "walrus")
                and self.surely_integral(binding.value, function, depth + 1) for binding in bindings)
        if not isinstance(expr, cst.Call):
            return False
        dtype = next((arg.value for arg in expr.args if arg.keyword is not None and arg.keyword.value == "dtype"), None)
        if dtype is not None:
            return self._is_integral_dtype(dtype)
        qualified = self.names.qualified_name(expr.func)
        if qualified is not None:
            module, _, name = qualified.rpartition(".")
            if module != "torch":
                return False
            if name in INTEGRAL_TORCH_FUNCTIONS:
                return True
            if name in INTEGRAL_PRESERVING_FUNCTIONS and expr.args:
                return self.surely_integral(expr.args[0].value, function, depth + 1)
            return False
        if not isinstance(expr.func, cst.Attribute):
            return False
        method = expr.func.attr.value
        if method in INTEGRAL_METHODS:
            return True
        if method in ("to", "type") and expr.args and expr.args[0].keyword is None:
            first = expr.args[0].value
            if self._is_integral_dtype(first):
                return True
            if self.names.qualified_name(first) is not None or self.tensorness(first).is_tensor \
                    or (method == "type" and isinstance(first, cst.SimpleString)):
                return False  # another dtype (`torch.float`, "torch.FloatTensor") or another tensor's dtype
        if method in INTEGRAL_PRESERVING_METHODS:
            return self.surely_integral(expr.func.value, function, depth + 1)
        return False

    def _is_integral_dtype(self, expr: cst.BaseExpression) -> bool:
        qualified = self.names.qualified_name(expr) or ""
        return qualified.rpartition(".")[2] in INTEGRAL_DTYPES and qualified.startswith("torch.")

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

    def _without_grad_operand(self, expr: cst.BaseExpression, function: FunctionFacts, depth: int) -> bool:
        """A number, or a tensor that surely does not require grad."""
        if isinstance(expr, (cst.Integer, cst.Float)):
            return True
        if isinstance(expr, cst.Name):
            bindings = function.bindings_at(expr)
            if bindings and all(binding.tensorness is Tensorness.NOT for binding in bindings):
                return True
        return self.surely_without_grad(expr, function, depth + 1)

    # ------------------------------------------------------------ positions

    def position(self, node: cst.CSTNode) -> CodeRange:
        return self._positions.of(node)

    def line_of(self, node: cst.CSTNode) -> int:
        return self.position(node).start.line

    def code_for(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    # ------------------------------------------------ what calls do (Callees)

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

    def name_references(self, name: str) -> int:
        """How many times the module spells `name` as a word, less its definitions (and
        `super(Block, self)`): an upper bound of the references (strings and comments count too,
        which only makes callers warier). One scan of the text, on first use."""
        if self._name_references is None:
            text = self._positions.source if self._positions.source is not None else self.module.code
            counts: dict[str, int] = {}
            for word in re.findall(r"(?<![\w.])[A-Za-z_]\w*", text):
                counts[word] = counts.get(word, 0) + 1
            for defined, in_super in re.findall(r"\b(?:def|class)\s+(\w+)|\bsuper\(\s*(\w+)", text):
                word = defined or in_super
                counts[word] = counts.get(word, 0) - 1
            self._name_references = counts
        return self._name_references.get(name, 0)

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

    def calls_a_method_of_the_file(self, call: cst.Call, state: FlowState) -> bool:
        receiver = call.func.value if isinstance(call.func, cst.Attribute) else None
        if isinstance(receiver, cst.Name) and receiver.value == "self":
            return self.owner is not None and self.facts.method_of(self.owner, call.func.attr.value) is not None
        return receiver is not None and self.facts.instance_class(receiver, state, self.owner) is not None


def _decorated_grad_mode(function: cst.FunctionDef, names: TorchNames) -> Optional[bool]:
    """`@torch.no_grad()` / `@torch.inference_mode()` -> False; `@torch.enable_grad()` -> True."""
    for decorator in function.decorators:
        mode = grad_mode_of_context(decorator.decorator, names)
        if mode is not None:
            return mode
    return None


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
