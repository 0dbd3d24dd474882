"""What a call does to the tensors it is handed: the callee effects ModuleFacts answers.

A call of a torch function is read from the catalog (in aliasing.py's walk); everything else
is answered here, from the code of the file: a layer built in sight (`self.relu =
nn.ReLU(inplace=True)`, an `nn.Sequential` whose first layer writes its input, a module class
of the file whose `forward` writes its input), and a function, method, lambda or nested
function of the file, read once for which of its parameters it writes in place, surely (on
every path through it that returns) or maybe (under a condition of its own, in a loop that may
run zero times), including through a view it makes (`t.detach().clamp_()`, `a = t.numpy();
a -= m`, `t.data.mul_(s)`). That summary (`function_effect`) is the one place this fact lives.

What cannot be known stays unknown: a callee of another file, a layer handed in through a
constructor, a first layer that depends on a flag, recursion past a few levels (`OPAQUE`).
"""

from __future__ import annotations

import ast
from typing import Optional

import libcst as cst

from torchcopylint.analysis.aliasing import (
    OPAQUE,
    PURE,
    CallEffect,
    FlowState,
    Read,
    WrittenArgument,
    _argument_is_true,
    _argument_is_variable,
    argument_at,
    goes_through_detach,
    root_name,
)
from torchcopylint.analysis.catalog import INPLACE_MODULE_ARGUMENT, writes_without_grad
from torchcopylint.analysis.classes import ClassFacts
from torchcopylint.analysis.syntax import child_nodes, name_uses, single_index, walk
from torchcopylint.analysis.tensors import TENSOR_RETURNING_METHODS
from torchcopylint.analysis.torchnames import MODULE_RETURNING_METHODS, dotted_name

# (the class, the method) an expression that builds a layer is written in
LayerContext = tuple

PURE_BUILTINS = frozenset(
    {"print", "len", "isinstance", "issubclass", "range", "enumerate", "zip", "int", "float", "bool",
     "str", "repr", "type", "getattr", "hasattr", "max", "min", "abs", "sum", "round", "list", "tuple",
     "dict", "set", "sorted", "id", "hash", "super", "iter", "next", "format", "any", "all", "map", "filter"}
)
# How many function summaries may be under construction at once (a helper calling a helper
# calling ...): deeper callees are unknown, which keeps the walk's recursion bounded.
MAX_SUMMARY_DEPTH = 6
# Containers of layers whose items a loop may call one after the other.
LAYER_CONTAINERS = frozenset({"torch.nn.ModuleList", "torch.nn.Sequential"})
ORDERED_DICTS = frozenset({"OrderedDict", "collections.OrderedDict"})


class CalleeEffects:
    """Mixed into ModuleFacts, whose indexes (classes, module functions, calls) and per-function
    data flow it reads."""

    # ------------------------------------------------------------- a call

    def effect(self, call: cst.Call, state: FlowState, owner: Optional["ClassFacts"] = None,
               in_function: bool = False) -> CallEffect:
        """What `call` does to its tensor arguments. `in_function`: the call is in a module-level
        function or method, where a name it has not assigned is a module global."""
        func = call.func
        qualified = self.names.qualified_name(func)
        if qualified is not None:
            return PURE
        if type(func) is cst.Call:
            return self.construction_effect(func, self.code_for(func))
        if type(func) is cst.Attribute:
            receiver = func.value
            if type(receiver) is cst.Name and receiver.value == "self" and owner is not None:
                values = self._attribute_values(owner, func.attr.value)
                label = f"self.{func.attr.value}"
                if values:
                    return _all_same([self.construction_effect(v, label, where=self._context_of(owner, v))
                                      for v in values])
                method = self.method_of(owner, func.attr.value)
                if method is not None:
                    return self.function_effect(method, label)
                return OPAQUE
            # A method of an object of a class of this file (`helper.norm_(x)`, `self.stats.update(x)`).
            local = self.instance_class(receiver, state, owner)
            if local is not None:
                method = self.method_of(local, func.attr.value)
                if method is None:
                    return OPAQUE
                return self.function_effect(method, f"{self.code_for(receiver)}.{func.attr.value}")
            if func.attr.value in TENSOR_RETURNING_METHODS:
                return PURE
            return OPAQUE
        if type(func) is cst.Name:
            if func.value in PURE_BUILTINS:
                return PURE
            bindings = state.lookup(func.value)
            if bindings:
                effect = self._bound_callee_effect(func.value, bindings, state, owner)
                if effect is not None:
                    return effect
            elif func.value in self.classes:
                return PURE  # constructing an object of a class defined here
            else:
                function = self.module_functions.get(func.value)
                if function is not None:
                    return self.function_effect(function, func.value)
                values = self.global_values(func.value) if in_function else ()
                if len(values) == 1 and type(values[0]) is cst.Lambda:
                    return self.function_effect(values[0], func.value)  # `clip = lambda t: t.clamp_(0, 1)`
                if values:  # `relu = nn.ReLU(inplace=True)` at the top, `relu(x)` in a function
                    return _all_same([self.construction_effect(value, func.value) for value in values])
        return OPAQUE

    def _bound_callee_effect(self, name: str, bindings: frozenset, state: FlowState,
                             owner: Optional["ClassFacts"]) -> Optional[CallEffect]:
        """A callee named by a local name: a layer built in sight, a lambda, a nested function, a
        class of the file, a block of a ModuleList the loop walks. None when unknown."""
        if all(binding.kind == "loop" for binding in bindings):
            return self._loop_layer_effect(name, bindings, state, owner)
        effects = []
        for binding in bindings:
            if binding.kind == "def":
                statement = binding.statement
                if type(statement) is cst.FunctionDef and statement.name is binding.target:
                    effects.append(self.function_effect(statement, name))
                elif type(statement) is cst.ClassDef:
                    effects.append(PURE)  # constructing an object
                else:
                    return None
            elif binding.value is None:
                return None
            elif type(binding.value) is cst.Lambda:
                effects.append(self.function_effect(binding.value, name))
            else:
                effects.append(self.construction_effect(binding.value, name))
        return _all_same(effects)

    def instance_class(self, receiver, state: FlowState, owner: Optional["ClassFacts"]) -> Optional["ClassFacts"]:
        """The class of this file every value reaching `receiver` was built from, if one is."""
        if type(receiver) is cst.Call:
            values = [receiver]  # `Visualizer().prepare(x)`
        elif type(receiver) is cst.Name:
            values = [binding.value for binding in state.lookup(receiver.value)]
        elif type(receiver) is cst.Attribute and type(receiver.value) is cst.Name \
                and receiver.value.value == "self" and owner is not None:
            values = self._attribute_values(owner, receiver.attr.value)
        else:
            return None
        return self.class_built_by(values)

    def class_built_by(self, values: list) -> Optional["ClassFacts"]:
        """The class of this file every one of `values` is a call of (`Helper()`, or a network moved or
        switched as it is built, `BiGenerator(...).to(device)`: nn.Module's methods return the module), if
        one is."""
        called = []
        for value in values:
            methods = []
            while type(value) is cst.Call and type(value.func) is cst.Attribute \
                    and value.func.attr.value in MODULE_RETURNING_METHODS and type(value.func.value) is cst.Call:
                methods.append(value.func.attr.value)
                value = value.func.value
            called.append((dotted_name(value.func) if type(value) is cst.Call else None, methods))
        classes = {name for name, _ in called}
        if len(classes) != 1:
            return None
        found = self.classes.get(next(iter(classes)) or "")
        if found is None or any(method in found.methods for _, methods in called for method in methods):
            return None  # (a class that defines `to` itself may return something else)
        return found

    def method_of(self, local: "ClassFacts", name: str, seen: Optional[set] = None) -> Optional[cst.FunctionDef]:
        """The method `name` of a class of this file, itself or inherited from a base of this file.
        None when not found there, or when a base from elsewhere may define it."""
        method = local.methods.get(name)
        if method is not None:
            return method
        seen = seen or {local.name}
        for base_node, base in zip(local.node.bases, local.base_names):
            found = self.classes.get(base)
            if found is not None and found.name not in seen:
                seen.add(found.name)
                method = self.method_of(found, name, seen)
                if method is not None:
                    return method
            elif found is None and base not in ("object", "") \
                    and not (self.names.qualified_name(base_node.value) or "").startswith("torch.nn."):
                return None
        return None

    def _loop_layer_effect(self, name: str, bindings: frozenset, state: FlowState,
                           owner: Optional["ClassFacts"]) -> Optional[CallEffect]:
        """`for stage in self.stages: h = stage(h)`: a call of each block of a ModuleList or
        Sequential built in sight, so what every block may do."""
        effects = []
        for binding in bindings:
            statement = binding.statement
            if type(statement) is not cst.For:
                return None
            iterable = statement.iter
            if statement.target is not binding.target:
                # `for i, stage in enumerate(self.stages)`
                target = statement.target
                if not (type(target) is cst.Tuple and len(target.elements) == 2
                        and target.elements[1].value is binding.target and type(iterable) is cst.Call
                        and dotted_name(iterable.func) == "enumerate" and len(iterable.args) == 1):
                    return None
                iterable = iterable.args[0].value
            layers = self._layers_iterated(iterable, state, owner)
            if not layers:
                return None
            effects.extend(self.construction_effect(layer, name, where=where) for layer, where in layers)
        return _all_same(effects) if effects else None

    def _layers_iterated(self, iterable, state: FlowState, owner: Optional["ClassFacts"]) -> list:
        """(layer expression, where it is written) for every block of a ModuleList or Sequential
        that `iterable` names; [] when any may be unknown (appended elsewhere, handed in)."""
        if type(iterable) is cst.Attribute and type(iterable.value) is cst.Name \
                and iterable.value.value == "self" and owner is not None:
            values = [(value, self._context_of(owner, value)) for value in self._attribute_values(owner, iterable.attr.value)]
        elif type(iterable) is cst.Name:
            values = [(binding.value, None) for binding in state.lookup(iterable.value)]
        else:
            return []
        layers = []
        for value, where in values:
            if type(value) is not cst.Call or self.names.qualified_name(value.func) not in LAYER_CONTAINERS:
                return []
            items = _layer_items(value)
            if not items:
                return []
            layers.extend((item, where) for item in items)
        return layers

    # ------------------------------------------------------- a function's writes

    def function_effect(self, function, label: str, description: Optional[str] = None,
                        layer: bool = False) -> CallEffect:
        """What calling a function, method or lambda of this file does to its arguments: which of
        its parameters it writes in place, surely (on every path that returns) or maybe, as a
        CallEffect whose `writes` lists every parameter (certainty "pure" for those it leaves
        alone). `layer`: the function is a module's forward (the description says so)."""
        summary = self._write_summary(function)
        if summary is None:
            return OPAQUE
        parameters, without_grad = summary
        touched = [entry for entry in parameters if entry.certainty != "pure"]
        if not touched:
            return PURE
        sure = [entry for entry in touched if entry.certainty in ("sure", "tensor")]
        maybe = [entry for entry in touched if entry.certainty == "maybe"]
        owner = self.class_of(function) if type(function) is cst.FunctionDef else None
        if sure:
            kind, first = "writes", sure[0]
            text = description or (f"{label} ({owner.name}, whose forward writes its input in place)" if layer
                                   else f"{label}() (writes its argument in place)")
        elif maybe:
            kind, first = "maybe-writes", maybe[0]
            text = description or (f"{label} ({owner.name}, whose forward may write its input in place)" if layer
                                   else f"{label}() (may write its argument in place)")
        else:
            kind, first, text = "opaque", touched[0], description or label
        position = first.position if first.position is not None else 0
        returns_input = layer and self._may_return_parameter(function, first.name)
        return CallEffect(kind, text, position, without_grad and kind in ("writes", "maybe-writes"), layer=layer,
                          writes=tuple(parameters), returns_input=returns_input)

    def _may_return_parameter(self, function, name: str) -> bool:
        """May the function return (a view of) its parameter `name`? Not when every `return` gives a
        value whose root name never holds the parameter's storage (`return self.norm(x)`: `self`) or
        the result of a plain call (`return norm(x)`: a new tensor)."""
        facts = self.function_facts(function)
        parameter = next((binding for binding in facts.parameters if binding.name == name), None)
        if parameter is None or not parameter.storages:
            return True
        for node in walk(function.body if type(function) is cst.FunctionDef else function):
            if type(node) is not cst.Return or node.value is None:
                continue
            for value in (node.value.elements if type(node.value) is cst.Tuple else [node.value]):
                expression = value.value if isinstance(value, cst.BaseElement) else value
                root = root_name(expression)
                if type(expression) is cst.Call and type(expression.func) is not cst.Attribute:
                    continue
                if root is None or any(binding.storages & parameter.storages for binding in facts.bindings_at(root)):
                    return True
        return False

    def _write_summary(self, function) -> Optional[tuple]:
        """(a WrittenArgument per parameter, whether every write it may make is made with grad off), once
        per function; None while it is being computed (recursion) or too deep to follow."""
        found = self._write_summaries.get(function)
        if found is not None:
            return found
        if function in self._in_progress or len(self._in_progress) >= MAX_SUMMARY_DEPTH:
            return None
        facts = self.function_facts(function)
        parameters = _parameter_positions(function)
        method = type(function) is cst.FunctionDef and self.class_of(function) is not None \
            and not _is_static(function)
        bindings = facts.parameters
        if method and parameters and bindings and bindings[0].name in ("self", "cls"):
            parameters, bindings = parameters[1:], bindings[1:]
            parameters = [(name, position - 1 if position is not None else None, star)
                          for name, position, star in parameters]
        always_run: Optional[set] = None  # computed only for a function that writes an argument
        entries = []
        without_grad = True
        for (name, position, star), binding in zip(parameters, bindings):
            events = facts.events_on(binding.storages) if binding.storages else []
            if star:
                # `*args` / `**kwargs`: whatever lands there may be handed anywhere.
                used = bool(events) or any(read.bindings == frozenset({binding}) for read in facts.reads_of(binding))
                entries.append(WrittenArgument(position, name, "opaque" if used else "pure", what="rest"))
                continue
            if not events:
                entries.append(WrittenArgument(position, name, "pure"))
                continue
            # `t.data.uniform_(-a, a)`, `d = t.detach(); d.clamp_()`, a callee's write of that kind:
            # the caller's storage changes, but no in-place op on a leaf is recorded.
            written = [event for event in events if event.certainty != "opaque"]
            detour = bool(written) and all(
                event.through_detach or goes_through_detach(event.target) or self._detached_access(facts, event.target)
                for event in written)
            sure = [event for event in events if event.certainty == "sure"]
            # `t -= m` on a parameter nothing shows to be a tensor: a write when a tensor is passed.
            if_tensor = [event for event in events if event.certainty == "maybe" and event.kind == "augassign"]
            if (sure or if_tensor) and always_run is None:
                always_run = _statements_always_run(function, configuration=_is_forward(function))
            # A write under a condition of the helper's own (`if factor != 1: t.div_(factor)`), in a
            # loop that may run zero times, or after an early return, may not happen at a given call.
            writes = [event for event in sure if _runs_always(event, always_run)]
            # Grad mode of every write that may happen, on every path (`if w is not None:
            # nn.init.xavier_uniform_(w)` too): a write that sometimes runs is no write without grad.
            without_grad = without_grad and (facts.decorated_grad_enabled is False or all(
                facts.grad_mode.get(event.statement) is False or event.without_grad
                or (type(event.node) is cst.Call and writes_without_grad(self.names.qualified_name(event.node.func)))
                for event in written))
            if writes:
                inline = _uses_beyond_writes(facts, binding, writes)
                through = {self._detached_access(facts, event.target, inline=inline) for event in writes}
                entries.append(WrittenArgument(position, name, "sure",
                                               through=through.pop() if len(through) == 1 else "",
                                               through_detach=detour))
            elif any(_runs_always(event, always_run) for event in if_tensor):
                entries.append(WrittenArgument(position, name, "tensor", through_detach=detour))
            elif sure or any(event.certainty == "maybe" for event in events):
                entries.append(WrittenArgument(position, name, "maybe", through_detach=detour))
            else:
                entries.append(WrittenArgument(position, name, "opaque"))
        summary = (tuple(entries), without_grad)
        self._write_summaries[function] = summary
        return summary

    def _detached_access(self, facts, target, depth: int = 0, inline: bool = False) -> str:
        """The detached alias a write goes through, when the function names one and writes it as
        if it were its own copy (`a = t.detach().numpy(); a *= 255`, `d = t.detach(); d.clamp_()`):
        its value as written (`t.detach().numpy()`); "" otherwise. A write spelled through the
        view in one expression (`t.data.mul_(s)`) is the old style of an in-place update, meant;
        so is `t.detach().clamp_(0, 1)` in a helper that does nothing else with `t`
        (`def constrain(w): w.detach().clamp_(min=0)`). `inline`: the helper also uses the
        argument otherwise (returns the written view, reads `t` to show or save it), so the
        detached write is a means to an image, not the helper's purpose."""
        if inline and depth == 0 and target is not None and _through_detach_call(target):
            return self.code_for(target)
        root = root_name(target) if target is not None else None
        bindings = facts.bindings_at(root) if root is not None else frozenset()
        if depth > 4 or len(bindings) != 1:
            return ""
        binding = next(iter(bindings))
        if binding.value is None or binding.kind != "assign":
            return ""
        if goes_through_detach(binding.value):
            # (`t.permute(0, 2, 3, 1).cpu().detach().numpy()` too: where it shares the argument's storage,
            # on the CPU, it is a detached alias.)
            return self.code_for(binding.value)
        if binding.made_by != "alias":
            return ""
        return self._detached_access(facts, binding.value, depth + 1)

    # ------------------------------------------------------- a layer built in sight

    def construction_effect(self, value: cst.BaseExpression, label: str, seen: frozenset = frozenset(),
                            where: Optional[LayerContext] = None, env: Optional[dict] = None) -> CallEffect:
        """What calling the module built by `value` does to its input. `where`: the class and method
        the expression is written in, so that `act` in `nn.Sequential(act, conv)` and `self.relu` in
        `layers.append(self.relu)` can be followed to what they were built from. `env`: the values
        of a factory's parameters at the call being followed (`make_act("relu", inplace=True)`)."""
        if where is not None and type(value) in (cst.Name, cst.Attribute):
            return self._named_layer_effect(value, label, seen, where, env)
        if type(value) is not cst.Call:
            return OPAQUE
        qualified = self.names.qualified_name(value.func)
        if qualified is not None:
            module, _, class_name = qualified.rpartition(".")
            if module != "torch.nn":
                return OPAQUE
            if class_name in INPLACE_MODULE_ARGUMENT:
                position = INPLACE_MODULE_ARGUMENT[class_name]
                flag = _resolved_argument(value, "inplace", position, env)
                if flag is not None and _argument_is_true(flag, "inplace", 0):
                    return CallEffect("writes", f"{label} ({class_name}(inplace=True))")
                if flag is not None and _argument_is_variable(flag, "inplace", 0):
                    # `nn.ReLU(inplace=inplace)`: decided at run time, so possibly in place.
                    return CallEffect("maybe-writes", f"{label} ({class_name}(inplace=...))")
                return PURE
            if class_name == "Identity":
                return CallEffect("identity", f"{label} (Identity)")
            if class_name == "Sequential":
                return self._sequential_effect(value, label, seen, where, env)
            if class_name in ("ModuleList", "ModuleDict", "ParameterList", "ParameterDict"):
                return OPAQUE
            return PURE
        func = value.func
        callee = dotted_name(func) or ""
        local = self.classes.get(callee)
        if local is not None and local.name not in seen:
            return self._local_module_effect(local, label, seen | {local.name})
        factory = self.module_functions.get(callee)
        if factory is not None and callee not in seen:
            # `self.conv1 = conv3x3(...)`, `make_act("relu", inplace=True)`: a helper in this file that
            # returns a layer, read with the arguments of this call.
            return self._factory_effect(factory, value, label, seen | {callee}, None, env)
        if where is not None:
            owner, method = where
            if type(func) is cst.Attribute and type(func.value) is cst.Name \
                    and func.value.value in ("self", "cls") and owner is not None:
                # `self.body = self._make_body(c)`: a method of the class that returns a layer.
                found = self.method_of(owner, func.attr.value)
                key = ("method", func.attr.value)
                if found is not None and key not in seen:
                    return self._factory_effect(found, value, label, seen | {key}, owner, env)
            if type(func) is cst.Name and method is not None:
                # `activation()` / `act_layer(inplace=True)` with `activation` a parameter of the method.
                default = self._parameter_default(func, where, seen)
                if default is not None:
                    built = default.body if type(default) is cst.Lambda and not _has_parameters(default) \
                        else cst.Call(func=default, args=value.args) if type(default) is not cst.Lambda else None
                    if built is not None:
                        effect = self.construction_effect(built, label, seen | {("param", func.value)}, None, env)
                        return _from_default(effect, label, func.value)
        return OPAQUE

    def _factory_effect(self, factory: cst.FunctionDef, call: cst.Call, label: str, seen: frozenset,
                        owner: Optional["ClassFacts"], env: Optional[dict]) -> CallEffect:
        """What the layer a factory returns does, with the factory's parameters bound to the
        call's arguments (literal ones, followed through `if name == "relu":` branches)."""
        bound = _bind_arguments(factory, call, env, method=owner is not None and not _is_static(factory))
        returned = _returned_values_under(factory, bound)
        if not returned:
            return OPAQUE
        where = (owner, factory)
        effects = []
        for value in returned:
            value = self._dict_lookup(value, factory, bound)
            effects.append(self.construction_effect(value, label, seen, where, bound))
        return _all_same(effects)

    def _dict_lookup(self, value, factory: cst.FunctionDef, env: dict):
        """`_ACTS[name](inplace=inplace)` with `name` bound to a literal key of the dict literal
        `_ACTS` (of the module or of the factory): the class it maps the key to, called so."""
        if not (type(value) is cst.Call and type(value.func) is cst.Subscript
                and type(value.func.value) is cst.Name):
            return value
        key = _literal(single_index(value.func), env)
        if key is _UNKNOWN:
            return value
        tables = [v for v in self.global_values(value.func.value.value)] + \
            _local_assignments(factory, value.func.value.value)
        if len(tables) != 1 or type(tables[0]) is not cst.Dict:
            return value
        for element in tables[0].elements:
            if type(element) is cst.DictElement and _literal(element.key, {}) == key:
                return cst.Call(func=element.value, args=value.args)
        return value

    def _parameter_default(self, name: cst.Name, where: LayerContext, seen: frozenset):
        """The default of the method parameter `name` (`activation=lambda: nn.ReLU(inplace=True)`,
        `act_layer=nn.ReLU`) when no call in this file passes another value; else None."""
        owner, method = where
        if ("param", name.value) in seen or type(method) is not cst.FunctionDef or method in self._in_progress:
            return None
        facts = self.function_facts(method)
        bindings = facts.bindings_at(name) if name in facts.reads else frozenset()
        if len(bindings) != 1 or next(iter(bindings)).kind != "param":
            return None
        param = next(iter(bindings)).statement
        if type(param) is not cst.Param or param.default is None:
            return None
        if self._parameter_passed(owner, method, param):
            return None
        return param.default

    def _parameter_passed(self, owner: Optional["ClassFacts"], method: cst.FunctionDef, param: cst.Param) -> bool:
        """May a call in this file give the parameter another value than its default? Also when
        the class is handed around by name (`block=Block`, `partial(Block, ...)`), or subclassed."""
        positions = _parameter_positions(method)
        skip_self = owner is not None and not _is_static(method)
        names = [entry[0] for entry in positions]
        if param.name.value not in names:
            return True
        index = names.index(param.name.value)
        position = positions[index][1]
        if skip_self and position is not None:
            position -= 1
        if owner is not None and method.name.value == "__init__":
            if any(owner.name in local.base_names for local in self.classes.values()):
                return True  # a subclass may pass it through super().__init__(...)
            sites = [call for call in self.calls if type(call.func) is cst.Name and call.func.value == owner.name]
            # Handed around by name (`block=Block`, `partial(Block, ...)`): other calls are unseen.
            if self.name_references(owner.name) > len(sites):
                return True
        elif owner is not None:
            sites = [call for call in self.method_calls(method.name.value)
                     if type(call.func.value) is cst.Name and call.func.value.value in ("self", "cls", owner.name)]
            if len(sites) != len(self.method_calls(method.name.value)):
                return True
        else:
            sites = [call for call in self.calls if type(call.func) is cst.Name and call.func.value == method.name.value]
            if self.name_references(method.name.value) > len(sites):
                return True
        for call in sites:
            if any(arg.star for arg in call.args):
                return True
            if argument_at(call, position, param.name.value) is not None:
                return True
        return False

    def _sequential_effect(self, value: cst.Call, label: str, seen: frozenset,
                           where: Optional[LayerContext] = None, env: Optional[dict] = None) -> CallEffect:
        if len(value.args) == 1 and value.args[0].star == "*" and where is not None:
            # `nn.Sequential(*layers)`: only the first layer decides what happens to the input.
            firsts = self._first_list_elements(value.args[0].value, where)
            if not firsts:
                return OPAQUE
            effect = _all_same([self.construction_effect(first, label, seen, where, env) for first in firsts])
            if effect.kind in ("writes", "maybe-writes"):
                return CallEffect(effect.kind, f"{label} (Sequential starting with {_short(effect.description)})")
            return OPAQUE  # the later layers are not followed: nothing more is known
        layers = _ordered_dict_layers(value)
        if layers is None:
            layers = [arg.value for arg in value.args]
            if any(arg.star or arg.keyword for arg in value.args):
                return OPAQUE
        if not layers:
            return OPAQUE
        first = self.construction_effect(layers[0], label, seen, where, env)
        if first.kind in ("writes", "maybe-writes"):
            # Only the first layer sees the input; a later one writes what the earlier ones made.
            return CallEffect(first.kind, f"{label} (Sequential starting with {_short(first.description)})")
        effects = [first] + [self.construction_effect(layer, label, seen, where, env) for layer in layers[1:]]
        return PURE if all(effect.kind in ("pure", "writes") for effect in effects) else OPAQUE

    def _named_layer_effect(self, value, label: str, seen: frozenset, where: LayerContext,
                            env: Optional[dict] = None) -> CallEffect:
        """A layer written as a name: a local of the constructing method (`act = nn.ReLU(True)`),
        a parameter of it with a default no call overrides, or a `self.` attribute (`self.relu`),
        followed to what built it."""
        owner, method = where
        if type(value) is cst.Attribute:
            if not (type(value.value) is cst.Name and value.value.value == "self") or owner is None:
                return OPAQUE
            key = ("self", value.attr.value)
            values = self._attribute_values(owner, value.attr.value) if key not in seen else []
            if not values:
                return OPAQUE
            return _all_same([self.construction_effect(v, label, seen | {key}, (owner, owner.assigned_in.get(v)))
                              for v in values])
        if env is not None and value.value in env and isinstance(env[value.value], cst.BaseExpression) \
                and env[value.value] is not value:
            return self.construction_effect(env[value.value], label, seen | {("env", value.value)}, None, None)
        if method is None or method in self._in_progress:
            return OPAQUE
        bindings = self.function_facts(method).bindings_at(value)
        key = ("local", value.value, method)
        if not bindings or key in seen:
            return OPAQUE
        if len(bindings) == 1 and next(iter(bindings)).kind == "param":
            default = self._parameter_default(value, where, seen)
            if default is None:
                return OPAQUE
            effect = self.construction_effect(default, label, seen | {key, ("param", value.value)}, None, None)
            return _from_default(effect, label, value.value)
        if any(b.value is None or b.kind != "assign" for b in bindings):
            return OPAQUE
        return _all_same([self.construction_effect(b.value, label, seen | {key}, where, env) for b in bindings])

    def _first_list_elements(self, expr, where: LayerContext) -> list:
        """What may be the first element of the list `expr` names, where it is unpacked into a
        Sequential: the first element of the list it was made as, or the first thing appended to it
        when it starts empty. [] when that cannot be known: an append in a branch or a loop first,
        an insert, an extend, an item assignment, a slice (`rep = rep[1:]`), a list from elsewhere."""
        owner, method = where
        if type(expr) is not cst.Name or method is None or method in self._in_progress:
            return []
        function = self.function_facts(method)
        bindings = function.bindings_at(expr)
        if len(bindings) != 1:
            return []
        made = next(iter(bindings))
        if made.kind != "assign" or type(made.value) is not cst.List \
                or any(type(element) is cst.StarredElement for element in made.value.elements):
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

    def _local_module_effect(self, local: "ClassFacts", label: str, seen: frozenset) -> CallEffect:
        """A module class of this file: what its forward does to its inputs (surely or maybe, as for
        any function); an object of a plain class of the file is called through `__call__`."""
        forward = self.method_of(local, "forward")
        if forward is None and not self.is_module_class(local):
            forward = self.method_of(local, "__call__")
        if forward is None or forward in self._in_progress:
            return OPAQUE
        return self.function_effect(forward, label, layer=True)


# ---------------------------------------------------------------- helpers


def _through_detach_call(target) -> bool:
    """`t.detach()`, `t.detach()[0]`, `t.detach().cpu().numpy()`: a write target reached through
    `.detach()` or `.numpy()` spelled in the expression itself (not `.data`, the old update idiom)."""
    while True:
        if isinstance(target, cst.Subscript):
            target = target.value
        elif isinstance(target, cst.Call) and isinstance(target.func, cst.Attribute):
            if target.func.attr.value in ("detach", "numpy"):
                return True
            target = target.func.value
        else:
            return False


def _uses_beyond_writes(facts, binding, writes: list) -> bool:
    """Does a function use its parameter for more than the in-place writes `writes`: a value read
    elsewhere (`save_image(t, path)`, `return t`), or a written view it returns
    (`return t.detach().clamp_(0, 1)`)?"""
    written_roots = {id(root_name(event.target)) for event in writes if event.target is not None}
    if any(isinstance(event.statement, cst.Return) for event in writes):
        return True
    return any(read.use == "value" and id(read.node) not in written_roots for read in facts.reads_of(binding))


def _all_same(effects: list[CallEffect]) -> CallEffect:
    """One effect for a name assigned several times: the same one, or whatever is least certain."""
    kinds = {effect.kind for effect in effects}
    if len(kinds) == 1:
        if len(effects) > 1 and len({effect.writes for effect in effects}) > 1:
            return OPAQUE  # several callees writing different parameters: not one summary
        return effects[0]
    if "opaque" in kinds or "identity" in kinds:
        return OPAQUE
    writer = next(effect for effect in effects if effect.kind in ("writes", "maybe-writes"))
    if writer.writes:
        # A function's summary, lowered: what it writes surely, the other callee may not write.
        lowered = tuple(WrittenArgument(entry.position, entry.name, "maybe", entry.what)
                        if entry.certainty == "sure" else entry for entry in writer.writes)
        return CallEffect("maybe-writes", writer.description, writer.argument, layer=writer.layer, writes=lowered)
    return CallEffect("maybe-writes", writer.description, writer.argument, layer=writer.layer)


def _from_default(effect: CallEffect, label: str, parameter: str) -> CallEffect:
    """The effect of a layer a parameter's default builds, saying so in its description."""
    if effect.kind not in ("writes", "maybe-writes"):
        return effect
    return CallEffect(effect.kind, f"{label} ({_short(effect.description)}, the default of `{parameter}`)",
                      effect.argument, effect.without_grad, effect.layer, effect.writes)


def _short(description: str) -> str:
    """`self.relu (ReLU(inplace=True))` -> `ReLU(inplace=True)`."""
    return description.split(" (", 1)[1][:-1] if " (" in description else description


def _layer_items(container: cst.Call) -> list:
    """The layers a ModuleList or Sequential is built from: its arguments, the items of a list
    literal, the element of a comprehension; [] when unknown (`nn.ModuleList()` filled later)."""
    args = container.args
    if len(args) == 1 and args[0].keyword is None:
        value = args[0].value
        if type(value) in (cst.List, cst.Tuple):
            if any(type(element) is cst.StarredElement for element in value.elements):
                return []
            return [element.value for element in value.elements]
        if type(value) in (cst.ListComp, cst.GeneratorExp):
            return [value.elt]
        if args[0].star:
            return []
    if any(arg.star or arg.keyword for arg in args):
        return []
    ordered = _ordered_dict_layers(container)
    return ordered if ordered is not None else [arg.value for arg in args]


def _ordered_dict_layers(container: cst.Call) -> Optional[list]:
    """The layers of `nn.Sequential(OrderedDict([("act", layer), ...]))`, in order; None otherwise."""
    if len(container.args) != 1 or container.args[0].keyword is not None or container.args[0].star:
        return None
    inner = container.args[0].value
    if type(inner) is not cst.Call or dotted_name(inner.func) not in ORDERED_DICTS:
        return None
    if len(inner.args) == 1 and inner.args[0].keyword is None and type(inner.args[0].value) in (cst.List, cst.Tuple):
        layers = []
        for element in inner.args[0].value.elements:
            pair = element.value
            if type(pair) is not cst.Tuple or len(pair.elements) != 2:
                return None
            layers.append(pair.elements[1].value)
        return layers
    if inner.args and all(arg.keyword is not None for arg in inner.args):
        return [arg.value for arg in inner.args]
    return None


def _block_statements(function: cst.FunctionDef) -> list:
    body = function.body
    return list(body.body) if type(body) is cst.IndentedBlock else [body]


def _list_use(read: Read) -> str:
    """How a read of a list changes it: "append" (`layers.append(v)` as a statement), "extend",
    "insert", "__setitem__", "+=", "read" (left unchanged: `len(layers)`), or "other"."""
    statement = read.statement
    if type(statement) is cst.Expr and type(statement.value) is cst.Call:
        func = statement.value.func
        if type(func) is cst.Attribute and func.value is read.node:
            method = func.attr.value
            if method in ("append", "extend", "insert"):
                return method
            return "other"
    if type(statement) is cst.AugAssign and statement.target is read.node:
        return "+="
    if type(statement) is cst.Assign and any(
            type(target.target) is cst.Subscript and target.target.value is read.node for target in statement.targets):
        return "__setitem__"
    if type(statement) in (cst.Assign, cst.Expr) and type(getattr(statement, "value", None)) is cst.Call \
            and type(statement.value.func) is cst.Name and statement.value.func.value in ("len", "print"):
        return "read"
    return "other"


def _parameter_positions(function) -> list:
    """(name, position among the positional parameters or None, is `*args`/`**kwargs`) for each
    parameter of a function or lambda, in the order the walk binds them."""
    params = function.params
    result = []
    position = 0
    for param in [*params.posonly_params, *params.params]:
        result.append((param.name.value, position, False))
        position += 1
    for param in params.kwonly_params:
        result.append((param.name.value, None, False))
    if type(params.star_arg) is cst.Param:
        result.append((params.star_arg.name.value, position, True))
    if params.star_kwarg is not None:
        result.append((params.star_kwarg.name.value, None, True))
    return result


def _is_forward(function) -> bool:
    return type(function) is cst.FunctionDef and function.name.value in ("forward", "__call__")


def _is_static(function: cst.FunctionDef) -> bool:
    return any(dotted_name(decorator.decorator) == "staticmethod" for decorator in function.decorators)


def _has_parameters(function: cst.Lambda) -> bool:
    params = function.params
    return bool(params.posonly_params or params.params or params.kwonly_params or params.star_kwarg
                or type(params.star_arg) is cst.Param)


def returned_values(function) -> list:
    """The expressions a function returns (not looking into nested functions); [] if any return is
    bare. A lambda returns its body."""
    if type(function) is cst.Lambda:
        return [function.body]
    values = []
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if type(node) is cst.Return:
            if node.value is None:
                return []
            values.append(node.value)
        elif type(node) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            continue
        else:
            stack.extend(child_nodes(node))
    return values


def _statements_always_run(function, configuration: bool = False) -> set:
    """The small statements of `function` that run on every call that returns normally: those of
    its body and of `with` blocks in it, up to the first statement that may return early (not
    those of a branch, or of a loop, which may run zero times). `configuration`: a module's
    forward, whose branches on `self.` flags count as run (in that configuration)."""
    if type(function) is cst.Lambda:
        # One expression: all of it, less what a conditional expression or `and`/`or` may skip.
        skipped = set()
        for node in walk(function.body):
            if type(node) is cst.IfExp:
                skipped.update(walk(node.body))
                skipped.update(walk(node.orelse))
            elif type(node) is cst.BooleanOperation:
                skipped.update(walk(node.right))
        return _LambdaStatements(skipped)
    always: set = set()
    pending = list(function.body.body) if type(function.body) is cst.IndentedBlock else []
    while pending:
        statement = pending.pop(0)
        if type(statement) is cst.SimpleStatementLine:
            always.update(statement.body)
            if any(type(small) is cst.Return for small in statement.body):
                break
        elif type(statement) is cst.With and type(statement.body) is cst.IndentedBlock:
            pending[:0] = list(statement.body.body)
        elif configuration and type(statement) is cst.If and _reads_only_self(statement.test):
            # `if self.training:` in a module's forward: in the configuration (or mode) where the
            # branch runs, it runs on every call; each branch is read as if it always ran.
            always.update(_configuration_branches(statement))
        elif type(statement) in (cst.FunctionDef, cst.ClassDef):
            continue  # a nested definition: its `return` ends it, not this function
        elif any(type(node) is cst.Return for node in walk(statement)):
            break
    return always


def _configuration_branches(statement: cst.If) -> set:
    """The small statements of both branches of an `if self.<flag>:`, as _statements_always_run
    reads a block (nested configuration tests included, loops and other tests left out)."""
    found: set = set()
    blocks = [statement.body]
    orelse = statement.orelse
    if type(orelse) is cst.If:
        if _reads_only_self(orelse.test):
            found |= _configuration_branches(orelse)
    elif type(orelse) is cst.Else:
        blocks.append(orelse.body)
    for block in blocks:
        pending = list(block.body) if type(block) is cst.IndentedBlock else [block]
        while pending:
            current = pending.pop(0)
            if type(current) in (cst.SimpleStatementLine, cst.SimpleStatementSuite):
                found.update(current.body)
                if any(type(small) is cst.Return for small in current.body):
                    break
            elif type(current) is cst.With and type(current.body) is cst.IndentedBlock:
                pending[:0] = list(current.body.body)
            elif type(current) is cst.If and _reads_only_self(current.test):
                found |= _configuration_branches(current)
            elif any(type(node) is cst.Return for node in walk(current)):
                break
    return found


def _reads_only_self(test) -> bool:
    """Does a test read nothing but `self.` attributes and literals (`self.training and
    self.jitter > 0`)? Such a test is fixed for a module object in a mode, not by its inputs."""
    return _only_self_or_literals(test) and any(
        type(node) is cst.Attribute and _rooted_at_self(node) for node in walk(test))


def _only_self_or_literals(test) -> bool:
    if type(test) is cst.Attribute:
        return _rooted_at_self(test)
    if type(test) is cst.Name:
        return test.value in ("True", "False", "None")
    if type(test) in (cst.Integer, cst.Float, cst.SimpleString):
        return True
    if type(test) is cst.UnaryOperation:
        return _only_self_or_literals(test.expression)
    if type(test) is cst.BooleanOperation:
        return _only_self_or_literals(test.left) and _only_self_or_literals(test.right)
    if type(test) is cst.Comparison:
        return _only_self_or_literals(test.left) and all(
            _only_self_or_literals(comparison.comparator) for comparison in test.comparisons)
    return False


def _rooted_at_self(attribute: cst.Attribute) -> bool:
    current = attribute
    while type(current) is cst.Attribute:
        current = current.value
    return type(current) is cst.Name and current.value == "self"


class _LambdaStatements(set):
    """A lambda's one statement (the `return` its walk made) always runs, less the expressions a
    conditional expression or `and`/`or` may skip: `skipped` holds those nodes."""

    def __init__(self, skipped: set) -> None:
        super().__init__()
        self.skipped = skipped


def _runs_always(event, always_run: set) -> bool:
    if isinstance(always_run, _LambdaStatements):
        return event.node not in always_run.skipped
    return event.statement in always_run


# ------------------------------------------------- factories read with their arguments

_UNKNOWN = object()


def _literal(expr, env: dict):
    """The Python value of a literal (a string, a number, True/False/None, a tuple of them), or of
    a name bound to one in `env`; _UNKNOWN otherwise."""
    seen = 0
    while type(expr) is cst.Name and expr.value in env and seen < 8:
        expr, seen = env[expr.value], seen + 1
    if type(expr) is cst.Name:
        return {"True": True, "False": False, "None": None}.get(expr.value, _UNKNOWN)
    if type(expr) in (cst.SimpleString, cst.Integer, cst.Float, cst.ConcatenatedString) or (
            type(expr) is cst.UnaryOperation and type(expr.expression) in (cst.Integer, cst.Float)):
        try:
            return ast.literal_eval(cst.Module(body=[]).code_for_node(expr))
        except (ValueError, SyntaxError):
            return _UNKNOWN
    if type(expr) in (cst.Tuple, cst.List, cst.Set):
        values = [_literal(element.value, env) for element in expr.elements]
        return _UNKNOWN if any(value is _UNKNOWN for value in values) else tuple(values)
    return _UNKNOWN


def _truth(test, env: dict):
    """True / False when a factory's test is decided by its bound literal arguments, else None."""
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        inner = _truth(test.expression, env)
        return None if inner is None else not inner
    if type(test) is cst.BooleanOperation:
        left, right = _truth(test.left, env), _truth(test.right, env)
        if type(test.operator) is cst.And:
            return False if False in (left, right) else (True if left and right else None)
        return True if True in (left, right) else (False if left is False and right is False else None)
    if type(test) is cst.Comparison and len(test.comparisons) == 1:
        left = _literal(test.left, env)
        comparison = test.comparisons[0]
        right = _literal(comparison.comparator, env)
        if left is _UNKNOWN or right is _UNKNOWN:
            return None
        operator = type(comparison.operator)
        try:
            if operator is cst.Equal:
                return left == right
            if operator is cst.NotEqual:
                return left != right
            if operator is cst.Is:
                return left is right
            if operator is cst.IsNot:
                return left is not right
            if operator is cst.In:
                return left in right
            if operator is cst.NotIn:
                return left not in right
        except TypeError:
            return None
        return None
    value = _literal(test, env)
    return None if value is _UNKNOWN else bool(value)


def _bind_arguments(function: cst.FunctionDef, call: cst.Call, env: Optional[dict], method: bool) -> dict:
    """The factory's parameters bound to the call's arguments (resolved through `env`, the
    caller's own bindings), or to their defaults; unbound when passed through `*`/`**`."""
    bound: dict = {}
    positions = _parameter_positions(function)
    if method and positions:
        positions = [(name, position - 1 if position is not None else None, star)
                     for name, position, star in positions[1:]]
    params = {param.name.value: param for param in
              [*function.params.posonly_params, *function.params.params, *function.params.kwonly_params]}
    starred = any(arg.star for arg in call.args)
    # A parameter the factory's own code binds again (not its nested functions' locals of that name).
    reassigned = {name for name, (binders, _) in name_uses(function).items()
                  if any(type(binder) is not cst.Param for binder in binders)}
    for name, position, star in positions:
        if star or name in reassigned:
            continue  # a parameter the factory rebinds is not the call's argument where it is used
        argument = None if starred else argument_at(call, position, name)
        if argument is None and not starred and name in params and params[name].default is not None:
            argument = params[name].default
        if argument is None:
            continue
        while env and type(argument) is cst.Name and argument.value in env and env[argument.value] is not argument:
            argument = env[argument.value]
        bound[name] = argument
    return bound


def _returned_values_under(function, env: dict) -> list:
    """What a factory may return when called with the bound arguments: its returns, skipping the
    branches its literal arguments rule out (`if name == "relu": return nn.ReLU(inplace=inplace)`).
    A name the factory reassigns is no longer bound. [] when a bare return or none is found."""
    if type(function) is cst.Lambda:
        return [function.body]
    env = dict(env)
    values: list = []

    def follow(statements) -> bool:
        """Collect the returns of a block; True when the block surely returns (or raises)."""
        for statement in statements:
            if type(statement) is cst.SimpleStatementLine:
                for small in statement.body:
                    if type(small) is cst.Return:
                        if small.value is None:
                            raise _BareReturn
                        values.append(small.value)
                        return True
                    if type(small) is cst.Raise:
                        return True
                    for node in walk(small):
                        if type(node) in (cst.AssignTarget, cst.AugAssign, cst.AnnAssign):
                            target = node.target
                            for name in walk(target):
                                if type(name) is cst.Name:
                                    env.pop(name.value, None)
            elif type(statement) is cst.If:
                decided = _truth(statement.test, env)
                if decided is True:
                    if follow(_body(statement.body)):
                        return True
                elif decided is False:
                    orelse = statement.orelse
                    if type(orelse) is cst.If and follow([orelse]):
                        return True
                    if type(orelse) is cst.Else and follow(_body(orelse.body)):
                        return True
                else:
                    returns_then = follow(_body(statement.body))
                    orelse = statement.orelse
                    returns_else = follow([orelse]) if type(orelse) is cst.If else \
                        follow(_body(orelse.body)) if type(orelse) is cst.Else else False
                    if returns_then and returns_else:
                        return True
            elif type(statement) in (cst.FunctionDef, cst.ClassDef):
                env.pop(statement.name.value, None)
            else:
                # Loops, try, with, match: every return inside may happen; names they bind are unbound.
                for node in walk(statement):
                    if type(node) is cst.Return:
                        if node.value is None:
                            raise _BareReturn
                        values.append(node.value)
                    elif type(node) is cst.Name:
                        env.pop(node.value, None)
                    elif type(node) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
                        continue
        return False

    try:
        follow(_body(function.body))
    except _BareReturn:
        return []
    return values


class _BareReturn(Exception):
    pass


def _body(body) -> list:
    if type(body) is cst.IndentedBlock:
        return list(body.body)
    return [body]


def _resolved_argument(call: cst.Call, keyword: str, position: int, env: Optional[dict]) -> Optional[cst.Call]:
    """A one-argument call holding the argument `keyword` (at `position`) of `call`, resolved
    through `env` (`nn.ReLU(inplace=inplace)` with inplace bound to True reads as
    `nn.ReLU(inplace=True)`), so the catalog's readers of `inplace` apply; None when not given."""
    for index, arg in enumerate(call.args):
        if arg.star:
            return cst.Call(func=call.func, args=[cst.Arg(value=cst.Name("_unknown_"), keyword=cst.Name(keyword))])
        if (arg.keyword is not None and arg.keyword.value == keyword) or (arg.keyword is None and index == position):
            value = arg.value
            hops = 0
            while env and type(value) is cst.Name and value.value in env and hops < 8:
                value, hops = env[value.value], hops + 1
            return cst.Call(func=call.func, args=[cst.Arg(value=value, keyword=cst.Name(keyword))])
    return None


def _local_assignments(function: cst.FunctionDef, name: str) -> list:
    """The values a function's own top-level statements assign to `name`."""
    values = []
    for statement in _body(function.body):
        if type(statement) is cst.SimpleStatementLine:
            for small in statement.body:
                if type(small) is cst.Assign and any(
                        type(target.target) is cst.Name and target.target.value == name for target in small.targets):
                    values.append(small.value)
    return values
