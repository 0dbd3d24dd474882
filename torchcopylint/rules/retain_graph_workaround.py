"""TCL011 retain-graph-workaround: `backward(retain_graph=True)` that hides a TCL003, or that nothing needs."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from torchcopylint.analysis.aliasing import FunctionFacts, passed_for_parameter, root_name, unpacked_part
from torchcopylint.analysis.autograd import ASSUMED
from torchcopylint.analysis.containers import hands_state_to_next_call
from torchcopylint.analysis.facts import ModuleFacts
from torchcopylint.analysis.graphs import (
    carries_no_graph,
    filled_with_graph,
    graph_kept_on_the_object,
    graph_read_after_the_loop,
    GraphUse,
    Slice,
    graph_uses,
    holds_network,
    loader_data,
    loss_slice,
    read_as_leaves,
    retain_argument,
    retains_graph,
    saves_only_leaves,
    shares_graph,
)
from torchcopylint.analysis.keeping import file_callee_may_keep, graph_left_alone, records_only
from torchcopylint.analysis.syntax import walk
from torchcopylint.analysis.tensors import reads_as_network
from torchcopylint.analysis.torchnames import dotted_name
from torchcopylint.analysis.training import built_by_torch_nn, module_key
from torchcopylint.rules.base import Finding, NodeFix, Rule
from torchcopylint.rules.edits import without_trailing_comma


class RetainGraphWorkaround(Rule):
    code = "TCL011"
    name = "retain-graph-workaround"
    summary = "`retain_graph=True` that works around a missing detach (TCL003), or that no later backward needs"
    fix_availability = "unsafe"
    triggers = (b"retain_graph", b"retain_variables")

    def check(self, facts: ModuleFacts) -> Iterator[Finding]:
        for function in facts.all_functions():
            uses = graph_uses(function, facts)
            retained = [use for use in uses if retains_graph(use.call) and not use.creates]
            if not retained:
                continue
            slices = {use: loss_slice(use.loss, use.statement, function, facts,
                                      stop_at=frozenset(_differentiated_inputs(use, function))) for use in uses}
            for use in retained:
                found = self._workaround(facts, function, use, slices[use])
                if found is None:
                    found = self._unneeded(facts, function, use, uses, slices)
                if found is not None:
                    yield found

    def _workaround(self, facts: ModuleFacts, function: FunctionFacts, use: GraphUse, graph):
        """The discriminator step's backward keeps the graph for the generator's backward through the same fake
        (the pairing of the GAN's roles is analysis/gan_steps.py's, the same fact TCL003 reports)."""
        if not facts.method_calls("step"):
            return None
        for fake in facts.gan_steps.of(function):
            later = fake.later_backward
            if fake.loss_statement is not use.statement or not fake.retains_graph or later is None:
                continue
            line = facts.line_of(use.statement)
            # `gradient_penalty(critic, real, fake)` in the same loss: detaching only the discriminator's
            # input leaves this path into the generator, whose graph the backward then frees.
            others = _other_attached_reads(fake, graph)
            also = "".join(f" and for `{_one_line(facts, call)}` (line {facts.line_of(call)}), which reads it too;"
                           for call in others)
            # The later loss reads the discriminator's output of this step itself (`g_loss = bce(fake_out, ones)`):
            # detached for the discriminator, that output no longer reaches the generator.
            own_call = fake.unsafe_reason is not None and fake.unsafe_reason[1] is later.statement
            remedy = (f"give the loss backpropagated at line {facts.line_of(later.statement)}, which reads this step's "
                      f"discriminator output, a discriminator call of its own on the undetached batch (detaching alone "
                      f"would cut the generator off that loss), " if own_call else "")
            message = (
                f"`{_one_line(facts, use.call)}` keeps the discriminator step's graph alive so that the backward "
                f"at line {facts.line_of(later.statement)} can run through the generator's output again: the "
                f"discriminator is fed `{_one_line(facts, fake.argument)}` without `.detach()` (TCL003 at line "
                f"{facts.line_of(fake.argument)}), so this backward also fills the generator's `.grad`, and the whole "
                f"graph, generator included, stays in memory; {remedy}detach the fake batch for the discriminator "
                f"(TCL003's fix){also} {'then' if also or own_call else 'and'} drop {_as_written(use.call)}"
            )
            return self.finding(retain_argument(use.call), message,
                                _drop_retain_graph(use.call) if fake.detach_is_safe and not others else None,
                                backward_line=line, later_line=facts.line_of(later.statement),
                                loss=facts.code_for(use.loss), detach_line=facts.line_of(fake.argument),
                                generator=fake.generator, kind="workaround")
        return None

    def _unneeded(self, facts: ModuleFacts, function: FunctionFacts, use: GraphUse, uses: list, slices: dict):
        """No later backward shares the retained graph, and nothing outside the function can reach it."""
        graph = slices[use]
        if graph.carried or not graph.bindings:
            return None
        if graph.external and (graph.external_elsewhere or not _arguments_stay_out(use, graph, function, facts)):
            return None
        if _passed_a_graph(graph, function, facts):
            return None
        if graph.kept_on_self and not _only_this_call_keeps(facts, function, graph.kept_on_self, use):
            return None  # another method, or the caller, may backpropagate what is kept on `self`
        if any(_state_handed_on(call, function, facts) for call in graph.calls):
            return None  # a recurrent network that keeps `self.hidden`: the next call's backward runs through it
        root = use.loss
        while isinstance(root, (cst.Call, cst.Attribute, cst.Subscript)):
            if isinstance(root, cst.Attribute) and isinstance(root.value, cst.Name) and root.value.value == "self" \
                    and root.attr.value in graph.kept_on_self:
                break
            if isinstance(root, cst.Call):
                if not isinstance(root.func, cst.Attribute):
                    break  # `model(x)[0]`: a call's result, not what a name holds
                root = root.func.value  # `loss.mean()`
            else:
                root = root.value
        if isinstance(root, cst.Name) and any(binding.value is None for binding in function.bindings_at(root)):
            return None  # `for loss in losses`: what the loss was made from is out of sight
        if saves_only_leaves(use.loss, function, facts):
            return None  # `z = w * x + b` of leaves: the retained graph holds no tensor that would not live anyway
        # A backward before this one does not need what this one frees; one that runs again later in a
        # loop does, which the loop check below covers (what they share is made before the loop).
        here = function.order_of(use.statement)
        if any(other is not use and function.order_of(other.statement) >= here
               and shares_graph(graph, slices[other], function, facts) for other in uses):
            return None
        loops = function.loops_of.get(use.statement, ())
        if loops and any(loops[-1] not in binding.loops and (_may_carry_graph(binding, function, facts, likely=True)
                                                             or filled_with_graph(binding, function, facts))
                         for binding in graph.bindings):
            # Made before the loop: the same backward runs through it again next iteration (a list of
            # slices of one loss, `parts[batch].backward()`, too: they share the loss's graph).
            return None
        if loops and graph_kept_on_the_object(graph, function, facts) is not None:
            return None  # `self.grid_xs`, computed in `__init__` from a leaf that requires grad: made once
        if loops and isinstance(root, cst.Name) and graph_read_after_the_loop(function, root, loops[-1]):
            return None  # `h = hessian(loss / n, params)` after the loop: through the last iteration's graph
        # Handed to a backward wrapper (`scaler.scale(loss)`) or to a module an optimizer trains (its
        # forward): neither keeps the value for a backward of its own.
        harmless = {id(other.loss) for other in uses} | _module_inputs(function, facts)
        if _inspects_gradients(use, function, facts):
            # Grad-CAM hands the feature maps to the rest of the model (`self.model.head(maps)`):
            # a layer that explains, not a party that backpropagates later.
            harmless |= {id(escape.node) for escape in function.escapes if escape.how.startswith("passed to self.")}
        # A leaf (the function reads its `.grad`) handed on carries no graph, whoever keeps it; nor does
        # what `autograd.grad` differentiates with respect to, as far as this call's graph goes (autograd
        # stops there).
        leaves = read_as_leaves(function) | _differentiated_inputs(use, function)
        if any(_may_carry_graph(binding, function, facts)
               for escape in function.escapes if id(escape.node) not in harmless
               and not carries_no_graph(escape.node, function, facts)  # `critic(fake.detach())`
               for binding in (escape.bindings & graph.bindings) - leaves):
            return None  # returned, stored, handed to an unknown callee: a later backward may be elsewhere
        if _read_by_nested_code(function, graph):
            return None
        if _handed_to_a_keeper(facts, function, graph, leaves):
            return None  # a function of the file that may keep it (`shown.append((name, values))`)
        in_loop = bool(function.loops_of.get(use.statement))
        loss = _one_line(facts, use.loss, 40)
        where = "the top level of the module" if function.name == "<module>" else f"`{function.name}`"
        if graph.kept_on_self:
            kept = ", ".join(f"`self.{name}`" for name in sorted(graph.kept_on_self))
            until = (f"the graph is kept on {kept}, so its saved tensors stay in memory for nothing until the next "
                     f"call of `{function.name}` replaces it")
        elif _deleted_after(function, use, root) is not None:
            deleted = _deleted_after(function, use, root)
            until = (f"its saved tensors stay in memory for nothing until `del {root.value}` at line "
                     f"{facts.line_of(deleted)}")
        elif in_loop or function.name == "<module>":
            held = root.value if isinstance(root, cst.Name) else loss  # `loss` of `loss.mean()`
            until = f"its saved tensors stay in memory for nothing until `{held}` is dropped"
        else:
            until = f"its saved tensors stay in memory for nothing until `{function.name}` returns"
        message = (
            f"`{_one_line(facts, use.call)}` keeps the graph of `{loss}` alive, but no later backward in {where} "
            f"runs through it{' (the next iteration builds a new one)' if in_loop else ''}: {until}; remove "
            f"{_as_written(use.call)}"
        )
        return self.finding(retain_argument(use.call), message, _drop_retain_graph(use.call),
                            backward_line=facts.line_of(use.statement), loss=facts.code_for(use.loss),
                            kind="unneeded")


# Losses whose target is class indices (an integer tensor, which carries no graph).
CLASS_INDEX_LOSSES = frozenset({"cross_entropy", "nll_loss", "CrossEntropyLoss", "NLLLoss"})
# What a target goes through on its way to the loss without changing what it is.
TARGET_METHODS = frozenset({"to", "cuda", "cpu", "long", "view", "reshape", "squeeze", "unsqueeze", "flatten"})


def _arguments_stay_out(use: GraphUse, graph: Slice, function: FunctionFacts, facts: ModuleFacts) -> bool:
    """The graph reaches arguments of the function, but no later backward of the caller can need
    what this backward frees there:

    - `torch.autograd.grad(outputs, inputs, retain_graph=True)`: autograd runs only the nodes
      between the outputs and `inputs`, which this call made where it hands its arguments to a
      network or a function (`model(x[i])`, `F.cross_entropy(out, y)`); an argument that is the
      output itself, or whose own methods or torch's functions make it (`output.sum()`,
      `torch.sum(output)`), brings the caller's graph in, and stays a reason for silence;
    - a backward whose only arguments in the graph are the class-index targets of a classification
      loss (`F.cross_entropy(model(x), y)`, `criterion(out, labels.to(device))` with
      `criterion = nn.CrossEntropyLoss()`): class indices are an integer tensor, which has no graph;
    - an argument for which every call of the function in the file passes what (very likely) carries
      no graph: a batch of a loader, a detached tensor (a GAN's `G_train(D, G, X, Y, ...)` called
      with the batches of the training loop).

    (The input of an attack or a saliency map, made a leaf whose `.grad` is read, is not an
    argument in the graph: see read_as_leaves.)"""
    autograd_grad = (dotted_name(use.call.func) or "").endswith("autograd.grad")
    inspecting = not autograd_grad and _inspects_gradients(use, function, facts)
    parents = {id(node): parent for node, parent, _ in graph.nodes}
    # What the inputs are made from lies behind them: autograd.grad stops at its inputs.
    behind_inputs = {binding.statement for binding in _differentiated_inputs(use, function)}
    for node, parent, statement in graph.nodes:
        if not isinstance(node, cst.Name) or not any(b.kind == "param" for b in function.bindings_at(node)):
            continue
        if node.value == "self" and isinstance(parent, cst.Attribute) and parent.value is node:
            continue  # `self.output`: what is kept on the object is judged apart (kept_on_self)
        if _called_here(node, function):
            continue  # `D` handed to `gradient_penalty(D, real, fake)` and called as `D(fake)`: a network
        if facts.call_sites_of(function) and all(facts.autograd.binding_never_requires_grad(binding, function, likely=True)
                                                 for binding in function.bindings_at(node)):
            continue  # every call in the file passes a batch of data, a detached tensor: no graph of the caller's
        if autograd_grad and statement in behind_inputs:
            continue
        if autograd_grad:
            found = _argument_of_call(node, parents)
            if found is None or (_torch_function(found[0], facts)
                                 and not _class_index_target(node, parents, function, facts)):
                return False  # `torch.sum(loss_a)`: the argument's own graph, the caller's, is run
            continue
        if not _class_index_target(node, parents, function, facts) \
                and not (inspecting and _fed_to_a_network(node, parents, function, facts)):
            return False
    return True


def _state_handed_on(call: cst.Call, function: FunctionFacts, facts: ModuleFacts) -> bool:
    """Is the call one of a network of the file whose methods hand their state to the next call?"""
    func = call.func.value if isinstance(call.func, cst.Attribute) and call.func.attr.value == "forward" \
        else call.func
    owner = facts.built_class(func, function)
    return owner is not None and hands_state_to_next_call(facts, owner)


def _called_here(node: cst.Name, function: FunctionFacts) -> bool:
    """Is the argument `node` names called in the function (`D(real)`): a network or a function,
    whose parameters are leaves, not a graph of the caller's?"""
    bindings = function.bindings_at(node)
    return bool(bindings) and any(isinstance(call.func, cst.Name) and call.func.value == node.value
                                  and function.bindings_at(call.func) == bindings for call in function.call_statement)


def _inspects_gradients(use: GraphUse, function: FunctionFacts, facts: ModuleFacts) -> bool:
    """Is the backward there to read gradients (a saliency map, Grad-CAM, an attribution): after it
    the function reads a `.grad`, or gradients a hook captured (`self.extractor.gradients`,
    `self.grads`), and it steps no optimizer? Such a function feeds its argument to the model as
    data to explain, not as a graph of the caller's to train through."""
    if facts.method_calls("step") and any(
            isinstance(call.func, cst.Attribute) and call.func.attr.value == "step" for call in function.call_statement):
        return False
    order = function.order_of(use.statement)
    for statement, position in function.statement_order.items():
        if position <= order:
            continue
        for node in walk(statement):
            if isinstance(node, cst.Attribute) and "grad" in node.attr.value.lower() \
                    and not (isinstance(node.value, cst.Name) and node.value.value in ("torch", "autograd")) \
                    and node.attr.value not in ("zero_grad", "requires_grad", "requires_grad_", "no_grad",
                                                "enable_grad", "set_grad_enabled"):
                return True
    return False


def _fed_to_a_network(node: cst.Name, parents: dict, function: FunctionFacts, facts: ModuleFacts) -> bool:
    """Is the argument handed (through indexing or `.to(device)`) to a network: a `self.` layer or
    method (`self.model(x)`, `self.extractor.forward_pass(x)`), a name that reads as one (`model(x)`),
    or a function of the file that feeds that argument to a network?"""
    found = _argument_of_call(node, parents)
    if found is None:
        return False
    call, arg = found
    func = call.func
    if facts.names.qualified_name(func) is not None or arg.keyword is not None:
        return False
    root = func
    while isinstance(root, cst.Attribute):
        root = root.value
    if isinstance(root, cst.Name) and root.value == "self" and root is not func:
        return True
    if isinstance(func, cst.Name):
        summary = facts.callee_summary(call, function)
        if summary is not None:
            position = [a for a in call.args if a.keyword is None].index(arg) if arg in call.args else -1
            return any(position in network.inputs for network in summary.networks)
        # `model(x)` with `model` an argument or a global: a network of unknown class.
        return reads_as_network(func.value) and all(b.kind == "param" for b in function.bindings_at(func))
    return False


def _torch_function(call: cst.Call, facts: ModuleFacts) -> bool:
    """`torch.sum(x)`, `F.mse_loss(x, y)`: an operation on its arguments, whose result carries their
    graph, not a network whose own parameters start one."""
    return (facts.names.qualified_name(call.func) or "").startswith("torch.")


def _argument_of_call(node: cst.Name, parents: dict):
    """(the call, the Arg) where `node`, through indexing and view-like methods (`y[i]`, `y.to(d)`),
    is handed to a call as an argument; None otherwise."""
    current, parent = node, parents.get(id(node))
    while True:
        if isinstance(parent, cst.Subscript) and parent.value is current:
            current, parent = parent, parents.get(id(parent))
        elif isinstance(parent, cst.Attribute) and parent.value is current and parent.attr.value in TARGET_METHODS:
            call = parents.get(id(parent))
            if not (isinstance(call, cst.Call) and call.func is parent):
                return None
            current, parent = call, parents.get(id(call))
        else:
            break
    call = parents.get(id(parent)) if isinstance(parent, cst.Arg) else None
    return (call, parent) if isinstance(call, cst.Call) else None


def _class_index_target(node: cst.Name, parents: dict, function: FunctionFacts, facts: ModuleFacts) -> bool:
    found = _argument_of_call(node, parents)
    if found is None:
        return False
    call, parent = found
    positional = [arg for arg in call.args if arg.keyword is None]
    is_target = (parent.keyword is not None and parent.keyword.value == "target") or \
        (len(positional) > 1 and positional[1] is parent)
    return is_target and _class_index_loss(call.func, function, facts)


def _passed_a_graph(graph: Slice, function: FunctionFacts, facts: ModuleFacts) -> bool:
    """Does a call of the function in the file pass, for a parameter the graph reaches, a value that
    may carry a graph (`y = model(x)` handed in as the `input_label=None` of an attack, the target of
    its cross-entropy: soft targets, not class indices)? Then the caller's graph is in this one, and
    the caller's own backward, or this one's next iteration, may need it."""
    params = [binding for binding in graph.bindings if binding.kind == "param"]
    if not params or type(function.node) is not cst.FunctionDef:
        return False
    for caller, call, statement in facts.call_sites_of(function) or ():
        for param in params:
            passed = passed_for_parameter(call, function.node, param.statement)
            if isinstance(passed, cst.BaseExpression) and \
                    facts.autograd.carries_graph(passed, caller, statement, ASSUMED) is not None:
                return True
    return False


def _class_index_loss(func, function: FunctionFacts, facts: ModuleFacts) -> bool:
    """`F.cross_entropy`, `nn.CrossEntropyLoss()(...)`, or a name bound (here or at the top) to one."""
    name = (facts.names.qualified_name(func) or dotted_name(func) or "").rpartition(".")[2]
    if name in CLASS_INDEX_LOSSES:
        return True
    if isinstance(func, cst.Call):
        return _class_index_loss(func.func, function, facts)
    if isinstance(func, cst.Name):
        _, bindings = facts.reaching(func, function)
        return bool(bindings) and all(isinstance(b.value, cst.Call) and _class_index_loss(b.value.func, function, facts)
                                      for b in bindings)
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
        owner = facts.classes.get(function.class_name or "")
        values = facts.attribute_values(owner, func.attr.value) if owner is not None else []
        return bool(values) and all(isinstance(v, cst.Call) and _class_index_loss(v.func, function, facts) for v in values)
    return False


def _differentiated_inputs(use: GraphUse, function: FunctionFacts) -> set:
    """The bindings of the names `torch.autograd.grad(outputs, inputs, ...)` takes as `inputs`."""
    if not (dotted_name(use.call.func) or "").endswith("autograd.grad"):
        return set()
    inputs = next((arg.value for arg in use.call.args if arg.keyword is not None and arg.keyword.value == "inputs"),
                  None)
    positional = [arg.value for arg in use.call.args if arg.keyword is None]
    if inputs is None and len(positional) > 1:
        inputs = positional[1]
    if inputs is None:
        return set()
    elements = [element.value for element in inputs.elements] if isinstance(inputs, (cst.List, cst.Tuple)) \
        else [inputs]
    return {binding for element in elements if isinstance(element, cst.Name)
            for binding in function.bindings_at(element)}


def _deleted_after(function: FunctionFacts, use: GraphUse, root) -> Optional[cst.Del]:
    """`del out` after the backward of `out...`, in the same loops: where the graph is dropped."""
    if not isinstance(root, cst.Name):
        return None
    order = function.order_of(use.statement)
    loops = function.loops_of.get(use.statement, ())
    found = [statement for statement, position in function.statement_order.items()
             if position > order and isinstance(statement, cst.Del) and function.loops_of.get(statement, ()) == loops
             and any(isinstance(node, cst.Name) and node.value == root.value for node in walk(statement.target))]
    return min(found, key=function.order_of) if found else None


def _only_this_call_keeps(facts: ModuleFacts, function: FunctionFacts, attributes: set, use: GraphUse) -> bool:
    """A graph kept on `self` by a method that returns a gradient it read (`return x.grad`, the
    attribution shape), in a class where no other method reads those attributes and nothing reads
    attributes by name (`getattr(self, ...)`), and that no class of the file derives from: the
    gradient is what the method is for, and nothing in sight backpropagates the graph again. A loss
    kept on `self` by a step method (`self.loss_D`) is left alone: another method, or the caller, may."""
    owner = facts.classes.get(function.class_name or "")
    if owner is None or not (_returns_a_gradient(function) or _inspects_gradients(use, function, facts)):
        return False
    if any(owner.name in other.base_names for other in facts.classes.values()):
        return False
    for method in owner.methods.values():
        for node in walk(method):
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) \
                    and node.func.value in ("getattr", "vars") and node.args \
                    and isinstance(node.args[0].value, cst.Name) and node.args[0].value.value == "self":
                return False
            if method is not function.node and isinstance(node, cst.Attribute) \
                    and isinstance(node.value, cst.Name) and node.value.value == "self" \
                    and node.attr.value in attributes | {"__dict__"}:
                return False
    return True


def _returns_a_gradient(function: FunctionFacts) -> bool:
    """Does the function return a value read from a `.grad` (directly, or through a name)?"""
    for statement in function.statement_order:
        if not isinstance(statement, cst.Return) or statement.value is None:
            continue
        pending, seen = [statement.value], set()
        while pending:
            for node in walk(pending.pop()):
                if isinstance(node, cst.Attribute) and node.attr.value == "grad":
                    return True
                if isinstance(node, cst.Name):
                    for binding in function.bindings_at(node):
                        if binding not in seen and binding.value is not None:
                            seen.add(binding)
                            pending.append(binding.value)
    return False


def _module_inputs(function: FunctionFacts, facts: ModuleFacts) -> set:
    """The arguments of calls of modules that the file's optimizers train (`netD(fake)`), of
    torch.nn's own modules (`self.BCE_loss(out, target)`), of a logger's recording methods
    (`writer.add_scalar("loss", loss, step)`), and of the file's functions that read them only
    detached (a plotting helper's `a.detach().numpy()`), by id: none keeps a graph."""
    found = set()
    for call in function.call_statement:
        if facts.training.trains_module(module_key(call.func), function) \
                or built_by_torch_nn(call.func, function, facts) or records_only(call):
            found.update(id(arg.value) for arg in call.args)
            continue
        position = 0
        for arg in call.args:
            if arg.star:
                break
            keyword = arg.keyword.value if arg.keyword is not None else None
            if graph_left_alone(facts, call, function, None if keyword else position, keyword):
                found.add(id(arg.value))
            if keyword is None:
                position += 1
    return found


def _handed_to_a_keeper(facts: ModuleFacts, function: FunctionFacts, graph: Slice, leaves: set) -> bool:
    """Is a value of the graph handed to a function of the file that may keep it?"""
    for call in function.call_statement:
        position = 0
        for arg in call.args:
            if arg.star:
                break
            keyword = arg.keyword.value if arg.keyword is not None else None
            root = root_name(arg.value)
            bindings = (set(function.bindings_at(root)) & graph.bindings) - leaves if root is not None else set()
            if any(_may_carry_graph(binding, function, facts) for binding in bindings) \
                    and file_callee_may_keep(facts, call, function, None if keyword else position, keyword):
                return True
            if keyword is None:
                position += 1
    return False


def _may_carry_graph(binding, function: FunctionFacts, facts: ModuleFacts, likely: bool = False) -> bool:
    """`likely`: a batch of a data loader (`real = real.to(device)` before a critic's inner loop)
    counts as free of a graph, as it very nearly always is."""
    value = unpacked_part(binding) or binding.value  # `x, z = x.cuda(), z.cuda()`: this name's part
    if value is None or loader_data(binding, function, facts):
        return False
    if holds_network(binding, function, facts):
        return False  # a network is handed around, not its graph
    if likely:
        return not facts.autograd.binding_never_requires_grad(binding, function, likely=True)
    return not carries_no_graph(value, function, facts)


def _read_by_nested_code(function: FunctionFacts, graph: Slice) -> bool:
    """A closure or lambda of the function that reads one of the graph's names could backpropagate it later."""
    names = {binding.name for binding in graph.bindings}
    node = function.node
    if not isinstance(node, cst.FunctionDef):
        return False
    for inner in walk(node.body):
        if isinstance(inner, (cst.FunctionDef, cst.Lambda)):
            if any(isinstance(name, cst.Name) and name.value in names for name in walk(inner)):
                return True
    return False


def _other_attached_reads(fake, graph) -> list:
    """The calls in the discriminator's loss, besides the discriminator's, that take the generator's
    output as it is (a gradient penalty on interpolates of real and fake)."""
    if type(fake.argument) is not cst.Name:
        return []
    name = fake.argument.value
    return [node for node, _, _ in graph.nodes
            if type(node) is cst.Call and node is not fake.call
            and any(type(arg.value) is cst.Name and arg.value.value == name for arg in node.args)]


def _as_written(call: cst.Call) -> str:
    """`retain_graph=True`, or `retain_variables=True` where the code keeps the graph by its pre-0.4 name."""
    return f"`{retain_argument(call).keyword.value}=True`"


def _drop_retain_graph(call: cst.Call) -> NodeFix:
    dropped = retain_argument(call)
    args = [arg for arg in call.args if arg is not dropped]
    if args:
        args[-1] = without_trailing_comma(args[-1])
    return Rule.unsafe_fix(f"Remove `{dropped.keyword.value}=True`", call, call.with_changes(args=args))


def _one_line(facts: ModuleFacts, node: cst.CSTNode, limit: int = 60) -> str:
    text = " ".join(facts.code_for(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
