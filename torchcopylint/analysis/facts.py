"""ModuleFacts: everything rules read about one module, each fact computed once.

Cheap facts (imports, classes, the call index) are computed eagerly in one pass;
the per-function data flow is computed on first use, so a file that only a
call-pattern rule looks at never pays for it. Positions (line/column) are
resolved on demand, only for files that have something to report.
"""

from __future__ import annotations

import builtins
import re
from typing import Iterator, Optional

import libcst as cst
from libcst.metadata import CodeRange

from torchcopylint.analysis.aliasing import (
    Callees,
    CallEffect,
    FlowState,
    FunctionFacts,
    FunctionWalker,
    Read,
    argument_at,
    grad_mode_of_context,
    parameter_tensorness,
)
from torchcopylint.analysis.classes import ClassFacts
from torchcopylint.analysis.containers import ContainerFacts
from torchcopylint.analysis.effects import (
    CalleeEffects,
    LayerContext,
    returned_values as _returned_values,
)
from torchcopylint.analysis.positions import Positions
from torchcopylint.analysis.syntax import child_nodes, is_self_attribute, walk
from torchcopylint.analysis.tensors import (
    NUMPY_ARRAY_MAKERS,
    Tensorness,
    TensorTyping,
    combine,
    tests_type,
)
from torchcopylint.analysis.torchnames import TorchNames, dotted_name, foreign_imports, library_names, numpy_name

AUTOGRAD_FUNCTION_CLASSES = frozenset({"torch.autograd.Function", "torch.autograd.function.Function"})
# Module and tensor methods that register a function autograd calls during the backward.
BACKWARD_HOOK_REGISTRARS = frozenset({"register_backward_hook", "register_full_backward_hook",
                                      "register_full_backward_pre_hook", "register_hook",
                                      "register_post_accumulate_grad_hook"})
BUILTIN_NAMES = frozenset(dir(builtins))
PANDAS_TABLES = frozenset({"pandas.DataFrame", "pandas.Series"})
# Methods that training frameworks run under no-grad themselves (Lightning, Ignite evaluators).
FRAMEWORK_NO_GRAD_METHODS = frozenset({"validation_step", "test_step", "predict_step", "on_validation_batch_end",
                                       "on_test_batch_end", "on_predict_batch_end"})


class ModuleFacts(CalleeEffects, Callees):
    def __init__(self, module: cst.Module, path: str = "<string>", source: Optional[str] = None) -> None:
        """`source`: the text `module` was parsed from, if known (positions are cheaper with it)."""
        self.module = module
        self.path = path
        self.names = TorchNames.from_module(module, source)
        self.numpy = library_names(module)  # local name -> NumPy's name: {"np": "numpy"}
        self.pandas = library_names(module, "pandas")
        self.einops = library_names(module, "einops")  # `rearrange(x, "b t c -> (b t) c")`: x itself, rearranged
        self.torchvision = library_names(module, "torchvision")  # `MNIST(root)`: a dataset, whose items are data
        self.typing = TensorTyping(self.names, returns=self.returned_tensorness, numpy=self.numpy,
                                   torchvision=self.torchvision)
        self._returned: dict[cst.FunctionDef, Tensorness] = {}
        self.classes: dict[str, ClassFacts] = {}
        self.module_functions: dict[str, cst.FunctionDef] = {}  # the last `def` of each name at the top level
        # Names the top level defines more than once (a notebook's NumPy helper redefined for tensors in a
        # later cell): which one a call runs depends on where it is.
        self.defined_again: set[str] = set()
        self.calls: list[cst.Call] = []
        # Local names the module binds, anywhere, to another framework or a model runtime (`tf` of
        # `import tensorflow as tf` in a branch of a loader): what they build is no torch network.
        self.foreign_names: set[str] = set()
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
        self._backward_hooks: Optional[frozenset] = None
        self._creates_graph: Optional[bool] = None
        self._call_sites: Optional[dict] = None
        self._training = None
        self._autograd = None
        self._placement = None
        self._summaries = None
        self._gan_steps = None
        self._containers: Optional[ContainerFacts] = None
        self._global_values: Optional[dict] = None
        self._top_function_nodes: Optional[frozenset] = None
        self._function_numbers: Optional[dict] = None
        self._bound_names_of: dict = {}
        # Callee effects (effects.py): each function's write summary, computed once.
        self._write_summaries: dict = {}
        # Hand-written `backward` methods (training.py): which argument each backpropagates, once each.
        # Asked for every call whose receiver's class is unknown, for every class of the file, and
        # recursively through those methods' own calls: without the memo, exponential in the classes.
        self.backward_positions: dict = {}
        self._name_references: Optional[dict] = None
        self._loaders = None
        self._callers: Optional[dict] = None
        # function -> (caller, statement) of each call it is handed to as an argument (`evaluate(n, sample_fn)`)
        self._handed_to_calls: dict = {}
        self._index()

    # -------------------------------------------------------------- indexing

    def _index(self) -> None:
        """One walk over the module: calls, function definitions, and `self.x = ...` in methods."""
        for statement in self.module.body:
            if type(statement) is cst.FunctionDef:
                if statement.name.value in self.module_functions:
                    self.defined_again.add(statement.name.value)
                self.module_functions[statement.name.value] = statement
            elif type(statement) is cst.ClassDef:
                self._index_class(statement)
        # method -> its `self.<attribute> = value` assignments (not those of nested functions)
        self_assignments: dict[cst.FunctionDef, list[tuple[str, cst.BaseExpression]]] = {}
        calls, method_calls, function_nodes = self.calls, self._method_calls, self.function_nodes
        methods = self._class_of_function
        # Depth first, last child first. `method` is the method whose own body the walk is in
        # (None at the top, in a class body, in a nested function); a definition pushes a marker
        # under its children that restores the enclosing one. Definitions stand only in a
        # module's or a block's statements: only those lists are looked through for them.
        method: Optional[cst.FunctionDef] = None
        stack: list = [self.module]
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind is cst.Call:
                calls.append(node)
                if type(node.func) is cst.Attribute:
                    method_calls.setdefault(node.func.attr.value, []).append(node)
                if method is not None and _updates_self_with_locals(node):
                    # `self.__dict__.update(locals())` (YOLOv5's multi-backend loader): every local of
                    # the method becomes the attribute of its name, each value it was assigned.
                    self_assignments.setdefault(method, []).extend(_local_assignments(method))
            elif kind is cst.Import or kind is cst.ImportFrom:
                self.foreign_names |= foreign_imports(node)
            elif kind is cst.Assign:
                if method is not None:
                    for target in node.targets:
                        target = target.target
                        if type(target) is cst.Attribute and type(target.value) is cst.Name \
                                and target.value.value == "self":
                            self_assignments.setdefault(method, []).append((target.attr.value, node.value))
            elif kind is cst.AnnAssign:  # `self.dqn: LSTMDQN = LSTMDQN(actions)`
                target = node.target
                if method is not None and node.value is not None and type(target) is cst.Attribute \
                        and type(target.value) is cst.Name and target.value.value == "self":
                    self_assignments.setdefault(method, []).append((target.attr.value, node.value))
            elif kind is cst.IndentedBlock or kind is cst.Module:
                children = child_nodes(node)
                for child in children:
                    if type(child) is cst.FunctionDef:
                        function_nodes.append(child)
                stack.extend(children)
                continue
            elif kind is _LeaveScope:
                method = node.method
                continue
            elif kind is cst.FunctionDef or kind is cst.ClassDef:
                stack.append(_LeaveScope(method))
                method = node if kind is cst.FunctionDef and node in methods else None
            stack.extend(child_nodes(node))
        for method, facts in self._class_of_function.items():  # in the order of the class bodies
            for attribute, value in self_assignments.get(method, ()):
                facts.attribute_values.setdefault(attribute, []).append(value)
                facts.assigned_in[value] = method

    def release(self) -> None:
        """Drop everything computed for this module, once its rules have run.

        The analysis holds references back to the facts (the typing's bound methods, the walkers'
        callees), so without this the module's tree and facts are garbage in a cycle: only the
        cycle collector frees them, in a pass over all of their objects that cost 8% of a lint.
        Cleared, they are freed at once by reference counting."""
        self.__dict__.clear()

    def _index_class(self, node: cst.ClassDef) -> None:
        facts = ClassFacts(node, node.name.value, [dotted_name(base.value) or "" for base in node.bases])
        self.classes[facts.name] = facts
        for statement in node.body.body:
            if type(statement) is cst.FunctionDef:
                facts.methods[statement.name.value] = statement
                self._class_of_function[statement] = facts

    # ------------------------------------------------------------- queries

    def method_calls(self, method: str) -> list[cst.Call]:
        """Calls spelled `<receiver>.<method>(...)`, in no particular order."""
        return self._method_calls.get(method, [])

    def class_of(self, function: cst.FunctionDef) -> Optional[ClassFacts]:
        return self._class_of_function.get(function)

    def _backward_creates_graph(self) -> bool:
        """Does a backward of the file ask for `create_graph=True` (`.backward(create_graph=True)`,
        `torch.autograd.grad(..., create_graph=True)`)? Autograd then runs what it calls in a backward
        (hooks, a Function's `backward`) with grad mode on."""
        if self._creates_graph is None:
            self._creates_graph = any(type(argument.value) is cst.Name and argument.value.value == "True"
                                      for method in ("backward", "grad") for call in self.method_calls(method)
                                      for argument in call.args
                                      if argument.keyword is not None and argument.keyword.value == "create_graph")
        return self._creates_graph

    def _registered_as_backward_hook(self, node: cst.FunctionDef, owner: Optional[ClassFacts]) -> bool:
        """Is the function handed to `register_full_backward_hook` (or a tensor's `register_hook`) in
        this file? Autograd runs it inside the backward, where grad mode is off: `grad_output` and what
        the hook computes from it carry no graph. Not where a backward of the file creates a graph."""
        if self._backward_hooks is None:
            self._backward_hooks = frozenset() if self._backward_creates_graph() else frozenset(
                dotted_name(call.args[0].value) for method in BACKWARD_HOOK_REGISTRARS
                for call in self.method_calls(method) if call.args and dotted_name(call.args[0].value))
        return (f"self.{node.name.value}" if owner is not None else node.name.value) in self._backward_hooks

    def _is_autograd_function(self, facts: ClassFacts) -> bool:
        """Does the class derive from torch.autograd.Function, directly or through classes in this file?"""
        return self._derives_from(facts, lambda qualified: qualified in AUTOGRAD_FUNCTION_CLASSES)

    def is_module_class(self, facts: ClassFacts) -> bool:
        """Does the class derive from torch.nn.Module, directly or through classes in this file?"""
        return self._derives_from(facts, lambda qualified: qualified.startswith("torch.nn."))

    def lineage(self, name: str) -> set[str]:
        """The class named `name` and the classes of the file it extends, directly or not, by name."""
        found, pending = set(), [name]
        while pending:
            current = pending.pop()
            if current not in found:
                found.add(current)
                local = self.classes.get(current)
                pending += [base.rsplit(".", 1)[-1] for base in local.base_names] if local is not None else []
        return found

    def _derives_from(self, facts: ClassFacts, accepts, seen: Optional[set] = None) -> bool:
        """Does the class derive from a torch class whose qualified name `accepts` takes, directly or
        through classes in this file?"""
        seen = seen or {facts.name}
        for base in facts.node.bases:
            qualified = self.names.qualified_name(base.value)
            if qualified is not None and accepts(qualified):
                return True
            local = self.classes.get(dotted_name(base.value) or "")
            if local is not None and local.name not in seen:
                seen.add(local.name)
                if self._derives_from(local, accepts, seen):
                    return True
        return False

    def function_facts(self, node: cst.CSTNode) -> FunctionFacts:
        """Data flow of one function (or lambda, or of the module's top-level code), computed once."""
        facts = self._function_facts.get(node)
        if facts is not None:
            return facts
        owner = self.class_of(node) if type(node) is cst.FunctionDef else None
        name = node.name.value if type(node) is cst.FunctionDef else \
            "<lambda>" if type(node) is cst.Lambda else "<module>"
        facts = FunctionFacts(node, name, owner.name if owner else None, self._number_of(node))
        if type(node) is cst.FunctionDef:
            facts.decorated_grad_enabled = _decorated_grad_mode(node, self.names)
            if facts.decorated_grad_enabled is None and node.name.value == "forward" and owner is not None \
                    and self._is_autograd_function(owner):
                facts.decorated_grad_enabled = False  # autograd runs a Function's forward with grad mode off
            if facts.decorated_grad_enabled is None and node.name.value == "backward" and owner is not None \
                    and self._is_autograd_function(owner) and not self._backward_creates_graph():
                facts.decorated_grad_enabled = False  # and its backward, unless a backward creates a graph
            if facts.decorated_grad_enabled is None and self._registered_as_backward_hook(node, owner):
                facts.decorated_grad_enabled = False  # and a backward hook, unless a backward creates a graph
        self._in_progress.add(node)
        walker = FunctionWalker(facts, self.names, self.typing,
                                _BoundCallees(self, owner, in_function=node in self._top_functions()))
        if type(node) is cst.FunctionDef:
            in_module_class = owner is not None and self.is_module_class(owner)
            walker.run(parameter_tensorness(node, self.names, in_module_class))
        elif type(node) is cst.Lambda:
            params = node.params
            ordered = [*params.posonly_params, *params.params, *params.kwonly_params]
            ordered += [params.star_arg] if type(params.star_arg) is cst.Param else []
            ordered += [params.star_kwarg] if params.star_kwarg is not None else []
            walker.run([(param, Tensorness.UNKNOWN) for param in ordered])
        else:
            walker.run(())
        self._in_progress.discard(node)
        self._function_facts[node] = facts
        return facts

    def _number_of(self, node: cst.CSTNode) -> int:
        if self._function_numbers is None:
            self._function_numbers = {id(each): number for number, each in enumerate([self.module, *self.function_nodes])}
        return self._function_numbers.get(id(node), -1)

    def all_functions(self) -> list[FunctionFacts]:
        """Every function in the module (nested ones too) and the top-level code."""
        if self._all_function_facts is None:
            self._all_function_facts = [self.function_facts(node) for node in [self.module, *self.function_nodes]]
        return self._all_function_facts

    # ------------------------------------------------------- module-level names

    def global_values(self, name: str) -> tuple:
        """What the module's top level assigns to `name` (`G = nn.Sequential(...)`, `w = torch.randn(...)`),
        anywhere outside functions and classes, for a function that reads `name` without assigning
        it. Empty when the top level also binds it otherwise (a def, a class, an import, a loop) or
        never does. Read from the syntax alone, so it is available while functions are being walked."""
        if self._global_values is None:
            self._global_values = _top_level_assignments(self.module)
        return self._global_values.get(name, ())

    def module_function_called(self, name: cst.Name, function: FunctionFacts) -> Optional[cst.FunctionDef]:
        """The module-level `def` a call of `name` in `function` runs, when the name is not rebound
        on the way (at the top level of a script or notebook, the `def` itself binds the name)."""
        node = self.module_functions.get(name.value)
        if node is None:
            return None
        bindings = self.reaching(name, function)[1]
        return node if all(binding.kind == "def" and binding.statement is node for binding in bindings) else None

    def reaching(self, name: cst.Name, function: FunctionFacts) -> tuple[FunctionFacts, frozenset]:
        """The assignments a read of `name` may see, with the function they belong to: the function's
        own; or, for a name a module-level function or method never binds (a global), the top level's
        (`model = nn.Linear(...)` at the top, `model(x)` in `def evaluate()`)."""
        bindings = function.bindings_at(name)
        if bindings or function.node not in self._top_functions() or name.value in self._bound_names(function):
            return function, bindings
        if not self.global_values(name.value):
            return function, bindings
        module = self.function_facts(self.module)
        return module, frozenset(binding for binding in module.bindings if binding.name == name.value)

    def bound_by_import(self, expression: cst.CSTNode, function: FunctionFacts) -> bool:
        """Is the expression's head a name only an import binds, other than torch's (`np.mean`,
        `utils.gradient_penalty`, `from utils import gradient_penalty`), or a name the file binds nowhere
        beside a `from utils import *`? Code this file cannot read."""
        head = expression
        while type(head) is cst.Attribute:
            head = head.value
        if type(head) is not cst.Name or self.names.qualified_name(expression) is not None:
            return False
        _, bindings = self.reaching(head, function)
        if not bindings and head.value not in self._bound_names(function):
            # A global the top level binds by an import (which `reaching` leaves out: no value to follow).
            bindings = frozenset(binding for binding in self.function_facts(self.module).bindings
                                 if binding.name == head.value)
            if not bindings and self.names.star_import and head.value not in BUILTIN_NAMES and \
                    head.value not in self.module_functions and head.value not in self.classes:
                return True
        return bool(bindings) and all(binding.kind == "import" for binding in bindings)

    def instance_of_imported_class(self, expr: cst.BaseExpression, function: FunctionFacts) -> bool:
        """Is every value `expr` (a name, or a `self.` attribute) may hold here an object of a class
        another module defines (`fake_buffer = ReplayBuffer()` after `from data import ReplayBuffer`,
        `self.fake_A_pool = ImagePool(50)` in `__init__`)? Its methods are code this file cannot read."""
        if type(expr) is cst.Name:
            scope, bindings = self.reaching(expr, function)
            placed = [(binding.value, scope) for binding in bindings]
        elif type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value == "self" \
                and function.class_name in self.classes:
            owner = self.classes[function.class_name]
            placed = [(value, self.function_facts(owner.assigned_in[value]) if value in owner.assigned_in else function)
                      for value in self.attribute_values(owner, expr.attr.value)]
        else:
            return False
        return bool(placed) and all(
            type(value) is cst.Call and (dotted_name(value.func) or "").rpartition(".")[2][:1].isupper()
            and self.bound_by_import(value.func, scope) for value, scope in placed)

    def _top_functions(self) -> frozenset:
        """Module-level functions and the methods of module-level classes (not nested functions,
        whose free names may be the enclosing function's)."""
        if self._top_function_nodes is None:
            nodes = set(self.module_functions.values())
            for class_facts in self.classes.values():
                nodes.update(class_facts.methods.values())
            self._top_function_nodes = frozenset(nodes)
        return self._top_function_nodes

    def _bound_names(self, function: FunctionFacts) -> frozenset:
        found = self._bound_names_of.get(function.node)
        if found is None:
            found = self._bound_names_of[function.node] = frozenset(binding.name for binding in function.bindings)
        return found

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
    def summaries(self):
        """What each function, method and lambda returns, writes and calls (Summaries), built on first use."""
        if self._summaries is None:
            from torchcopylint.analysis.summaries import Summaries

            self._summaries = Summaries(self)
        return self._summaries

    def summary(self, node: cst.CSTNode, scope: Optional[FunctionFacts] = None, name: Optional[str] = None):
        """The FunctionSummary of a function or lambda of this module (None while it is being computed)."""
        return self.summaries.summary(node, scope, name)

    def callee_summary(self, call: cst.Call, function: FunctionFacts):
        """The FunctionSummary of what `call` calls in `function`, when that is a function of this module."""
        return self.summaries.callee_summary(call, function)

    @property
    def gan_steps(self):
        """Discriminator steps fed the generator's output (GanSteps), built on first use."""
        if self._gan_steps is None:
            from torchcopylint.analysis.gan_steps import GanSteps

            self._gan_steps = GanSteps(self)
        return self._gan_steps

    @property
    def containers(self) -> ContainerFacts:
        """Lists, dicts and `self.` state per function: what accumulates, what outlives a loop (containers.py)."""
        if self._containers is None:
            self._containers = ContainerFacts(self.names)
        return self._containers

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
            if found is None:
                return Tensorness.UNKNOWN
            bindings = found[1].bindings or self.reaching(name, found[0])[1]  # a global: the top level's
            if not bindings:
                return Tensorness.UNKNOWN
            return combine(binding.tensorness for binding in bindings)

        return self.typing.of(expr, lookup)

    def returned_tensorness(self, call: cst.Call) -> Tensorness:
        """What a call of a function defined at the top of this module returns: SURE when every
        `return` gives a sure tensor, LIKELY when every one gives a tensor, else UNKNOWN."""
        function = self.module_functions.get(call.func.value) if type(call.func) is cst.Name else None
        if function is None or function in self._in_progress or call.func.value in self.defined_again:
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

    def class_called(self, func: cst.BaseExpression, function: FunctionFacts) -> Optional[ClassFacts]:
        """The class of the file a call through `func` builds: one named so, unless `function` binds
        that name to something else (`def train(G, D, ...)` then `G(seeds)` runs the network it was
        given, not the class `G`)."""
        if type(func) is not cst.Name:
            return None
        local = self.classes.get(func.value)
        if local is None or type(function.node) is not cst.Module and any(
                binding.kind != "def" for binding in function.bindings_at(func)):
            return None
        return local

    def call_site(self, call: cst.Call) -> Optional[tuple[FunctionFacts, cst.CSTNode]]:
        """The function a call is made in, and the statement holding it."""
        if self._call_sites is None:
            self._call_sites = {}
            for function in self.all_functions():
                for node, statement in function.call_statement.items():
                    self._call_sites[node] = (function, statement)
        return self._call_sites.get(call)

    def type_tested(self, call: cst.Call, name: str) -> bool:
        """Is the call under an `if` that asks what `name` is (`isinstance`, `type(x) ==`,
        `torch.is_tensor`): a branch the code takes for one kind of value, whatever the annotation
        or the callers say?"""
        site = self.call_site(call)
        if site is None:
            return False
        function, statement = site
        # `labels.to(device) if isinstance(labels, torch.Tensor) else torch.tensor(labels)`: an `if` of the
        # statement's own expression, the call in one of its branches.
        tests = [expression.test for expression in walk(statement) if type(expression) is cst.IfExp
                 and tests_type(expression.test)
                 and any(node is call for branch in (expression.body, expression.orelse) for node in walk(branch))]
        return _names(name, (*function.type_tests_of.get(statement, ()), *tests))

    @staticmethod
    def dispatches_on_type_of(function: FunctionFacts, name: str) -> bool:
        """Does the function branch on what `name` is anywhere (`if isinstance(x, torch.Tensor): return
        x.detach().numpy()`, then `return np.array(x)`): a helper written for several kinds of value,
        whose every line is not for every kind its callers pass."""
        return _names(name, {test for tests in function.type_tests_of.values() for test in tests})

    def call_sites_of(self, function: FunctionFacts) -> Optional[list]:
        """The calls of a function of this file, each as (caller's FunctionFacts, call, statement):
        a module-level function called by its name where the name is not rebound, a method called
        as `self.<name>(...)` in its class or on an object of its class (`pool.query(x)`, `self.g.sample(n)`
        where the class builds `self.g = BiGenerator(...)`), a nested function called by name where it is
        defined.
        None when the calls are not all in sight here: the name is also read as a value (handed on
        as a callback), the function is decorated (other than `staticmethod`/`classmethod`/a grad
        mode), or it is a method called implicitly (`forward`, `__call__`, `__init__`...). Built
        once for the module, in one pass over the calls already indexed."""
        if self._callers is None:
            self._callers = self._index_callers()
        if type(function.node) is not cst.FunctionDef:
            return None
        return self._callers.get(function.node, [])

    def arguments_passed(self, name: cst.Name) -> Optional[list]:
        """What each call of the file passes for the parameter that `name`, read in its function,
        holds there (the parameter not rebound before the read): None when the calls are not all in
        sight (see `call_sites_of`), there are none, or one passes it through `*`/`**` or not at all."""
        found = self.read_of(name)
        if found is None:
            return None
        function, read = found
        if not read.bindings or not all(binding.kind == "param" for binding in read.bindings):
            return None
        sites = self.call_sites_of(function)
        if not sites:
            return None
        node = function.node
        ordered = [*node.params.posonly_params, *node.params.params]
        names = [param.name.value for param in ordered]
        if names and names[0] in ("self", "cls") and function.class_name:
            names = names[1:]  # called as `self.<name>(...)`
        position = names.index(name.value) if name.value in names else None
        passed = [argument_at(call, position, name.value) for _, call, _ in sites]
        return None if any(argument is None for argument in passed) else passed

    def _index_callers(self) -> dict:
        sites: dict = {}
        handed_on: set = set()
        module = self.function_facts(self.module)
        top_level_kinds: dict = {}
        for binding in module.bindings:
            kinds = top_level_kinds.setdefault(binding.name, set())
            if binding.kind == "def" and "def" in kinds:
                # Defined twice (a notebook's later cell redefines `draw`): a function reading the name
                # calls whichever the top level holds when it runs, which is not in sight.
                kinds.add("redefined")
            kinds.add(binding.kind)
        callee_names: set = set()
        tables = self._dispatch_tables(module, top_level_kinds)
        argument_of: dict = {}  # id of a name passed as an argument -> (caller, statement of the call)
        for caller in self.all_functions():
            for call, statement in caller.call_statement.items():
                for arg in call.args:
                    if (type(arg.value) is cst.Name or is_self_attribute(arg.value)) and not arg.star:
                        argument_of[id(arg.value)] = (caller, statement)
                callee = self._callee_definition(call.func, caller, top_level_kinds)
                if callee is not None:
                    sites.setdefault(callee, []).append((caller, call, statement))
                    callee_names.add(id(call.func))
                table = tables.get(call.func.value.value) if type(call.func) is cst.Subscript \
                    and type(call.func.value) is cst.Name and not caller.bindings_at(call.func.value) else None
                for callee in (table.values() if table is not None else ()):
                    sites.setdefault(callee, []).append((caller, call, statement))  # `COMMANDS[args.command](args)`
        callee_names |= {id(name) for table in tables.values() for name in table}
        # `super(Normalization, self).__init__()` names the class to find its base: no call of it.
        callee_names |= {id(node.args[0].value) for node in self.calls
                         if type(node.func) is cst.Name and node.func.value == "super" and node.args}
        for caller in self.all_functions():
            for name in caller.reads:
                if id(name) in callee_names:
                    continue
                definition = self._callee_definition(name, caller, top_level_kinds)
                if definition is not None:
                    handed_on.add(definition)
                    self._handed_to_calls.setdefault(definition, []).append(argument_of.get(id(name)))
        # A method read as `self.<name>` other than to call it (`run_episode(self.act)`, `solve_ivp(self.ode_func,
        # ...)`): handed on too, with the call it is handed to where it is an argument.
        methods_read: dict[str, list] = {}
        for node in walk(self.module):
            if type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == "self" \
                    and id(node) not in callee_names:
                methods_read.setdefault(node.attr.value, []).append(argument_of.get(id(node)))
        for class_facts in self.classes.values():
            for name, method in class_facts.methods.items():
                if name in methods_read:
                    handed_on.add(method)
                    self._handed_to_calls.setdefault(method, []).extend(methods_read[name])
        for node in self.function_nodes:
            if node in handed_on or _called_implicitly(node, self) or any(
                    _decorator_name(decorator) not in ("staticmethod", "classmethod")
                    and grad_mode_of_context(decorator.decorator, self.names) is None
                    for decorator in node.decorators):
                sites[node] = None
                if node not in handed_on or node.decorators or _called_implicitly(node, self):
                    self._handed_to_calls.pop(node, None)
        return sites

    def _dispatch_tables(self, module: FunctionFacts, top_level_kinds: dict) -> dict[str, dict]:
        """A script's table of commands, `COMMANDS = {"sample": make_sample, ...}`, bound once at the top
        level to a dict literal of functions (the file's among them) and read only to call an entry
        (`COMMANDS[args.command](args)`) or for its keys: name -> {the name read in the literal: the
        function}. Each such call is a call of every function in it."""
        found: dict[str, dict] = {}
        for binding in module.bindings:
            value = binding.value
            if binding.kind != "assign" or top_level_kinds.get(binding.name) != {"assign"} \
                    or type(value) is not cst.Dict or not value.elements:
                continue
            entries = {}
            for element in value.elements:  # (an imported function among them is not this file's concern)
                definition = self._callee_definition(element.value, module, top_level_kinds) \
                    if type(element) is cst.DictElement and type(element.value) is cst.Name else None
                if definition is not None and definition.name.value != "__init__":
                    entries[element.value] = definition
            if entries:
                found[binding.name] = entries
        if not found:
            return found
        allowed = set()  # the reads of a table that call an entry or list the keys
        for call in self.calls:
            func = call.func
            if type(func) is cst.Subscript and type(func.value) is cst.Name:
                allowed.add(id(func.value))
            elif type(func) is cst.Attribute and func.attr.value == "keys" and type(func.value) is cst.Name:
                allowed.add(id(func.value))
        for function in self.all_functions():
            for name in function.reads:
                if name.value in found and id(name) not in allowed:
                    del found[name.value]
        return found

    def _callee_definition(self, func, caller: FunctionFacts, top_level_kinds: dict) -> Optional[cst.FunctionDef]:
        """The function of this file a callee (or a name read) stands for, when surely that one."""
        if type(func) is cst.Name:
            bindings = caller.bindings_at(func)
            if bindings:
                if all(binding.kind == "def" and type(binding.statement) is cst.FunctionDef
                       for binding in bindings) and len({b.statement for b in bindings}) == 1:
                    return next(iter(bindings)).statement
                return None
            definition = self.module_functions.get(func.value)
            if definition is not None and top_level_kinds.get(func.value) == {"def"}:
                return definition
            built = self.classes.get(func.value)
            if built is not None and top_level_kinds.get(func.value) == {"def"}:
                return built.methods.get("__init__")  # `Normalization(mean, std)` runs its `__init__`
            return None
        if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self":
            owner = self.classes.get(caller.class_name or "")
            return owner.methods.get(func.attr.value) if owner is not None else None
        if type(func) is cst.Attribute and (type(func.value) is cst.Name or is_self_attribute(func.value)):
            # `fake_pool.query(fake)`, `fake_pool = ImagePool()` here or at the top level: that class's method;
            # `self.g.sample(n)`, `self.g = BiGenerator(...)` in the class's methods: that class's too.
            owner = self.built_class(func.value, caller)
            method = self.method_of(owner, func.attr.value) if owner is not None else None
            return method if type(method) is cst.FunctionDef else None
        return None

    def method_called(self, call: cst.Call, function: FunctionFacts,
                      by_name: bool = False) -> Optional[tuple[ClassFacts, cst.FunctionDef]]:
        """`meter.update(...)`: the class of this file the receiver is built from (`built_class`) and its
        method of that name; with `by_name`, where the receiver's class is not in sight, the only class of
        the file that has a method of that name. None otherwise."""
        if type(call.func) is not cst.Attribute:
            return None
        name = call.func.attr.value
        owner = self.built_class(call.func.value, function)
        owners = [owner] if owner is not None else \
            [each for each in self.classes.values() if name in each.methods] if by_name else []
        if len(owners) != 1 or name not in owners[0].methods:
            return None
        return owners[0], owners[0].methods[name]

    def built_class(self, expr: cst.BaseExpression, function: FunctionFacts) -> Optional[ClassFacts]:
        """The class of this file every value `expr` may hold was built from (`Helper()`), if one is: a
        local name (or, bound nowhere in the function, a name every top-level assignment of which
        builds it), or a `self.` attribute of the method's class. (`instance_class` answers the same
        while a function is walked.)"""
        if type(expr) is cst.Name:
            bindings = function.bindings_at(expr)
            if not bindings:
                module = self.function_facts(self.module)
                bindings = [binding for binding in module.bindings if binding.name == expr.value] \
                    if function is not module else []
                if any(binding.kind != "assign" for binding in bindings):
                    return None
            values = [binding.value for binding in bindings]
        elif type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value == "self" \
                and function.class_name in self.classes:
            values = self.attribute_values(self.classes[function.class_name], expr.attr.value)
        else:
            return None
        return self.class_built_by(values) if values else None

    def surely_without_grad(self, expr: cst.BaseExpression, function: FunctionFacts, depth: int = 0) -> bool:
        """Is the value surely free of autograd history? Answered by analysis/autograd.py."""
        return self.autograd.never_requires_grad(expr, function)

    def surely_integral(self, expr: cst.BaseExpression, function: FunctionFacts, depth: int = 0) -> bool:
        """Is the tensor surely of an integer or bool dtype? Answered by analysis/placement.py."""
        return self.placement.surely_integral(expr, function)

    def grad_enabled_at(self, function: FunctionFacts, statement: cst.CSTNode) -> bool:
        """Is grad mode on when `statement` runs? Off under no_grad/inference_mode (blocks and
        decorators), in the methods a training framework runs under no-grad itself (Lightning's
        `validation_step`), and in functions that every call in this file makes under no-grad."""
        mode = function.grad_mode.get(statement)
        if mode is not None:
            return mode
        if function.decorated_grad_enabled is not None:
            return function.decorated_grad_enabled
        if function.class_name is not None and function.name in FRAMEWORK_NO_GRAD_METHODS:
            return False
        return not self._only_called_without_grad(function)

    def _only_called_without_grad(self, function: FunctionFacts) -> bool:
        if self._called_without_grad is None:
            self._called_without_grad = self._functions_only_called_without_grad()
        return function.node in self._called_without_grad

    def _functions_only_called_without_grad(self) -> set:
        """Functions every call of which (in this file, all in sight: `call_sites_of`) runs under
        no-grad: directly, or from a function that itself only runs so (followed to a fixed point)."""
        functions = [f for f in self.all_functions() if type(f.node) is cst.FunctionDef]

        def mode_of(caller: FunctionFacts, statement) -> Optional[bool]:
            mode = caller.grad_mode.get(statement)
            return caller.decorated_grad_enabled if mode is None else mode

        modes = {}
        for function in functions:
            sites = self.call_sites_of(function)
            if sites:
                modes[function.node] = [(caller, mode_of(caller, statement)) for caller, _, statement in sites]
            handed = self._handed_to_calls.get(function.node) if sites is None else None
            if handed and None not in handed:
                # A callback handed only to calls made under no-grad (`with torch.no_grad(): evaluate(n,
                # sample_fn)`): the callee runs it then, very likely (it could keep it for later).
                modes[function.node] = [(caller, mode_of(caller, statement)) for caller, statement in handed]
        quiet: set = set()
        changed = True
        while changed:
            changed = False
            for node, sites in modes.items():
                if node not in quiet and all(mode is False or (mode is None and caller.node in quiet)
                                             for caller, mode in sites):
                    quiet.add(node)
                    changed = True
        return quiet

    # ------------------------------------------------------------ positions

    def position(self, node: cst.CSTNode) -> CodeRange:
        return self._positions.of(node)

    def line_of(self, node: cst.CSTNode) -> int:
        return self.position(node).start.line

    def code_for(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def indentation_of(self, node: cst.CSTNode) -> str:
        """The whitespace before `node` on its line, as written (tabs stay tabs); "" when something
        else stands before it there. For fixes that add lines at the node's indentation."""
        position = self.position(node).start
        source = self._positions.source if self._positions.source is not None else self.module.code
        lines = source.splitlines()
        before = lines[position.line - 1][: position.column] if position.line <= len(lines) else ""
        return before if not before.strip() else ""

    # ------------------------------------------------ what calls do (Callees)

    def is_module_call(self, call: cst.Call, state: FlowState, owner: Optional[ClassFacts] = None,
                       in_function: bool = False) -> bool:
        """Is the callee surely an nn.Module (a torch class, or a module class of this file)?"""
        values = self._callee_values(call, state, owner, in_function)
        return bool(values) and all(self.builds_module(value) for value in values)

    def is_layer_call(self, call: cst.Call, state: FlowState, owner: Optional[ClassFacts] = None,
                      in_function: bool = False) -> bool:
        """Is the callee an object built by a constructor call (`self.body = Body()`), used as a layer?"""
        values = self._callee_values(call, state, owner, in_function)
        return bool(values) and all(type(value) is cst.Call for value in values)

    def calls_a_module(self, call: cst.Call, function: FunctionFacts) -> bool:
        """After the walk: is the callee surely an nn.Module (`self.head = nn.Linear(...)`, `net = Net()`)?"""
        func = call.func
        if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self":
            owner = self.classes.get(function.class_name or "")
            values = self._attribute_values(owner, func.attr.value) if owner is not None else []
        elif type(func) is cst.Name:
            owner, bindings = self.reaching(func, function)
            values = [binding.value for binding in bindings]
        else:
            return False
        return bool(values) and all(self.builds_module(value) for value in values)

    def _callee_values(self, call: cst.Call, state: FlowState, owner: Optional[ClassFacts],
                       in_function: bool = False) -> list:
        """What the callee was assigned: `self.x = ...` in the class, or the name's reaching values
        (in a function, for a name it has not assigned: the module-level assignments)."""
        func = call.func
        if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self":
            return self._attribute_values(owner, func.attr.value) if owner is not None else []
        if type(func) is cst.Name:
            bindings = state.lookup(func.value)
            if not bindings and in_function:
                return list(self.global_values(func.value))
            return [binding.value for binding in bindings]
        return []

    def makes_numpy_array(self, value: Optional[cst.BaseExpression]) -> bool:
        """Is the value an ndarray NumPy makes (`np.zeros(n)`, `np.empty((2, n))`), or a pandas table of one
        (`pd.DataFrame(np.zeros((steps, epochs)))`)? Storing a tensor into one (`losses[i] = loss`,
        `table[epoch][i] = loss`) stores its number: the array keeps no graph. Not one made to hold
        objects (`dtype=object`)."""
        if type(value) is not cst.Call or any(
                arg.keyword is not None and arg.keyword.value == "dtype" and _names_object(arg.value) for arg in value.args):
            return False
        if numpy_name(value.func, self.pandas) in PANDAS_TABLES:
            return bool(value.args) and value.args[0].keyword is None and self.makes_numpy_array(value.args[0].value)
        return numpy_name(value.func, self.numpy) in NUMPY_ARRAY_MAKERS

    def builds_module(self, value: Optional[cst.BaseExpression], seen: frozenset = frozenset()) -> bool:
        """Does the call build a network: a torch.nn class, a module class of the file, or a function of
        the file that returns one of those?"""
        if type(value) is not cst.Call:
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
            return bool(returned) and all(self.builds_module(v, seen | {callee}) for v in returned)
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
        which only makes callers warier). Counted per name asked, with str.find: a regular
        expression over every word of the text cost more than the rest of the question."""
        if self._name_references is None:
            self._name_references = {}
        found = self._name_references.get(name)
        if found is None:
            text = self._positions.source if self._positions.source is not None else self.module.code
            found = self._name_references[name] = _word_count(text, name) - _definition_count(text, name)
        return found

    def text_mentions(self, fragments: tuple[str, ...]) -> bool:
        """Does the module's text hold any of these fragments (comments and strings too)? A cheap test
        before a question whose answer needs the summaries of the file's functions."""
        text = self._positions.source if self._positions.source is not None else self.module.code
        return any(fragment in text for fragment in fragments)

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


def _names_object(dtype: cst.BaseExpression) -> bool:
    """`dtype=object`, `dtype="O"`, `dtype=np.object_`: an array of Python objects, which holds a tensor."""
    if type(dtype) is cst.SimpleString:
        return dtype.evaluated_value in ("O", "object")
    name = dotted_name(dtype) or ""
    return name == "object" or name.endswith(".object_")


def _is_word(character: str) -> bool:
    """`\\w` of Python's regular expressions, for one character."""
    return character.isalnum() or character == "_"


def _runs_of(text: str, name: str) -> Iterator[int]:
    """Where `name` stands in `text` as a whole run of word characters."""
    end = len(name)
    at = text.find(name)
    while at >= 0:
        if (at == 0 or not _is_word(text[at - 1])) and (at + end == len(text) or not _is_word(text[at + end])):
            yield at
        at = text.find(name, at + 1)


_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def _word_count(text: str, name: str) -> int:
    """The matches of `(?<![\\w.])[A-Za-z_]\\w*` in `text` that are `name`."""
    if not _IDENTIFIER.fullmatch(name):
        return 0
    return sum(1 for at in _runs_of(text, name) if at == 0 or text[at - 1] != ".")


def _definition_count(text: str, name: str) -> int:
    """The matches of `\\b(?:def|class)\\s+(\\w+)|\\bsuper\\(\\s*(\\w+)` in `text` whose word is `name`.

    Such a word is a run of word characters after `def`/`class` and blanks, or after `super(`
    and maybe blanks. The keyword may itself be the word of a match before it (`def super(x`:
    `super` is then the defined name, and `x` no one's), which the scan from the left would
    have consumed: a keyword that is such a word takes its match from the next one, so along a
    chain of keywords every other one counts."""
    if not name or not all(_is_word(character) for character in name):
        return 0
    count = 0
    for at in _runs_of(text, name):
        keywords = 0
        while True:
            start = at
            while start > 0 and text[start - 1].isspace():
                start -= 1
            if start < at and text.endswith("def", 0, start):
                keyword = start - 3
            elif start < at and text.endswith("class", 0, start):
                keyword = start - 5
            elif text.endswith("super(", 0, start):
                keyword = start - 6
            else:
                break
            if keyword > 0 and _is_word(text[keyword - 1]):
                break
            keywords += 1
            at = keyword
        count += keywords % 2
    return count


class _LeaveScope:
    """On ModuleFacts._index's stack, under a definition's children: the method to go back to."""

    __slots__ = ("method",)

    def __init__(self, method: Optional[cst.FunctionDef]) -> None:
        self.method = method


def _top_level_assignments(module: cst.Module) -> dict:
    """name -> the values the top level assigns it (`x = v`, `x: T = v`), in blocks too (`if`, `for`,
    `with`, `try`), not in functions or classes; a name also bound otherwise there (def, class,
    import, loop target, `x += v`, unpacking) is left out: what it holds is not one of those values."""
    values: dict = {}
    other: set = set()
    for statement in _top_level_statements(module.body):
        if type(statement) in (cst.FunctionDef, cst.ClassDef):
            other.add(statement.name.value)
        elif type(statement) is cst.Assign and len(statement.targets) == 1 \
                and type(statement.targets[0].target) is cst.Name:
            values.setdefault(statement.targets[0].target.value, []).append(statement.value)
        elif type(statement) is cst.AnnAssign and statement.value is not None \
                and type(statement.target) is cst.Name:
            values.setdefault(statement.target.value, []).append(statement.value)
        else:
            targets = []
            if type(statement) is cst.Assign:
                targets = [target.target for target in statement.targets]
            elif type(statement) is cst.AugAssign:
                targets = [statement.target]
            elif type(statement) in (cst.Import, cst.ImportFrom) \
                    and type(statement.names) is not cst.ImportStar:
                targets = [alias.asname.name if alias.asname is not None else alias.name for alias in statement.names]
            elif type(statement) is cst.For:
                targets = [statement.target]
            elif type(statement) is cst.With:
                targets = [item.asname.name for item in statement.items if item.asname is not None]
            for target in targets:
                other.update(node.value for node in walk(target) if type(node) is cst.Name)
    return {name: tuple(found) for name, found in values.items() if name not in other}


def _top_level_statements(body) -> Iterator[cst.CSTNode]:
    """The statements of the top level (small ones, and compound ones before their blocks), through
    `if`/`for`/`while`/`with`/`try` blocks; a def or class is yielded but not entered."""
    for statement in body:
        if type(statement) in (cst.SimpleStatementLine, cst.SimpleStatementSuite):
            yield from statement.body
            continue
        yield statement
        if type(statement) in (cst.FunctionDef, cst.ClassDef):
            continue
        for block in _blocks_of(statement):
            yield from _top_level_statements(block)


def _blocks_of(statement) -> list:
    """The statement lists directly inside a compound statement (its body, else, handlers, finally)."""
    parts = [getattr(statement, "body", None), getattr(statement, "orelse", None),
             getattr(statement, "finalbody", None), *getattr(statement, "handlers", ()),
             *getattr(statement, "cases", ())]
    blocks = []
    for part in parts:
        if part is None:
            continue
        if type(part) is cst.If:
            blocks.append([part])  # `elif`
            continue
        suite = part.body if type(part) in (cst.Else, cst.Finally, cst.ExceptHandler, cst.ExceptStarHandler,
                                            cst.MatchCase) else part
        if type(suite) is cst.IndentedBlock:
            blocks.append(list(suite.body))
        elif type(suite) is cst.SimpleStatementSuite:
            blocks.append([suite])
    return blocks


class _BoundCallees(Callees):
    """Callees as seen from inside one class's methods (so `self.relu` resolves)."""

    def __init__(self, facts: ModuleFacts, owner: Optional[ClassFacts], in_function: bool = False) -> None:
        self.facts = facts
        self.owner = owner
        # In a function (not the top level itself), a name it has not assigned is a module global.
        self.in_function = in_function

    def effect(self, call: cst.Call, state: FlowState) -> CallEffect:
        return self.facts.effect(call, state, self.owner, self.in_function)

    def is_module_call(self, call: cst.Call, state: FlowState) -> bool:
        return self.facts.is_module_call(call, state, self.owner, self.in_function)

    def is_layer_call(self, call: cst.Call, state: FlowState) -> bool:
        return self.facts.is_layer_call(call, state, self.owner, self.in_function)

    def calls_a_method_of_the_file(self, call: cst.Call, state: FlowState) -> bool:
        receiver = call.func.value if type(call.func) is cst.Attribute else None
        if type(receiver) is cst.Name and receiver.value == "self":
            return self.owner is not None and self.facts.method_of(self.owner, call.func.attr.value) is not None
        return receiver is not None and self.facts.instance_class(receiver, state, self.owner) is not None

    def constructs_a_class_of_the_file(self, call: cst.Call, state: FlowState) -> bool:
        return type(call.func) is cst.Name and call.func.value in self.facts.classes \
            and not state.lookup(call.func.value)


def _updates_self_with_locals(call: cst.Call) -> bool:
    """`self.__dict__.update(locals())` or `vars(self).update(locals())`."""
    func = call.func
    if not (type(func) is cst.Attribute and func.attr.value == "update" and len(call.args) == 1
            and dotted_name(call.args[0].value.func if type(call.args[0].value) is cst.Call else call.args[0].value) == "locals"):
        return False
    receiver = func.value
    return dotted_name(receiver) == "self.__dict__" or (
        type(receiver) is cst.Call and dotted_name(receiver.func) == "vars" and len(receiver.args) == 1
        and dotted_name(receiver.args[0].value) == "self")


def _local_assignments(method: cst.FunctionDef) -> list[tuple[str, cst.BaseExpression]]:
    """(name, value) of the method's own plain `name = value` assignments."""
    found, pending = [], list(child_nodes(method.body))
    while pending:
        node = pending.pop()
        if type(node) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            continue  # their names are not the method's locals
        if type(node) is cst.Assign:
            found += [(target.target.value, node.value) for target in node.targets if type(target.target) is cst.Name]
        pending.extend(child_nodes(node))
    return found


def _decorator_name(decorator: cst.Decorator) -> str:
    return (dotted_name(decorator.decorator) or "").rpartition(".")[2]


def _called_implicitly(function: cst.FunctionDef, facts: "ModuleFacts") -> bool:
    """A method Python or torch calls for the user: `forward` (through `module(x)`), dunders. A private
    method (`__convert`, which Python mangles) is called by the class's own code only."""
    name = function.name.value
    owner = facts.class_of(function)
    if owner is not None and name == "__init__" and not any(owner.name in other.base_names
                                                            for other in facts.classes.values()):
        return False  # run by the calls that build the class, in sight where no class of the file extends it
    return owner is not None and (name == "forward" or (name.startswith("__") and name.endswith("__")))


def _decorated_grad_mode(function: cst.FunctionDef, names: TorchNames) -> Optional[bool]:
    """`@torch.no_grad()` / `@torch.inference_mode()` -> False; `@torch.enable_grad()` -> True. A
    decorator of another module that says so by its name (yolov5's `@smart_inference_mode()`, which
    applies `torch.inference_mode` or `torch.no_grad`, vendored in many projects) -> False: its code
    is not in sight, and what it is named for is the mode it sets."""
    for decorator in function.decorators:
        mode = grad_mode_of_context(decorator.decorator, names)
        if mode is not None:
            return mode
    for decorator in function.decorators:
        expression = decorator.decorator.func if type(decorator.decorator) is cst.Call else decorator.decorator
        name = (dotted_name(expression) or "").rpartition(".")[2].lower()
        if names.qualified_name(expression) is None and ("no_grad" in name or "inference_mode" in name):
            return False
    return None


def _yields(function: cst.FunctionDef) -> bool:
    """Does the function's own body (not a nested function's) contain `yield`?"""
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if type(node) is cst.Yield:
            return True
        if type(node) not in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            stack.extend(child_nodes(node))
    return False


def _names(name: str, tests) -> bool:
    """Does one of the conditions read `name`?"""
    return any(type(node) is cst.Name and node.value == name for test in tests for node in walk(test))
