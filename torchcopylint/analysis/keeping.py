"""Whether a function, method or class of the file leaves an argument alone: neither writes it in
place nor keeps it (returns it or a view of it, stores it on an object or in a container, hands
it to something unknown, captures it in a closure).

`gram_matrix(out.clone())` where `def gram_matrix(t)` views `t` and multiplies: the copy is read
and dropped, so it was never needed (TCL001). `StyleLoss(out.clone())` whose `__init__` stores
`gram_matrix(target).detach()` keeps a new tensor, not the argument; one that stores `target`
itself, or `nn.Parameter(target)`, keeps the copy's memory, which is then what the copy is for.

The writes are `ModuleFacts.function_effect`'s (the one place that fact lives); what is kept is
read here from the callee's data flow (its escapes, and what it returns or stores through an
alias the escapes do not follow: `t.float()`, `nn.Parameter(t)`), following callees of the file
a few levels deep. What cannot be resolved is None: the copy may be needed.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torchcopylint.analysis.aliasing import METADATA_ATTRIBUTES, MAY_ALIAS_METHODS, VIEW_METHODS, FunctionFacts
from torchcopylint.analysis.catalog import is_inplace_method_name
from torchcopylint.analysis.graphs import DETACHING_BUILTINS, DETACHING_METHODS
from torchcopylint.analysis.syntax import walk
from torchcopylint.analysis.torchnames import dotted_name
from torchcopylint.analysis.training import backward_calls

# torch functions whose result shares its first argument's memory.
ALIASING_FUNCTIONS = frozenset(
    """
    torch.nn.Parameter torch.nn.parameter.Parameter torch.as_tensor torch.asarray torch.from_numpy
    torch.reshape torch.flatten torch.squeeze torch.unsqueeze torch.transpose torch.permute torch.narrow
    torch.t torch.detach torch.select torch.diagonal torch.movedim torch.chunk torch.split torch.unbind
    torch.view_as_real torch.view_as_complex
    """.split()
)
# Modules whose functions compute from their tensor arguments and keep none of them.
MATH_MODULES = frozenset({"torch", "torch.nn.functional", "torch.linalg", "torch.fft", "torch.special"})
# Methods that change a tensor without writing its values: on the copy, they would change the
# caller's tensor without it (`t.requires_grad_()` makes the caller's leaf require grad).
FLAG_METHODS = frozenset({"requires_grad_", "retain_grad", "register_hook", "detach_", "share_memory_", "resize_",
                          "set_", "register_post_accumulate_grad_hook"})
MAX_DEPTH = 3


def argument_left_alone(facts, call: cst.Call, function: FunctionFacts, position: Optional[int],
                        keyword: Optional[str]) -> Optional[tuple]:
    """(the callee's label, the parameter's name): `("gram_matrix", "t")`, `("StyleLoss", "target")`
    when the function, class or method of the file that `call` calls neither writes nor keeps the
    argument passed at `position` (or as `keyword`); None when it may, or when the callee is not
    known."""
    resolved = called_definition(facts, call, function)
    if resolved is None:
        return None
    node, label = resolved
    binding = _parameter(facts, node, position, keyword)
    if binding is None or not _left_alone(facts, node, position, keyword, 0):
        return None
    return label, binding.name


# What cuts a value from autograd (graphs.py's list): whatever the callee does with the result
# keeps no graph. `.numpy()` and `.detach_()` are left out: on a tensor that requires grad the
# first raises, and the second changes the caller's tensor.
CUTTING_METHODS = DETACHING_METHODS - {"numpy", "detach_"}


# Methods of metric loggers (TensorBoard's SummaryWriter, MLflow, Comet) that record a value as numbers:
# they keep no tensor, so no graph (`writer.add_scalar("loss", loss, step)`).
RECORDING_METHODS = frozenset({"add_scalar", "add_scalars", "add_histogram", "add_image", "add_images", "add_figure",
                               "add_text", "add_pr_curve", "log_metric", "log_metrics"})


def records_only(call: cst.Call) -> bool:
    """A logger's method that records its arguments as numbers (RECORDING_METHODS)."""
    return type(call.func) is cst.Attribute and call.func.attr.value in RECORDING_METHODS


def graph_left_alone(facts, call: cst.Call, function: FunctionFacts, position: Optional[int],
                     keyword: Optional[str]) -> bool:
    """Does the function of the file that `call` calls read the argument only through what cuts it
    from autograd (`a.detach()`, `a.item()`, `float(a)`, `a.shape`), so that nothing it keeps or
    hands on can hold the argument's graph? A plotting helper's `a = a.detach().numpy()` then
    `plt.plot(a)`. False when the callee is not known."""
    resolved = called_definition(facts, call, function)
    if resolved is None:
        return False
    node, _ = resolved
    binding = _parameter(facts, node, position, keyword)
    if binding is None:
        return False
    callee = facts.function_facts(node)
    reads = callee.reads_of(binding)
    return bool(reads) and all(_cut_where_read(read.node, read.statement) for read in reads) \
        and not any(isinstance(inner, (cst.Lambda, cst.FunctionDef)) and any(
            isinstance(name, cst.Name) and name.value == binding.name for name in walk(inner))
            for inner in walk(node.body))


def file_callee_may_keep(facts, call: cst.Call, function: FunctionFacts, position: Optional[int],
                         keyword: Optional[str]) -> bool:
    """Is `call` a call of a function of the file that may keep the argument (store it in a list
    of the module, on an object, return it), graph included? False for a callee the file does not
    show (its call is an escape of its own) and for one that leaves the argument, or its graph, alone."""
    if called_definition(facts, call, function) is None:
        return False
    return not graph_left_alone(facts, call, function, position, keyword) \
        and argument_left_alone(facts, call, function, position, keyword) is None


def _cut_where_read(name: cst.Name, statement) -> bool:
    """Is this read of a name the receiver of `.detach()`/`.item()`/`.tolist()`, the argument of
    `float(...)`/`len(...)`/`print(...)`, or a metadata attribute (`.shape`)?"""
    for node in walk(statement):
        if type(node) is cst.Attribute and node.value is name:
            if node.attr.value in METADATA_ATTRIBUTES or node.attr.value == "grad":
                return True  # `a.shape`; `a.grad`, another tensor (no graph of `a`'s)
            return any(type(call) is cst.Call and call.func is node and node.attr.value in CUTTING_METHODS
                       for call in walk(statement))
        if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value in DETACHING_BUILTINS \
                and any(arg.value is name for arg in node.args):
            return True
    return False


def returned_backpropagated_loss(facts, call: cst.Call, function: FunctionFacts) -> Optional[str]:
    """The name of the loss a function of the file backpropagates and then returns as it is (`loss.backward();
    opt.step(); return loss`, a GAN's `train_discriminator(...)`): the call's value holds that loss and its
    graph. None when any `return` gives anything else, or the function backpropagates nothing."""
    resolved = called_definition(facts, call, function)
    if resolved is None or not isinstance(resolved[0], cst.FunctionDef) or resolved[0].name.value == "__init__":
        return None
    callee = facts.function_facts(resolved[0])
    losses = {binding for backward in backward_calls(callee, facts) if isinstance(backward.loss, cst.Name)
              for binding in callee.bindings_at(backward.loss)}
    returns = [statement for statement in callee.statement_order if isinstance(statement, cst.Return)]
    names = {statement.value.value for statement in returns if isinstance(statement.value, cst.Name)}
    if not losses or not returns or len(names) != 1 or not all(
            isinstance(statement.value, cst.Name) and callee.bindings_at(statement.value)
            and callee.bindings_at(statement.value) <= losses for statement in returns):
        return None
    return names.pop()


def returned_to_a_backward(facts, function: FunctionFacts, name: cst.Name) -> bool:
    """Does the function return `name` as it is from every `return` (`test_loss /= count; return test_loss`),
    and does a call of it in the file backpropagate what it returns (`loss = get_loss(net, loader);
    loss.backward()`)? Then the graphs the name gathers are kept for that backward, as meant."""
    returns = [statement for statement in function.statement_order if isinstance(statement, cst.Return)]
    if not returns or not all(isinstance(statement.value, cst.Name) and statement.value.value == name.value
                              for statement in returns):
        return False
    for caller, call, _ in facts.call_sites_of(function) or ():
        for backward in backward_calls(caller, facts):
            loss = backward.loss
            if loss is call or isinstance(loss, cst.Name) and any(
                    binding.value is call for binding in caller.bindings_at(loss)):
                return True
    return False


def called_definition(facts, call: cst.Call, function: FunctionFacts):
    """(the FunctionDef the call runs, its label) for a function or method of the file, a class of
    the file (its `__init__`), an object of a class of the file called (its `forward` or
    `__call__`: `self.style_loss(x)`, `loss_module(x)`) or a method of one (`helper.score(x)`)."""
    func = call.func
    if isinstance(func, cst.Name) and func.value in facts.classes and not function.bindings_at(func):
        init = facts.method_of(facts.classes[func.value], "__init__")
        return (init, func.value) if isinstance(init, cst.FunctionDef) else None
    node = facts.module_function_called(func, function) if isinstance(func, cst.Name) else None
    if node is not None:
        return node, func.value  # the module's own `def`: no summaries needed
    found = facts.summaries.resolve_callee(func, function) if _may_name_a_function(facts, func, function) else None
    if found is not None:
        return (found[0], found[2]) if isinstance(found[0], cst.FunctionDef) else None
    label = dotted_name(func) or ""
    local = facts.built_class(func, function)
    if local is not None:  # the object called: a module's forward, or __call__
        method = facts.method_of(local, "forward") if facts.is_module_class(local) else None
        method = method or facts.method_of(local, "__call__")
        return (method, label) if isinstance(method, cst.FunctionDef) else None
    if isinstance(func, cst.Attribute):
        local = facts.built_class(func.value, function)
        method = facts.method_of(local, func.attr.value) if local is not None else None
        if isinstance(method, cst.FunctionDef):
            return method, label
    return None


def _may_name_a_function(facts, func, function: FunctionFacts) -> bool:
    """Could `func` name a function or lambda of the file? Asked before the summaries are built
    (a file without training steps never builds them): a module-level `def`, a name bound to a
    `def`, a lambda or another name, or a method of the class."""
    if type(func) is cst.Name:
        if func.value in facts.module_functions:
            return True
        return any(binding.kind == "def" or type(binding.value) in (cst.Lambda, cst.Name)
                   for binding in facts.reaching(func, function)[1])
    if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self" \
            and function.class_name in facts.classes:
        owner = facts.classes[function.class_name]
        return facts.method_of(owner, func.attr.value) is not None or any(
            type(value) is cst.Lambda for value in facts.attribute_values(owner, func.attr.value))
    return False


def _parameter(facts, node: cst.FunctionDef, position: Optional[int], keyword: Optional[str]):
    """The parameter binding that receives the argument, or None (past the named ones: `*args`)."""
    callee = facts.function_facts(node)
    parameters = list(callee.parameters)
    method = facts.class_of(node) is not None and not any(
        isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in node.decorators)
    if method and parameters and parameters[0].name in ("self", "cls"):
        parameters = parameters[1:]
    params = node.params
    named = [param.name.value for param in (*params.posonly_params, *params.params)]
    keyword_only = [param.name.value for param in params.kwonly_params]
    if method and named and named[0] in ("self", "cls"):
        named = named[1:]
    if keyword is not None:
        if keyword not in named and keyword not in keyword_only:
            return None
        name = keyword
    else:
        if position is None or position >= len(named):
            return None
        name = named[position]
    return next((binding for binding in parameters if binding.name == name), None)


def _left_alone(facts, node: cst.FunctionDef, position: Optional[int], keyword: Optional[str], depth: int) -> bool:
    if depth > MAX_DEPTH:
        return False
    binding = _parameter(facts, node, position, keyword)
    if binding is None or not binding.storages:
        return False
    effect = facts.function_effect(node, node.name.value)
    if effect.kind != "pure":  # `pure`: it writes none of its arguments
        entry = next((entry for entry in effect.written() if entry.name == binding.name), None)
        if entry is None or entry.certainty != "pure":
            return False
    callee = facts.function_facts(node)
    return not _keeps(facts, callee, binding.storages, depth)


def _keeps(facts, callee: FunctionFacts, storages: frozenset, depth: int) -> bool:
    """Does the callee keep, return or hand on a value sharing `storages`?"""
    if callee.escapes_of(storages):
        return True  # returned, stored, put in a container, yielded, handed to something unknown
    aliases = {binding.name for binding in callee.bindings if binding.storages & storages} | \
        {binding.name for binding in callee.parameters if binding.storages & storages}
    for node in walk(callee.node.body):
        if isinstance(node, (cst.Global, cst.Nonlocal)):
            return True
        if isinstance(node, (cst.Lambda, cst.FunctionDef)) and any(
                isinstance(inner, cst.Name) and inner.value in aliases for inner in walk(node)):
            return True  # a closure over it
    for statement in callee.statement_order:
        if isinstance(statement, cst.Return) and statement.value is not None:
            if _shares(facts, callee, statement.value, storages):
                return True
        elif isinstance(statement, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            targets = [t.target for t in statement.targets] if isinstance(statement, cst.Assign) else [statement.target]
            for target in targets:
                if isinstance(target, cst.Attribute) and _shares(facts, callee, target.value, storages):
                    return True  # `t.requires_grad = True`, `t.grad = None`
            if statement.value is not None and any(not isinstance(target, cst.Name) for target in targets) \
                    and _shares(facts, callee, statement.value, storages):
                return True  # `self.t = t.float()`, `self.w = nn.Parameter(t)`
    for call in callee.call_statement:
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in FLAG_METHODS \
                and _shares(facts, callee, func.value, storages):
            return True
        qualified = facts.names.qualified_name(func)
        if qualified is not None:
            module = qualified.rpartition(".")[0]
            if (module not in MATH_MODULES or qualified in ALIASING_FUNCTIONS) \
                    and any(_shares(facts, callee, arg.value, storages) for arg in call.args):
                return True  # `torch.optim.SGD([t])`, `TensorDataset(t)`, `torch.as_tensor(t)`: kept
            continue
        if any(arg.star for arg in call.args):
            if any(_shares(facts, callee, arg.value, storages) for arg in call.args):
                return True  # where it lands is unknown
            continue
        positional = [arg.value for arg in call.args if arg.keyword is None]
        handed = [(index, None, value) for index, value in enumerate(positional)] + \
            [(None, arg.keyword.value, arg.value) for arg in call.args if arg.keyword is not None]
        for index, keyword, value in handed:
            if not _shares(facts, callee, value, storages):
                continue
            resolved = called_definition(facts, call, callee)
            if resolved is None:
                continue  # a tensor method, or something unknown (an escape, counted above)
            if not _left_alone(facts, resolved[0], index, keyword, depth + 1):
                return True
    return False


def _shares(facts, function: FunctionFacts, expr, storages: frozenset) -> bool:
    """May `expr` be, or share memory with, a value of `storages` (through views, `.float()` and
    `.to()` that may return their receiver, `nn.Parameter(t)`, containers, conditionals)?"""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            if any(binding.storages & storages for binding in function.bindings_at(node)):
                return True
        elif isinstance(node, cst.Attribute):
            if node.attr.value not in METADATA_ATTRIBUTES:
                stack.append(node.value)
        elif isinstance(node, cst.Subscript):
            stack.append(node.value)
        elif isinstance(node, cst.Call):
            func = node.func
            qualified = facts.names.qualified_name(func)
            if qualified is not None:
                if qualified in ALIASING_FUNCTIONS and node.args:
                    stack.append(node.args[0].value)
            elif isinstance(func, cst.Attribute) and (func.attr.value in VIEW_METHODS or func.attr.value
                                                      in MAY_ALIAS_METHODS or is_inplace_method_name(func.attr.value)):
                stack.append(func.value)
        elif isinstance(node, cst.IfExp):
            stack.extend((node.body, node.orelse))
        elif isinstance(node, (cst.Tuple, cst.List, cst.Set)):
            stack.extend(element.value for element in node.elements)
        elif isinstance(node, cst.Dict):
            stack.extend(element.value for element in node.elements if isinstance(element, cst.DictElement))
        elif isinstance(node, cst.StarredElement):
            stack.append(node.value)
    return False

