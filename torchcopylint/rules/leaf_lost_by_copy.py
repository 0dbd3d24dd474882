"""TCL012 leaf-lost-by-copy: `w = torch.randn(n, requires_grad=True).to(device)` binds a copy, not
the leaf, and `w` is then used as a leaf (`w.grad`, an optimizer over it). The facts (which values
are copies of fresh leaves, where a name is used as a leaf) are analysis/leaves.py's."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from torchcopylint.analysis.aliasing import LEAF_FACTORIES, PARAMETER_CLASSES, Binding, FunctionFacts
from torchcopylint.analysis.facts import ModuleFacts
from torchcopylint.analysis.leaves import LeafCopies, LeafUse, LostLeaf
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


class LeafLostByCopy(Rule):
    code = "TCL012"
    name = "leaf-lost-by-copy"
    summary = "A name meant as a trainable leaf is bound to a copy of it: `.grad` stays None, optimizers refuse it"
    fix_availability = "sometimes"
    triggers = (b"requires_grad", b"Parameter")

    def check(self, facts: ModuleFacts) -> Iterator[Finding]:
        if not facts.names.imports_torch:
            return
        leaves = LeafCopies(facts)
        module = facts.function_facts(facts.module)
        for function in facts.all_functions():
            for binding in function.bindings:
                if binding.kind != "assign" or binding.value is None or _writes_data(binding):
                    continue
                lost = leaves.lost_leaf(binding.value, function)
                if lost is None:
                    continue
                uses = [use for use in leaves.uses(function)
                        if isinstance(use.named, cst.Name) and binding in function.bindings_at(use.named)]
                if function is module and _last_top_level_binding(binding, module, facts):
                    # `w = torch.randn(3, requires_grad=True).cuda()` at the top, `SGD([w])` in a function.
                    uses += [use for reader in leaves.functions_reading(binding.name) for use in leaves.uses(reader)
                             if isinstance(use.named, cst.Name) and use.named.value == binding.name
                             and not reader.bindings_at(use.named)]
                if _leaf_kept_in_use(lost, binding.name, leaves.uses(function)):
                    uses = [use for use in uses if use.kind == "optimizer"]
                finding = self._reported(binding.value, binding.name, lost, uses, facts, function,
                                         without_grad=not facts.grad_enabled_at(function, binding.statement))
                if finding is not None:
                    yield finding
        yield from self._attributes(facts, leaves)
        yield from self._inline_comprehensions(facts, leaves)
        yield from self._unregistered_parameters(facts, leaves)

    def _reported(self, value, name: str, lost: LostLeaf, uses: list[LeafUse], facts: ModuleFacts,
                  where: FunctionFacts, made: str = "", without_grad: bool = False) -> Optional[Finding]:
        """The finding for a copied leaf bound to `name`, if a use treats it as a leaf; none when it
        is never used as one (a non-leaf that requires grad is what it is meant to be) or when
        `retain_grad()` keeps its gradient, as meant."""
        if any(use.kind == "retain_grad" for use in uses):
            return None
        use = next((use for use in uses if use.kind != "retain_grad"), None)
        if use is None:
            return None
        line = facts.line_of(use.node)
        elsewhere = f" in `{use.function.name}()`" if use.function is not where and use.function.name != "<module>" \
            else ""
        consequence = (f"`{facts.code_for(use.node.func)}(...)`{elsewhere} (line {line}) raises {OPTIMIZER_ERROR}"
                       if use.kind == "optimizer" else
                       f"`{name}.grad`{elsewhere} (line {line}) stays None after backward")
        context = {"without_grad": True} if without_grad else {}
        return self._finding(value, name, lost, consequence, facts, made=made, use_line=line, use=use.kind, **context)

    def _attributes(self, facts: ModuleFacts, leaves: LeafCopies) -> Iterator[Finding]:
        """`self.w = ...` anywhere in a class (an nn.Module or not) that copies a leaf, with `self.w`
        used as a leaf in any method: `self.w = torch.zeros(n, requires_grad=True)` in `__init__`,
        `self.w = self.w.to(self.device)` in `to_device()`, `SGD([self.w])` in `configure()`."""
        for owner in facts.classes.values():
            uses = None
            module_class = None
            for attribute, values in owner.attribute_values.items():
                for value in values:
                    method = owner.assigned_in.get(value)
                    if method is None:
                        continue
                    function = facts.function_facts(method)
                    lost = leaves.lost_leaf(value, function, attribute)
                    if lost is None:
                        continue
                    if module_class is None:
                        module_class = facts.is_module_class(owner)
                    if module_class and _is_parameter(lost.maker, facts.names):
                        continue  # an unregistered parameter: reported below, use or no use
                    if uses is None:
                        uses = [use for method_facts in leaves.class_functions(owner) for use in leaves.uses(method_facts)]
                    mine = [use for use in uses if isinstance(use.named, cst.Attribute)
                            and use.named.attr.value == attribute]
                    made = ""
                    if isinstance(lost.maker, cst.Attribute):
                        # `self.w = self.w.to(d)`: say which assignment made the leaf that is copied.
                        origin = leaves.attribute_leaf(lost.maker, function, attribute)
                        made = (f"`{_short(facts.code_for(origin))}` (assigned to `self.{attribute}` in "
                                f"`{owner.assigned_in[origin].name.value}()`, line {facts.line_of(origin)})")
                    finding = self._reported(value, f"self.{attribute}", lost, mine, facts, function, made)
                    if finding is not None:
                        yield finding

    def _inline_comprehensions(self, facts: ModuleFacts, leaves: LeafCopies) -> Iterator[Finding]:
        """`SGD([torch.ones(2, requires_grad=True).cuda() for _ in layers])`: the list goes straight to the optimizer."""
        for call in facts.calls:
            params = next((arg.value for arg in call.args if arg.keyword is None or arg.keyword.value == "params"), None)
            if not isinstance(params, cst.ListComp) or not leaves.is_optimizer(call):
                continue
            site = facts.call_site(call)
            lost = leaves.lost_leaf(params, site[0]) if site is not None else None
            if lost is not None:
                finding = self._reported(params, "the list", lost, [LeafUse(params, call, "optimizer", site[0])],
                                         facts, site[0])
                if finding is not None:
                    yield finding

    def _unregistered_parameters(self, facts: ModuleFacts, leaves: LeafCopies) -> Iterator[Finding]:
        """`self.w = nn.Parameter(...).to(device)` in an nn.Module: the attribute holds a plain
        tensor, so the module never registers the parameter."""
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
                    lost = leaves.lost_leaf(statement.value, function)
                    if lost is None or not _is_parameter(lost.maker, facts.names):
                        continue
                    name = f"self.{target.attr.value}"
                    consequence = ("the module does not register it: `.parameters()` leaves it out, so no "
                                   "optimizer over them trains it, and `state_dict()` does not save it")
                    yield self._finding(statement.value, name, lost, consequence, facts, use="registration")

    def _finding(self, value, name: str, lost: LostLeaf, consequence: str, facts: ModuleFacts, made: str = "",
                 **context) -> Finding:
        condition = f"{lost.condition}, " if lost.condition else ""
        maker = made or f"`{_short(facts.code_for(lost.maker))}`"
        if context.get("use") == "registration":
            message = (f"`{name}` is not an `nn.Parameter`: {condition}{lost.how} of {maker}, a plain tensor; "
                       f"{consequence}")
        elif isinstance(value, cst.ListComp):
            message = (f"the list built by this comprehension holds no leaves: {condition}{lost.how} of the leaf "
                       f"{maker} made for each element, which autograd fills and nobody holds; {consequence}")
        elif context.get("without_grad"):
            # Under no-grad the copy is a leaf too, but a new one that does not require grad.
            if isinstance(lost.maker, cst.Name):
                leaf = (f"the old leaf {maker} it replaces" if lost.maker.value == name
                        else f"the leaf {maker}, not `{name}`")
            else:
                leaf = f"the leaf {maker}, which is left unnamed"
            message = (f"`{name}` no longer requires grad: {condition}{lost.how}, and under no-grad that tensor "
                       f"does not require grad; autograd fills {leaf}; {consequence}")
        elif isinstance(lost.maker, cst.Name):
            # `y = x ** 2` with `x` a leaf: the leaf has a name; it is just not `y`.
            message = (f"`{name}` is not a leaf: {condition}{lost.how}, and autograd fills the leaf {maker}, "
                       f"not `{name}`; {consequence}")
        else:
            message = (f"`{name}` is not a leaf: {condition}{lost.how}, and the leaf {maker} that autograd "
                       f"fills is left unnamed; {consequence}")
        return self.finding(
            value,
            message,
            _fix(value, lost, facts),
            name=name,
            condition=lost.condition,
            **context,
        )


def _writes_data(binding: Binding) -> bool:
    """`delta.data = (delta + step * delta.grad.sign()).clamp(-eps, eps)`: the name keeps its tensor, the
    leaf, which only takes the value's memory (the analysis binds the name to the value for what
    aliases it): nothing is copied out of the leaf."""
    statement = binding.statement
    return isinstance(statement, cst.Assign) and any(
        isinstance(target.target, cst.Attribute) and target.target.attr.value == "data"
        and isinstance(target.target.value, cst.Name) and target.target.value.value == binding.name
        for target in statement.targets)


def _leaf_kept_in_use(lost: LostLeaf, name: str, uses: list[LeafUse]) -> bool:
    """`y = x + 1` (or `y_pred = w * x + b`) where the code goes on using `x` as the leaf (`x.grad`,
    an optimizer over `x`): the leaf is not lost, `y` is a value computed from it, and reading
    `y.grad` is a look at a non-leaf (what course notebooks show on purpose), not a lost leaf."""
    leaf = lost.maker
    return type(leaf) is cst.Name and leaf.value != name and any(
        type(use.named) is cst.Name and use.named.value == leaf.value and use.kind != "retain_grad" for use in uses)


def _last_top_level_binding(binding: Binding, module: FunctionFacts, facts: ModuleFacts) -> bool:
    """Is this the top level's last assignment of the name, made unconditionally (directly in the
    module's body)? Then it is what functions called later read."""
    line = module.line_of_statement.get(binding.statement)
    if line is None or line not in facts.module.body:
        return False
    order = module.order_of(binding.statement)
    return all(module.order_of(other.statement) <= order for other in module.bindings if other.name == binding.name)


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


def _is_factory(expr, names: TorchNames) -> bool:
    module, _, name = (names.qualified_name(expr.func) or "").rpartition(".") if isinstance(expr, cst.Call) \
        else ("", "", "")
    return module == "torch" and name in LEAF_FACTORIES


# ------------------------------------------------------------------------------ fix


def _fix(value: cst.BaseExpression, lost: LostLeaf, facts: ModuleFacts) -> Optional[NodeFix]:
    """Build the leaf where it will live (`device=`/`dtype=` in the factory), or call
    `.requires_grad_()` last; for `nn.Parameter(x).op()`, wrap `x.op()` instead. Only for a
    leaf made in this statement."""
    if isinstance(value, cst.ListComp):
        return _fix(value.elt, lost, facts)  # each element is made where it lives
    maker = lost.maker
    if _is_parameter(maker, facts.names):
        return _parameter_fix(value, lost)
    if not (isinstance(maker, cst.Call) and _keyword(maker, "requires_grad") is not None):
        return None
    name = (facts.names.qualified_name(maker.func) or "").rpartition(".")[2]
    if lost.moves and value is lost.copy and _is_factory(maker, facts.names):
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


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 50 else text[:47] + "..."

