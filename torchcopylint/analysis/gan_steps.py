"""The pairing of GAN roles in training code: which call feeds the discriminator the generator's
output, attached to the graph, in which discriminator step.

One fact, read by TCL003 (discriminator-without-detach, which reports it) and TCL011
(retain-graph-workaround, whose workaround is the same step kept alive with `retain_graph=True`).

A step is defined by data flow (see rules/TCL003.md): a backward, the optimizers that step right
after it, and the losses backpropagated since the previous step whose gradients those optimizers
use (`Window`: a zeroing of their gradients, or the step of an optimizer the file does not show,
ends the stretch). The discriminator is a network the stepping optimizer trains that its step also
feeds something the generator did not make (a network fed only the generator's output cooperates
with it: InfoGAN's Q, a decoder), or whose name says so; the generator is one another optimizer
trains (or, in a step function that receives both networks, the one gan_roles says feeds the
other); names only break ties when the file builds no optimizer for the generator. A loss in which
the discriminator judges only the generator's output, and on which the generator's optimizer then
steps, is the generator's own, not the discriminator's.

Networks are reached through what the function summaries say (analysis/summaries.py): a wrapper
(`def D(x): return netD(x)`), a lambda, a network held in a dict or list (`nets["D"]`), a helper
that returns the generator's output (`fake = self.sample(n)`), a function of raw tensors an
optimizer trains (`def G(z): return relu(z @ W1 + b1) @ W2`), and a discriminator step written in
a helper called with the fake batch (`d_step(fake, real)`), networks and optimizers held in dicts
of a list (`D["model"]`, `D["solver"]`), and a step that hands its backward to a method of the class
(pix2pix's `backward_D()`), whose `self.` attributes are read where the step's function set them
through an earlier method call (`self.forward()`). A discriminator input detached while the fake
batch enters the loss beside it (BEGAN's reconstruction target) is reported at that read. Each
finding records what it went through, so that its message can name it.

Computed per function on first question (ModuleFacts.gan_steps).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import libcst as cst

from torchcopylint.analysis.aliasing import (LEAF_FACTORIES, METADATA_ATTRIBUTES, METADATA_METHODS, PASSED_UNKNOWN,
                                             FunctionFacts, detached_in_place, goes_through_detach,
                                             passed_for_parameter)
from torchcopylint.analysis.gan_roles import named_as_optimizer, network_role
from torchcopylint.analysis.graphs import (CONVERSION_METHODS, DETACHING_METHODS, NO_GRAPH_ATTRIBUTES, GraphUse,
                                           cuts_graph, graph_uses, later_backward_through, loss_slice, retains_graph,
                                           wrapped_in_variable)
from torchcopylint.analysis.syntax import child_nodes, on_exclusive_branches, reads_gradient, walk, writes_gradient
from torchcopylint.analysis.torchnames import dotted_name
from torchcopylint.analysis.training import (GradSwitch, OptimizerStep, backward_calls, flowing_bindings, module_key,
                                             switched_off_at)

# Only used to break ties when the optimizers do not tell which module is the generator.
GENERATOR_NAMES = ("netg", "generator", "gen", "g", "g_ab", "g_ba", "netg_a", "netg_b")


@dataclass(frozen=True)
class Window:
    """A step: the optimizers stepped after one backward, and the losses backpropagated since the
    previous step (as statement orders: after `after`, before `before`)."""

    optimizers: tuple  # every optimizer stepped with these gradients (a finding names the one of its discriminator)
    trained: frozenset  # the modules those optimizers update
    after: int
    before: int
    losses: tuple  # (backward statement, loss expression)
    step_statement: cst.CSTNode
    steps: tuple = ()  # the OptimizerSteps, in order
    # (statement, call) of calls of the file's functions or methods that run the backward
    # themselves (`self.backward_D()` between `optimizer_D.zero_grad()` and `optimizer_D.step()`)
    delegated: tuple = ()
    # Where the values the losses are computed from may come from: after the last step that surely
    # ran before this one. A step under an `if` that does not hold this one (the generator's, every
    # n-th iteration) ends no window on the iterations that skip it. -1 when `after` is -1.
    reach_after: int = -1


@dataclass(frozen=True)
class UndetachedFake:
    """A discriminator fed the generator's output without `.detach()` in a discriminator step."""

    function: FunctionFacts
    call: cst.Call  # the discriminator call (`netD(fake)`, `D(fake)`), or the helper running the step
    argument: cst.BaseExpression  # what `.detach()` goes on
    source: cst.Call  # the generator's call, in `function`
    loss_statement: cst.CSTNode  # the step's backward in `function` (for a helper: the helper's call)
    backward_statement: cst.CSTNode  # the backward itself (in the helper, for a helper)
    step_statement: cst.CSTNode
    optimizer: str  # the discriminator's optimizer
    discriminator: str  # network keys, as the verify experiments look them up
    generator: str
    discriminator_via: Optional[str]  # what the discriminator was reached through, for the message
    generator_via: Optional[str]
    helper: Optional[str]  # "function `d_step`": the step runs in it, called here
    detach_is_safe: bool
    retains_graph: bool  # the step's backward passes `retain_graph=True`
    # The first later backward in `function` whose loss still goes through `source`'s output.
    later_backward: Optional[GraphUse]
    # The generator's optimizer stepping right after the same backward (issue: G trained to help D).
    generator_step: Optional[OptimizerStep] = None
    # The retained graph backpropagated again after the optimizers changed the weights it saved.
    reused_after_step: Optional[GraphUse] = None
    # For a step in a helper: the discriminator's call there, and the helper.
    inner_call: Optional[cst.Call] = None
    helper_node: Optional[cst.CSTNode] = None
    # The discriminator call whose input is detached, when the generator's output reaches the loss
    # beside it (BEGAN's reconstruction target): `argument` is then that read.
    target_of: Optional[cst.Call] = None
    # An earlier backward, without `retain_graph=True`, through the same generator output: it freed
    # that graph, so the discriminator's backward itself fails (the generator step first, as in CycleGAN).
    freed_by: Optional[GraphUse] = None
    # Why the detach is not safe: (words with a `{line}` field, the node whose line fills it).
    unsafe_reason: Optional[tuple] = None
    # The generator's own optimizer stepping later with nothing zeroed since this backward: its update
    # adds the discriminator's loss gradient to the generator's own (a bug, not only wasted work).
    generator_stepped_on: Optional[OptimizerStep] = None


@dataclass(frozen=True)
class _HelperStep:
    """In a helper, a discriminator step whose discriminator input comes from the helper's argument."""

    parameter: int
    window: Window
    optimizer: str
    backward_statement: cst.CSTNode
    retains: bool
    discriminator: str
    discriminator_via: Optional[str]
    safe: bool  # the argument is read in the helper only as the discriminator's input
    call: cst.Call  # the discriminator's call in the helper
    judges_other: bool = True  # the step also judges something the argument did not make


class GanSteps:
    def __init__(self, facts) -> None:
        self.facts = facts
        self._by_function: dict = {}
        self._helper_steps: dict = {}
        self._stepping: Optional[set] = None  # functions with a `.step(...)` call

    def of(self, function: FunctionFacts) -> list[UndetachedFake]:
        found = self._by_function.get(function.node)
        if found is None:
            found = self._by_function[function.node] = self._compute(function)
        return found

    def all(self) -> list[UndetachedFake]:
        return [fake for function in self.facts.all_functions() for fake in self.of(function)]

    # --------------------------------------------------------------- the steps

    def _compute(self, function: FunctionFacts) -> list[UndetachedFake]:
        training = self.facts.training
        optimizers = training.optimizers_of(function)
        if not optimizers:
            return []
        windows = windows_of(function, training, optimizers)
        helper_calls = self._helper_calls(function)
        if not windows and not helper_calls:
            return []
        context = _Context(self.facts, function, optimizers, windows)
        found: list[UndetachedFake] = []
        reported: set = set()
        for window in windows:
            generators = context.generators_for(window.trained)
            for loss_statement, loss in window.losses:
                for call in _calls_feeding(loss, function, window.reach_after, function.order_of(loss_statement),
                                           facts=self.facts):
                    if call in reported or not self.facts.grad_enabled_at(function, function.call_statement.get(call)):
                        continue
                    fake = self._judged(context, window, call, window.trained, generators, loss_statement)
                    if fake is not None:
                        reported.add(call)
                        found.append(fake)
            found.extend(self._undetached_targets(context, window, generators, reported))
            for statement, call in window.delegated:
                found.extend(self._delegated(context, window, generators, call, reported))
            if len(window.optimizers) > 1:
                found.extend(self._generator_helping(context, window, reported))
        for call, summary, steps in helper_calls:
            for step in steps:
                # One finding per argument: ALI's `d_step(x, E(x), G(z), z)` hands the step both outputs.
                fake = self._through_helper(context, call, summary, step)
                if fake is not None and fake.argument not in reported:
                    reported.add(fake.argument)
                    found.append(fake)
        return found

    def _judged(self, context: "_Context", window: Window, call: cst.Call, trained: frozenset,
                generators: frozenset, loss_statement, generator_step: Optional[OptimizerStep] = None):
        function = context.function
        for argument, discriminator, via in self._discriminator_inputs(call, function, trained, context):
            source = context.generator_call(argument, generators, trained, function.order_of(loss_statement))
            if source is None:
                continue
            if isinstance(argument, (cst.List, cst.Tuple)):
                # `discriminator([fake_cat, all_time])`: the element that carries the generator's output is
                # what to detach (a list has no `.detach()`).
                carrying = [element.value for element in argument.elements if context.generator_call(
                    element.value, generators, trained, function.order_of(loss_statement)) is not None]
                if len(carrying) == 1:
                    argument = carrying[0]
                    source = context.generator_call(argument, generators, trained, function.order_of(loss_statement))
            generator_call, generator, generator_via = source
            if not self._judges_other(context, window, call, discriminator, generator,
                                      noise_generates=generator_step is not None) \
                    and not _named_as_a_pair(discriminator, generator):
                continue  # a network fed only the generator's output cooperates with it (Q, a decoder)
            if self._judged_outside(context, window, loss_statement, discriminator):
                continue  # `D(G(E(x)))` in G's loss: G generates for D here, whatever it is fed
            if generator_step is None and self._generators_own_loss(context, window, loss_statement, call,
                                                                    discriminator, generator):
                continue
            if self._generator_gradients_read(context, loss_statement, generator):
                continue  # the generator's gradient from this loss is what the code measures
            backward = next(b for b in backward_calls(function, self.facts) if b.statement is loss_statement)
            retains = retains_graph(backward.call)
            later = _second_backward(generator_call, loss_statement, function, self.facts)
            reused = None
            if retains:
                reused = self._reused_after_step(function, call, window, loss_statement, generator_step)
            unsafe = _fix_breaks(call, argument, function, self.facts, window) \
                or self._callee_differentiates(call, function)
            # The step of the optimizer that trains this discriminator, where a window steps several
            # (`d_horse_optimizer.step(); d_zebra_optimizer.step()` after both backwards).
            stepper = _stepper(window, trained if generator_step is not None else frozenset({discriminator}),
                               context.optimizers)
            optimizer, step_statement = stepper.optimizer, stepper.statement
            return UndetachedFake(
                function, call, argument, generator_call, loss_statement, loss_statement, step_statement, optimizer,
                discriminator, generator, via, generator_via, None,
                unsafe is None, retains, later, generator_step, reused, unsafe_reason=unsafe,
                freed_by=_earlier_backward(generator_call, loss_statement, function, self.facts),
                generator_stepped_on=None if generator_step is not None else
                self._generator_step_on_these_gradients(context, loss_statement, generator))
        return None

    def _undetached_targets(self, context: "_Context", window: Window, generators: frozenset,
                            reported: set) -> list[UndetachedFake]:
        """The discriminator's input detached, but the generator's output used in its loss as it is:
        BEGAN/EBGAN's `recon = D(fake.detach()); d_loss = ((recon - fake) ** 2).mean()`. The
        backward still reaches the generator, through the reconstruction's target. Reported at
        each attached read of the name whose detached value the discriminator judges."""
        function = context.function
        found = []
        for loss_statement, loss in window.losses:
            inside: set = set()  # nodes of the discriminator's inputs (judged on their own)
            detached = []  # (the discriminator call, the detached name, its key, what it went through)
            for call in _calls_feeding(loss, function, window.reach_after, function.order_of(loss_statement),
                                       facts=self.facts):
                for argument, key, via in self._discriminator_inputs(call, function, window.trained, context):
                    inside.update(id(node) for node in _walk(argument))
                    root = _detached_name(argument)
                    if root is not None and function.bindings_at(root):
                        detached.append((call, root, key, via))
            if not detached:
                continue
            order = function.order_of(loss_statement)
            graph = None
            for call, root, key, via in detached:
                if graph is None:
                    graph = loss_slice(loss, loss_statement, function, self.facts, through_summaries=True)
                wanted = function.bindings_at(root)
                call_of_argument = {id(node): parent for node, parent, _ in graph.nodes if type(node) is cst.Arg}
                for node, parent, statement in graph.nodes:
                    if type(node) is not cst.Name or id(node) in inside or node in reported \
                            or type(parent) is cst.Attribute and parent.attr is node \
                            or not function.bindings_at(node) & wanted:
                        continue
                    if type(parent) is cst.Arg and self._cut_by_callee(call_of_argument.get(id(parent)), parent,
                                                                        function):
                        continue  # `gradient_penalty(D, real, fake)`, which rewraps it in a new leaf
                    outer = call_of_argument.get(id(parent))
                    if type(parent) is cst.Arg and outer is not None and self.facts.bound_by_import(outer.func, function):
                        continue  # a function of another module (`from utils import gradient_penalty`): it may detach
                    source = context.generator_call(node, generators, window.trained, order)
                    if source is None:
                        continue
                    generator_call, generator, generator_via = source
                    if not self._judges_other(context, window, call, key, generator) \
                            and not _named_as_a_pair(key, generator):
                        continue
                    backward = next(b for b in backward_calls(function, self.facts) if b.statement is loss_statement)
                    elsewhere = self._feeds_elsewhere(statement, function, window)
                    unsafe = None if elsewhere is None else (
                        "what it computes also feeds the loss backpropagated at line {line}, outside the "
                        "discriminator's step", elsewhere)
                    reported.add(node)
                    found.append(UndetachedFake(
                        function, call, node, generator_call, loss_statement, loss_statement, window.step_statement,
                        window.optimizers[0], key, generator, via, generator_via, None, unsafe is None,
                        retains_graph(backward.call),
                        _second_backward(generator_call, loss_statement, function, self.facts),
                        target_of=call, unsafe_reason=unsafe))
        return found

    def _cut_by_callee(self, call: Optional[cst.Call], argument: cst.Arg, function: FunctionFacts) -> bool:
        """Does the file's function called here return nothing attached to this positional
        argument's graph (its summary's `returned_arguments`)?"""
        if call is None or argument.keyword is not None or argument.star:
            return False
        summary = self.facts.callee_summary(call, function)
        if summary is None:
            return False
        positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
        return argument in positional and positional.index(argument) not in summary.returned_arguments

    def _delegated(self, context: "_Context", window: Window, generators: frozenset, call: cst.Call,
                   reported: set, depth: int = 0) -> list[UndetachedFake]:
        """A step that hands its backward to a method or function of the file: pix2pix's
        `self.forward(); self.optimizer_D.zero_grad(); self.backward_D(); self.optimizer_D.step()`
        with `self.fake_B = self.netG(self.real_A)` in `forward()` and `self.netD(fake_AB)` in
        `backward_D()`. The discriminator step is judged inside the callee, its attributes read
        where the caller set them (attribute_sources), its network arguments named by what the
        caller passes."""
        inner_function = _delegate(call, context.function, self.facts)
        if inner_function is None or depth > 2:
            return []
        inner = context.inner(call, inner_function)
        backwards = backward_calls(inner_function, self.facts)
        step = Window(window.optimizers, window.trained, -1, len(inner_function.statement_order) + 1,
                      tuple((b.statement, b.loss) for b in backwards), window.step_statement, window.steps)
        summary = self.facts.callee_summary(call, context.function)
        label = summary.label if summary is not None else f"`{_code(self.facts, call.func)}`"
        found = []
        for backward in backwards:
            order = inner_function.order_of(backward.statement)
            for candidate in _calls_feeding(backward.loss, inner_function, -1, order, facts=self.facts):
                if candidate in reported or not self.facts.grad_enabled_at(
                        inner_function, inner_function.call_statement.get(candidate)):
                    continue
                for argument, discriminator, via in self._discriminator_inputs(candidate, inner_function,
                                                                               window.trained, inner):
                    source = inner.generator_call(argument, generators, window.trained, order)
                    if source is None:
                        continue
                    generator_call, generator, generator_via = source
                    if not self._judges_other(inner, step, candidate, discriminator, generator) \
                            and not _named_as_a_pair(discriminator, generator):
                        continue
                    where = f"in the {label} (line {self.facts.line_of(inner_function.node)}), called at line " \
                            f"{self.facts.line_of(call)}"
                    via = f"{where}; {via}" if via else where
                    unsafe = _fix_breaks(candidate, argument, inner_function, self.facts, step) \
                        or self._callee_differentiates(candidate, inner_function)
                    if unsafe is None and not self._only_in_discriminator_steps(inner_function, generator):
                        unsafe = (f"the {label} (line {{line}}) is also called where the generator is trained, or "
                                  f"where the file does not show which step it serves", inner_function.node)
                    reported.add(candidate)
                    found.append(UndetachedFake(
                        inner_function, candidate, argument, generator_call, backward.statement, backward.statement,
                        window.step_statement, window.optimizers[0], discriminator, generator, via, generator_via,
                        None, unsafe is None, retains_graph(backward.call),
                        self._handed_backward_through(context, window, generators, generator_call, True),
                        unsafe_reason=unsafe,
                        freed_by=self._handed_backward_through(context, window, generators, generator_call, False)))
                    break
        for statement, nested in delegated_backwards(inner_function, self.facts, depth + 1):
            found.extend(self._delegated(inner, step, generators, nested, reported, depth + 1))
        return found

    def _only_in_discriminator_steps(self, function: FunctionFacts, generator: str, depth: int = 0) -> bool:
        """Is every call of `function` in the file a backward handed over by a step that does not
        train the generator (directly, or from a function that is itself only called so)? Then a
        detach inside it changes no generator step."""
        training = self.facts.training
        sites = training._call_sites_of(function)
        if not sites or depth > 2:
            return False
        for call, caller in sites:
            handed = [window for window in windows_of(caller, training, training.optimizers_of(caller))
                      if any(delegated is call for _, delegated in window.delegated)]
            if handed:
                if any(generator in window.trained for window in handed):
                    return False
            elif not self._only_in_discriminator_steps(caller, generator, depth + 1):
                return False
        return True

    def _handed_backward_through(self, context: "_Context", window: Window, generators: frozenset,
                                 generator_call: cst.Call, later: bool) -> Optional[GraphUse]:
        """A backward handed to another method after the step (`later`: pix2pix's
        `self.backward_G()`, which fails once the discriminator's backward has freed the generator's
        graph) or before it without `retain_graph=True` (CycleGAN's generator step first: then the
        discriminator's backward is the one that fails), whose loss runs through the same generator
        call."""
        for other in context.windows:
            if (other.before <= window.before) if later else (other.before >= window.before):
                continue
            for statement, call in other.delegated:
                inner_function = _delegate(call, context.function, self.facts)
                if inner_function is None:
                    continue
                inner = context.inner(call, inner_function)
                for use in graph_uses(inner_function, self.facts):
                    if not later and use.retains:
                        continue
                    found = inner.generator_call(use.loss, generators, frozenset(),
                                                 inner_function.order_of(use.statement), False, generator_call)
                    if found is not None:
                        return use
        return None

    def _feeds_elsewhere(self, statement, function: FunctionFacts, window: Window):
        """The backward outside the window whose loss what `statement` computes reaches, or None."""
        own = {loss_statement for loss_statement, _ in window.losses}
        made = {binding for binding in function.bindings if binding.statement is statement}
        for backward in backward_calls(function, self.facts):
            if backward.statement in own:
                continue
            if backward.statement is statement or made & flowing_bindings(backward.loss, function):
                return backward.statement
        return None

    def _judges_other(self, context: "_Context", window: Window, call: cst.Call, discriminator: str,
                      generator: str, losses: Optional[tuple] = None, noise_generates: bool = False) -> bool:
        """Is the network a discriminator: in the step's losses (or in `losses`), is it also called
        on something `generator` did not make (the real batch, or another generator's output, as in
        ALI/BiGAN's `D(x, E(x))` against `D(G(z), z)`)? A network only ever fed the generator's
        output in its step cooperates with it (InfoGAN's Q network, a decoder fed an encoder's
        codes): its loss does not oppose the generator's, and that is no discriminator step.
        `noise_generates` (a loss both optimizers step on): a network whose other input is sampled
        noise (`G(E(x))` beside `G(z)`, `z = torch.randn(...)`) generates; the loss is one the
        encoder and the generator minimise together. (Not for a step of one optimizer: an
        adversarial autoencoder's critic judges prior samples against the encoder's codes.)"""
        function = context.function
        for statement, loss in (window.losses if losses is None else losses):
            for other in _calls_feeding(loss, function, window.reach_after, function.order_of(statement),
                                        facts=self.facts):
                if other is call:
                    continue
                inputs = [argument for argument, key, _ in
                          self._discriminator_inputs(other, function, window.trained, context) if key == discriminator]
                if inputs and not any(self._reaches(argument, generator, function, context) for argument in inputs) \
                        and not (noise_generates and all(_sampled_noise(argument, function, self.facts)
                                                         for argument in inputs)):
                    return True
        return False

    def _judged_outside(self, context: "_Context", window: Window, loss_statement, network: str) -> bool:
        """In this loss, is what `network` computes fed to a network that an optimizer outside the
        step trains (`D(G(E(x)))`, `D(G(z))` in a step of G's and E's optimizers)? Then `network`
        is a generator there, judged by that one: the loss is the generator's (a mode-regularised
        GAN's G and E minimising one loss), not a discriminator's step for what `network` is fed."""
        outside = context.all_trained - window.trained
        if not outside:
            return False
        function = context.function
        loss = next(loss for statement, loss in window.losses if statement is loss_statement)
        for other in _calls_feeding(loss, function, window.reach_after, function.order_of(loss_statement),
                                    facts=self.facts):
            keys = context.network_keys(other.func) if _may_be_network(other, self.facts, function) \
                else frozenset()
            if keys & outside and any(self._reaches(arg.value, network, function, context)
                                      for arg in other.args if not arg.star):
                return True
        return False

    def _reaches(self, expr, network: str, function: FunctionFacts, context: Optional["_Context"] = None,
                 depth: int = 0) -> bool:
        """Does anything `network` computed flow into `expr`, detached or not (through `self.`
        attributes where `context` sees them set)?"""
        summaries = self.facts.summaries
        if context is not None and depth < 3:
            expressions = [expr, *(b.value for b in flowing_bindings(expr, function) if b.value is not None)]
            for node in (node for expression in expressions for node in _walk(expression)):
                if type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == "self":
                    for value, inner, _, _, _ in context.attribute_sources(node.attr.value,
                                                                           len(function.statement_order) + 1):
                        if self._reaches(value, network, inner.function, inner, depth + 1):
                            return True
        for call in _calls_feeding(expr, function, -1, facts=self.facts):
            if _may_be_network(call, self.facts, function) \
                    and network in summaries.network_keys(call.func, function):
                return True
            if type(call.func) is cst.Name or _is_self_call(call):
                summary = self.facts.callee_summary(call, function)
                if summary is not None and any(network in use.aliases
                                               for use in networks_at(summaries, summary, call, function)):
                    return True
        return False

    def _generators_own_loss(self, context: "_Context", window: Window, loss_statement, call: cst.Call,
                             discriminator: str, generator: str) -> bool:
        """A loss in which the discriminator judges only the generator's output, backpropagated
        where the generator's optimizer then steps on it (nothing zeroes the generator's gradients
        in between): the generator's own loss, computed before the discriminator's step
        (`g_loss.backward(); d_loss.backward(); opt_d.step(); opt_g.step()` in another order). Its
        discriminator call is the generator's adversarial term; a detach there would stop the
        generator from learning."""
        function = context.function
        loss = next(loss for statement, loss in window.losses if statement is loss_statement)
        if self._judges_other(context, window, call, discriminator, generator, losses=((loss_statement, loss),)):
            return False
        start = function.order_of(loss_statement)
        generator_optimizers = {key for key, modules in context.optimizers.items() if generator in modules}
        if not generator_optimizers:
            return False
        for step in self.facts.training.steps(function, context.optimizers):
            if step.order <= start or step.optimizer not in generator_optimizers:
                continue
            return not any(start < order < step.order and _zeroes(modules, frozenset({generator}))
                           for order, modules in context.boundaries())
        return False

    def _callee_differentiates(self, call: cst.Call, function: FunctionFacts) -> Optional[tuple]:
        """A wrapper that takes `autograd.grad` (a gradient penalty on its input) may need its argument
        attached: detaching it at the call could break the penalty, so the fix is not safe."""
        summary = self.facts.callee_summary(call, function) if type(call.func) is cst.Name \
            or _is_self_call(call) else None
        if summary is not None and summary.differentiates:
            return f"the {summary.label} (line {{line}}) takes `torch.autograd.grad` of what it is given", summary.node
        return None

    def _generator_gradients_read(self, context: "_Context", loss_statement, generator: str) -> bool:
        """`[p.grad for p in self.G.parameters()]` after the discriminator's backward: a study of the
        gradient the discriminator's loss gives the generator (its norm, logged) backpropagates into it
        on purpose."""
        function = context.function
        after = function.order_of(loss_statement)
        for statement, order in function.statement_order.items():
            if order <= after:
                continue
            for loop in walk(statement):
                if type(loop) not in (cst.For, cst.CompFor):
                    continue
                iterated = loop.iter
                if not (type(iterated) is cst.Call and type(iterated.func) is cst.Attribute
                        and iterated.func.attr.value in ("parameters", "named_parameters")
                        and generator in context.network_keys(iterated.func.value)):
                    continue
                names = {node.value for node in walk(loop.target) if type(node) is cst.Name}
                scope = loop.body if type(loop) is cst.For else statement
                if any(type(node) is cst.Attribute and node.attr.value == "grad" and type(node.value) is cst.Name
                       and node.value.value in names for node in walk(scope)):
                    return True
        return False

    def _reused_after_step(self, function: FunctionFacts, call: cst.Call, window: Window, loss_statement,
                           generator_step: Optional[OptimizerStep]) -> Optional[GraphUse]:
        """A later backward through the same discriminator call, after the optimizers of the window
        changed (in place) the weights the retained graph saved."""
        last_step = max(step.order for step in window.steps) if window.steps else window.before
        use = later_backward_through(call, loss_statement, function, self.facts)
        if use is not None and function.order_of(use.statement) > last_step:
            return use
        return None

    def _generator_helping(self, context: "_Context", window: Window, reported: set) -> list[UndetachedFake]:
        """`d_loss.backward(); opt_d.step(); opt_g.step()`: the generator's optimizer steps on the
        gradients the discriminator's loss put into the generator. Reported only where this is the
        discriminator's only step and the generator has a separate step of its own (its optimizer,
        without the discriminator's, after a backward whose loss judges the generator's output):
        D's and G's losses are separate objectives there. A joint loss both minimise (InfoGAN's
        information loss, stepped by both after each network's own step) is not a GAN step."""
        function = context.function
        found = []
        for generator_step in window.steps:
            g_modules = context.optimizers.get(generator_step.optimizer, frozenset())
            for discriminator_step in window.steps:
                d_modules = context.optimizers.get(discriminator_step.optimizer, frozenset()) - g_modules
                if discriminator_step is generator_step or not d_modules or not g_modules - d_modules:
                    continue
                if any(discriminator_step.optimizer in other.optimizers for other in context.windows
                       if other is not window):
                    continue  # the discriminator has a step of its own: this window is a joint objective
                if not self._separate_generator_step(context, window, generator_step.optimizer, d_modules,
                                                     g_modules - d_modules):
                    continue
                for loss_statement, loss in window.losses:
                    if self._zeroed_between(function, function.order_of(loss_statement), generator_step.order):
                        continue
                    for call in _calls_feeding(loss, function, window.reach_after, function.order_of(loss_statement),
                                               facts=self.facts):
                        if call in reported or not self.facts.grad_enabled_at(function, function.call_statement.get(call)):
                            continue
                        fake = self._judged(context, window, call, d_modules, g_modules - d_modules, loss_statement,
                                            generator_step)
                        if fake is not None:
                            reported.add(call)
                            found.append(fake)
        return found

    def _separate_generator_step(self, context: "_Context", window: Window, generator_optimizer: str,
                                 d_modules: frozenset, g_modules: frozenset) -> bool:
        function = context.function
        for other in context.windows:
            if other is window or generator_optimizer not in other.optimizers \
                    or any(context.optimizers.get(o, frozenset()) & d_modules for o in other.optimizers):
                continue
            for loss_statement, loss in other.losses:
                # The generator's loss may be computed before the discriminator's step (one forward).
                for call in _calls_feeding(loss, function, -1, function.order_of(loss_statement), facts=self.facts):
                    for argument, _, _ in self._discriminator_inputs(call, function, d_modules, context):
                        if context.generator_call(argument, g_modules, frozenset(),
                                                  function.order_of(loss_statement), check_switches=False):
                            return True
        return False

    def _generator_step_on_these_gradients(self, context: "_Context", loss_statement,
                                           generator: str) -> Optional[OptimizerStep]:
        """The first step after this backward, in the function, of an optimizer that trains the generator,
        with nothing zeroed in between (`G.zero_grad()` only at the top of the iteration): the
        generator's update adds the discriminator's loss gradient to its own."""
        function = context.function
        start = function.order_of(loss_statement)
        # (Not one on the other branch of an `if` holding this backward: `if it % 3 == 0: loss_D.backward();
        # opt_D.step()` / `else: loss_G.backward(); opt_G.step()` runs one of them a pass.)
        later = sorted((step for window in context.windows for step in window.steps
                        if step.order > start and generator in context.optimizers.get(step.optimizer, frozenset())
                        and not on_exclusive_branches(function.node, loss_statement, step.statement)),
                       key=lambda step: step.order)
        if not later or self._zeroed_between(function, start, later[0].order, context, generator):
            return None
        # A function the analysis cannot read, handed the generator or its optimizer, may zero them
        # (`zero_grad_all(P, Q, D)` of a star import).
        handed = {generator, later[0].optimizer}
        for call, statement in function.call_statement.items():
            if start < function.order_of(statement) < later[0].order and \
                    self.facts.callee_summary(call, function) is None and \
                    self.facts.names.qualified_name(call.func) is None and \
                    any(self.facts.code_for(arg.value) in handed for arg in call.args):
                return None
        return later[0]

    def _zeroed_between(self, function: FunctionFacts, start: int, end: int, context: Optional["_Context"] = None,
                        generator: Optional[str] = None) -> bool:
        """Is anything zeroed (or could it be: a helper of the file that zeroes) between two statements?
        With a generator given, a `zero_grad()` of a network or optimizer trained apart from it
        (`netD.zero_grad()`, `optimizerD.zero_grad()`) leaves its gradients as they are."""
        for call, statement in function.call_statement.items():
            if not start < function.order_of(statement) < end:
                continue
            func = call.func
            if type(func) is cst.Attribute and func.attr.value in ("zero_grad", "zero_", "fill_"):
                if generator is not None and func.attr.value == "zero_grad" \
                        and _trained_apart_from(context, func.value, generator):
                    continue
                return True
            summary = self.facts.callee_summary(call, function)
            if summary is not None and summary.zeroes_gradients:
                return True
        for statement, order in function.statement_order.items():
            if start < order < end and writes_gradient(statement):
                return True
        return False

    # ------------------------------------------------------- discriminator calls

    def _discriminator_inputs(self, call: cst.Call, function: FunctionFacts, trained: frozenset,
                              context: "_Context") -> list:
        """(argument, discriminator key, what it was reached through) for each argument of `call`
        that reaches the input of a network `trained` holds: all arguments of a direct call
        (`netD(fake)`, `nets["D"](fake)`), those a wrapper hands to it (`D(fake)` with
        `def D(x): return netD(x)`)."""
        summaries = self.facts.summaries
        keys = context.network_keys(call.func) if _may_be_network(call, self.facts, function) else frozenset()
        hit = keys & trained
        if hit:
            via = _container_note(call.func, hit, self.facts) or context.raw_note(hit) or context.held_note(hit)
            return [(arg.value, _shown_key(call.func, hit), via) for arg in call.args if not arg.star]
        summary = self.facts.callee_summary(call, function)
        if summary is None:
            return []
        found = []
        for use in networks_at(summaries, summary, call, function):
            hit = use.aliases & trained
            if not hit or not use.returned:
                continue
            for index in sorted(use.inputs):
                argument = argument_for(call, summary, index)
                if argument is not None:
                    found.append((argument, sorted(hit)[0], _through_note(summary, use, self.facts)))
        return found

    # ------------------------------------------------------------ helper steps

    def _helper_calls(self, function: FunctionFacts) -> list:
        """Calls of same-file functions that run a discriminator step on one of their arguments."""
        found = []
        for call in function.call_statement:
            func = call.func
            if not (type(func) is cst.Name or (type(func) is cst.Attribute and type(func.value) is cst.Name
                                                    and func.value.value == "self")):
                continue
            resolved = self.facts.summaries.resolve_callee(func, function)
            if resolved is None or type(resolved[0]) is not cst.FunctionDef or resolved[0] is function.node:
                continue
            if resolved[0] not in self._stepping_functions():
                continue
            inner = self.facts.function_facts(resolved[0])
            summary = self.facts.summary(*resolved)
            if summary is None or not summary.backward or not summary.stepped:
                continue
            steps = self._steps_of_helper(inner, summary, self._optimizer_arguments(call, summary, function))
            if steps:
                found.append((call, summary, steps))
        return found

    def _stepping_functions(self) -> set:
        if self._stepping is None:
            self._stepping = set()
            for call in self.facts.method_calls("step"):
                site = self.facts.call_site(call)
                if site is not None:
                    self._stepping.add(site[0].node)
        return self._stepping

    def _optimizer_arguments(self, call: cst.Call, summary, function: FunctionFacts) -> dict:
        """`d_step(netD, optD, real, fake)` with `def d_step(D, opt_d, real, fake)`: the helper's optimizer
        arguments it steps, with the networks they train in the helper's names ({"opt_d": {"D"}}),
        from what this caller passes."""
        known = self.facts.training.optimizers_of(function)
        found = {}
        for index, name in enumerate(summary.parameters):
            if name not in summary.stepped:
                continue
            passed = argument_for(call, summary, index)
            modules = known.get(dotted_name(passed) or "") if passed is not None else None
            if not modules:
                continue
            trained = set()
            for other, parameter in enumerate(summary.parameters):
                given = argument_for(call, summary, other)
                if given is not None and other != index \
                        and self.facts.summaries.network_keys(given, function) & modules:
                    trained.add(parameter)
            trained |= {key for key in modules if key.split(".")[0].split("[")[0] not in summary.parameters}
            if trained:
                found[name] = frozenset(trained)
        return found

    def _steps_of_helper(self, helper: FunctionFacts, summary, arguments: dict) -> list[_HelperStep]:
        cache_key = (helper.node, tuple(sorted((key, tuple(sorted(value))) for key, value in arguments.items())))
        found = self._helper_steps.get(cache_key)
        if found is not None:
            return found
        found = self._helper_steps[cache_key] = []
        training = self.facts.training
        optimizers = {**training.optimizers_of(helper), **arguments}
        windows = windows_of(helper, training, optimizers) if optimizers else []
        index_of = {binding: summary.parameters.index(binding.name) for binding in helper.parameters
                    if binding.name in summary.parameters}
        context = _Context(self.facts, helper, optimizers, windows) if windows else None
        for window in windows:
            if len(window.optimizers) != 1:
                continue
            judged = []  # (loss statement, call, argument, discriminator key, via) in the step
            for loss_statement, loss in window.losses:
                for call in _calls_feeding(loss, helper, window.after, helper.order_of(loss_statement),
                                           facts=self.facts):
                    if self.facts.grad_enabled_at(helper, helper.call_statement.get(call)):
                        judged.extend((loss_statement, call, argument, key, via) for argument, key, via
                                      in self._discriminator_inputs(call, helper, window.trained, context))
            for loss_statement, call, argument, discriminator, via in judged:
                backward = next(b for b in backward_calls(helper, self.facts) if b.statement is loss_statement)
                graph = loss_slice(argument, helper.call_statement.get(call), helper, self.facts,
                                   through_summaries=True)
                for binding in graph.bindings:
                    if binding in index_of:
                        # The discriminator also judges something this argument did not make (`netD(real)`).
                        other = any(other_call is not call and key == discriminator
                                    and binding not in flowing_bindings(other_argument, helper)
                                    for _, other_call, other_argument, key, _ in judged)
                        found.append(_HelperStep(index_of[binding], window, window.optimizers[0],
                                                 loss_statement, retains_graph(backward.call),
                                                 discriminator, via, _read_only_as(binding, argument, helper), call,
                                                 other))
        return found

    def _through_helper(self, context: "_Context", call: cst.Call, summary, step: _HelperStep):
        function = context.function
        argument = argument_for(call, summary, step.parameter)
        if argument is None:
            return None
        statement = function.call_statement.get(call)
        # `def d_step(D, opt_d, real, fake)`: the networks the helper's step trains, as the caller names them.
        trained = frozenset().union(*(self._caller_keys(key, call, summary, function) for key in step.window.trained))
        generators = context.generators_for(trained)
        source = context.generator_call(argument, generators, trained, function.order_of(statement))
        if source is None:
            return None
        generator_call, generator, generator_via = source
        discriminator = sorted(self._caller_keys(step.discriminator, call, summary, function))[0]
        if not step.judges_other and not _named_as_a_pair(discriminator, generator):
            return None  # a network fed only the generator's output cooperates with it
        later = later_backward_through(generator_call, statement, function, self.facts)
        return UndetachedFake(function, call, argument, generator_call, statement, step.backward_statement,
                              step.window.step_statement, step.optimizer, discriminator, generator,
                              step.discriminator_via, generator_via, summary.label, step.safe, step.retains, later,
                              unsafe_reason=None if step.safe else (
                                  f"the {summary.label} (line {{line}}) also reads that argument otherwise",
                                  summary.node),
                              inner_call=step.call, helper_node=summary.node)


    def _caller_keys(self, key: str, call: cst.Call, summary, function: FunctionFacts) -> frozenset:
        """A network key of a helper, in the caller's scope: the argument passed for a parameter."""
        root = key.split(".")[0].split("[")[0]
        if root in summary.parameters:
            passed = argument_for(call, summary, summary.parameters.index(root))
            if passed is None:
                return frozenset()
            if root == key:
                return self.facts.summaries.network_keys(passed, function) or frozenset({key})
            return frozenset()  # `D.head` of an argument: not followed
        return frozenset({key})


def _trained_apart_from(context: "_Context", receiver: cst.BaseExpression, generator: str) -> bool:
    """Is `receiver` an optimizer that does not train the generator, or a network only such optimizers
    train (`optimizerD`, `netD`)? Its `zero_grad()` leaves the generator's gradients alone."""
    key = context.facts.code_for(receiver)
    with_generator = {optimizer for optimizer, trained in context.optimizers.items() if generator in trained}
    if key in context.optimizers:
        return key not in with_generator
    apart = frozenset().union(*(trained for optimizer, trained in context.optimizers.items()
                                if optimizer not in with_generator))
    along = frozenset().union(*(context.optimizers[optimizer] for optimizer in with_generator))
    return key in apart and key not in along and key != generator


class _Context:
    """What one function's steps are judged against: its optimizers, windows, grad switches."""

    def __init__(self, facts, function: FunctionFacts, optimizers: dict, windows: list,
                 caller: Optional[tuple] = None) -> None:
        self.facts = facts
        self.function = function
        self.optimizers = optimizers
        self.windows = windows
        # For a function a step hands its backward to: (the caller's _Context, the call there).
        self.caller = caller
        self.switches = facts.training.grad_switches(function)
        self.structural = facts.training.argument_roles(function).generators
        self.detached_in_place = detached_in_place(function)
        self.all_trained = frozenset().union(*optimizers.values())
        self._boundaries: Optional[list] = None
        self._frozen_by_callers: dict = {}  # argument key -> every caller hands it over frozen

    def inner(self, call: cst.Call, function: FunctionFacts) -> "_Context":
        """The context of a function this one calls (to hand it a backward), seen from here."""
        return _Context(self.facts, function, self.optimizers, [], caller=(self, call))

    def network_keys(self, func: cst.BaseExpression) -> frozenset:
        """The keys naming the network `func` is, here; a network argument of a function a step hands
        its backward to is named by what the caller passes (`backward_D_basic(self.netD_A, ...)`)."""
        facts, function = self.facts, self.function
        keys = facts.summaries.network_keys(func, function)
        if self.caller is not None and type(func) is cst.Name:
            passed = self.passed_for(func)
            if passed is not None:
                keys |= self.caller[0].network_keys(passed)
        return keys

    def passed_for(self, name: cst.Name) -> Optional[cst.BaseExpression]:
        """What the caller passes for a parameter read as `name` (when every binding reaching it is one)."""
        if self.caller is None:
            return None
        bindings = self.function.bindings_at(name)
        if not bindings or any(binding.kind != "param" for binding in bindings):
            return None
        outer, call = self.caller
        summary = self.facts.callee_summary(call, outer.function)
        if summary is None or name.value not in summary.parameters:
            return None
        return argument_for(call, summary, summary.parameters.index(name.value))

    def attribute_sources(self, attribute: str, order: int) -> list:
        """Where `self.<attribute>`, read before statement order `order`, was last set, as
        (value, the _Context it is read in, the order there, a note for messages, grad switches'
        context and order: (context, from, to)): in this function; else in a method of the class
        called here before (`self.forward()` setting `self.fake_B`); else, for a function a step
        hands its backward to, where the caller last set it the same way. Empty when not in sight."""
        facts, function = self.facts, self.function
        own = _last_self_assignment(attribute, order, function)
        own_order = function.order_of(own) if own is not None else -1
        setup = None
        owner = facts.classes.get(function.class_name or "")
        if owner is not None:
            for call, statement in function.call_statement.items():
                at = function.order_of(statement)
                if not own_order < at < order or not _is_self_call(call):
                    continue
                if setup is not None and at <= setup[0]:
                    continue
                resolved = facts.summaries.resolve_callee(call.func, function)
                if resolved is None or type(resolved[0]) is not cst.FunctionDef or resolved[0] is function.node:
                    continue
                method = facts.function_facts(resolved[0])
                assigned = _last_self_assignment(attribute, len(method.statement_order) + 1, method)
                if assigned is not None and facts.grad_enabled_at(function, statement):
                    setup = (at, call, method, assigned)
        if setup is not None:
            at, call, method, assigned = setup
            context = _Context(facts, method, self.optimizers, [])
            note = f"kept on `self.{attribute}` by `{_code(facts, call)}` (line {facts.line_of(call)})"
            return [(assigned.value, context, method.order_of(assigned), note, (self, at, order))]
        if own is not None:
            note = None if self.caller is None else f"kept on `self.{attribute}` at line {facts.line_of(own)}"
            return [(own.value, self, own_order, note, (self, own_order, order))]
        if self.caller is not None:
            outer, call = self.caller
            statement = outer.function.call_statement.get(call)
            if statement is not None:
                return outer.attribute_sources(attribute, outer.function.order_of(statement))
        return []

    def boundaries(self) -> list:
        """What zeroes gradients, or steps an optimizer the file does not show, in the function."""
        if self._boundaries is None:
            self._boundaries = _gradient_boundaries(self.function, self.facts.training, self.optimizers)
        return self._boundaries

    def raw_note(self, keys: frozenset) -> Optional[str]:
        """"`G` computes its output from tensors that `G_solver` trains" for a function of raw tensors."""
        for optimizer, networks in self.facts.training.tensor_networks().items():
            hit = sorted(keys & networks)
            if hit:
                return f"`{hit[0]}` computes its output from tensors that `{optimizer}` trains"
        return None

    def held_note(self, keys: frozenset) -> Optional[str]:
        """"each dict of `discriminators` holds the network under "model" and its optimizer under
        "solver"" for a network held in dicts beside its optimizer."""
        notes = self.facts.training.held_notes
        for optimizer, networks in self.optimizers.items():
            if optimizer in notes and networks & keys:
                return notes[optimizer]
        return None

    def generators_for(self, trained: frozenset) -> frozenset:
        """What other optimizers train, never what this step trains itself."""
        return (self.all_trained | self.structural) - trained

    def generator_call(self, expr, generators: frozenset, trained: frozenset, backward_order: int,
                       check_switches: bool = True, target: Optional[cst.Call] = None,
                       following: frozenset = frozenset()):
        """(the call, the generator's key, what it was reached through) for the generator call whose
        graph reaches `expr`; None if detached, made under no-grad, or switched off. `following`: the
        attributes whose sources are being followed on the way here, as (function, attribute, order),
        so that one set from itself (`self.beta = min(1.0, self.beta + 4e-6)`) is followed once."""
        facts, function = self.facts, self.function
        seen = set()
        callees: set = set()  # `self.netG` in `self.netG(z)`: a network, not a value to follow
        attributes: set = set()
        pending = [expr]
        while pending:
            current = pending.pop()
            stack = [current]
            while stack:
                node = stack.pop()
                if type(node) is cst.Call and (cuts_graph(node) or facts.placement.surely_integral(node, function)):
                    # `fake.detach()`, `torch.randn_like(fake)`, `seg.argmax(1)` (integers): none of the
                    # generator's graph
                    continue
                if type(node) is cst.Attribute and node.attr.value in NO_GRAPH_ATTRIBUTES:
                    continue  # `fake.data`; `recon.shape[-2:]` in `x.reshape(n, *recon.shape[-2:])` carries no graph
                if type(node) is cst.Lambda:
                    continue
                if type(node) in (cst.ListComp, cst.GeneratorExp, cst.SetComp) and \
                        (type(node.elt) is cst.Call and cuts_graph(node.elt) or goes_through_detach(node.elt)):
                    continue  # `[fi.detach() for fi in fakes]`: every element leaves the graph
                if wrapped_in_variable(node, facts.names):
                    continue  # `Variable(G(z))`: since 0.4, a new tensor detached from the graph (a leaf)
                if type(node) is cst.Call:
                    callees.add(id(node.func))
                    if trained and _may_be_network(node, facts, function) \
                            and self.network_keys(node.func) & trained:
                        continue  # `q(D(G(z)))`: the inner discriminator call is judged on its own
                    found = self._generator_of(node, generators, trained, backward_order, check_switches)
                    if found is not None and (target is None or found[0] is target):
                        return found
                    if type(node.func) is cst.Attribute and type(node.func.value) in (cst.Name, cst.Attribute) \
                            and facts.instance_of_imported_class(node.func.value, function):
                        continue  # `self.fake_pool.query(fake)` of another module's class: it may detach
                    if type(node.func) is cst.Name or _is_self_call(node):
                        summary = facts.callee_summary(node, function)
                        if summary is not None:
                            # A function of the file: only the arguments whose graph reaches what it returns.
                            stack.extend(argument for index in summary.returned_arguments
                                         if (argument := argument_for(node, summary, index)) is not None)
                            continue
                        if type(node.func) is cst.Name:
                            stack.extend(arg.value for arg in node.args)
                            continue
                    stack.extend(child_nodes(node))
                    continue
                if type(node) is cst.Name:
                    passed = self.passed_for(node) if node not in seen else None
                    if passed is not None:
                        # An argument of a function a step hands its backward to: what the caller passed.
                        seen.add(node)
                        outer, call = self.caller
                        found = outer.generator_call(passed, generators, trained,
                                                     outer.function.order_of(outer.function.call_statement[call]),
                                                     check_switches, target, following)
                        if found is not None:
                            return found
                        continue
                    for binding in function.bindings_at(node):
                        if binding in seen or binding.value is None:
                            continue
                        seen.add(binding)
                        made = function.order_of(binding.statement)
                        if any(name == node.value and made < order < backward_order
                               for name, order, _ in self.detached_in_place):
                            continue
                        if facts.grad_enabled_at(function, binding.statement):
                            pending.append(binding.value)
                    continue
                if type(node) is cst.Attribute and type(node.value) is cst.Name \
                        and node.value.value == "self" and id(node) not in callees:
                    if node.attr.value in attributes:
                        continue
                    attributes.add(node.attr.value)
                    found = self._through_attribute(node.attr.value, generators, trained, backward_order,
                                                    check_switches, target, following)
                    if found is not None:
                        return found
                    continue
                stack.extend(child_nodes(node))
        return None

    def _through_attribute(self, attribute: str, generators: frozenset, trained: frozenset, backward_order: int,
                           check_switches: bool, target: Optional[cst.Call] = None,
                           following: frozenset = frozenset()):
        """The generator call behind `self.<attribute>`, where attribute_sources sees it set."""
        step = (id(self.function.node), attribute, backward_order)
        if step in following:
            return None  # set from itself: its earlier sources were followed already
        for value, context, order, note, (switches, made, used) in self.attribute_sources(attribute, backward_order):
            found = context.generator_call(value, generators, trained, order + 1, check_switches, target,
                                           following | {step})
            if found is None:
                continue
            call, shown, via = found
            if check_switches and context is not switches \
                    and _switched_off(shown, switches.switches, made, used):
                continue
            if note is not None:
                via = f"{note}; {via}" if via else note
            return call, shown, via
        return None

    def _generator_of(self, call: cst.Call, generators: frozenset, trained: frozenset, backward_order: int,
                      check_switches: bool):
        facts, function = self.facts, self.function
        statement = function.call_statement.get(call)
        if statement is None or not facts.grad_enabled_at(function, statement):
            return None
        if check_switches and trained and all(switched_off_at(key, self.switches, backward_order) for key in trained):
            # `self.d.requires_grad_(False)` before the backward of the step whose optimizer holds `self.d`
            # (optimizers built over each other's networks): the step trains nothing of it, and is no
            # discriminator's.
            return None
        summaries = facts.summaries
        keys = self.network_keys(call.func) if _may_be_network(call, facts, function) else frozenset()
        summary = facts.callee_summary(call, function) if type(call.func) is cst.Name or _is_self_call(call) \
            else None
        if summary is not None and not keys & generators and not summary.networks_returned() \
                and not summary.free_tensors_requiring_grad:
            # A function of its arguments and of plain tensors (`def G(z): return z @ table`): no network,
            # whatever its name.
            keys = frozenset()
        candidates = []
        if keys:
            candidates.append((keys, _shown_key(call.func, keys & generators or keys),
                               _container_note(call.func, keys & generators, facts)
                               or self.raw_note(keys & generators)))
        if not keys & generators:
            if summary is not None:
                for use in networks_at(summaries, summary, call, function):
                    if use.returned:
                        candidates.append((use.aliases, sorted(use.aliases & generators or use.aliases)[0],
                                           _through_note(summary, use, facts)))
        if type(call.func) is cst.Attribute and not keys & generators:
            own = self._own_output(call)  # `generator.generate_batch(n)`, not a network of that name
            if own is not None:
                candidates.insert(0, own)
        if candidates and trained and any(self.network_keys(arg.value) & trained for arg in call.args):
            # `delta = attack(model, X, y)`: handed the very network the step trains, it computes an
            # input against it (adversarial training, logit pairing); no generator is trained here.
            return None
        if candidates and trained and self._fed_by_trained(call, trained):
            # `output = decoder(encoder(x))` in the encoder's step (IntroVAE): the gradient that trains
            # the encoder runs through the decoder to reach it; detaching would cut it.
            return None
        for keys, shown, via in candidates:
            if not _is_generator(keys, generators, trained):
                continue
            if check_switches and any(_switched_off(key, self.switches, function.order_of(statement), backward_order)
                                      or self._frozen_by_every_caller(key) for key in keys):
                continue
            return call, shown, via
        return None

    def _own_output(self, call: cst.Call):
        """`generator.generate_batch(n)`: a method of a network, defined by a class of the file, that
        returns the network's own output (`return self(z)`, `self.forward(z)`, `self.net(z)`): that
        network's output, as (keys, shown, note). The class is the one the receiver is built from, or else the only class of the file
        with a method of that name."""
        receiver = call.func.value
        keys = self.network_keys(receiver)
        found = self.facts.method_called(call, self.function, by_name=True) if keys else None
        if found is None:
            return None
        owner, method = found
        summary = self.facts.summary(method)
        if summary is None or not any(use.returned and (use.key == "self" or use.key.startswith("self."))
                                      for use in summary.networks):
            return None  # noise, a fresh tensor, a detached output: nothing of the network's graph
        note = f"through the method `{owner.name}.{method.name.value}` at line {self.facts.line_of(method)}, " \
               f"which returns the network's own output"
        return keys, _shown_key(receiver, keys), note

    def _fed_by_trained(self, call: cst.Call, trained: frozenset) -> bool:
        """Does an argument of the call carry the output of a network the step trains (made earlier in
        this function, through names and the calls between)? A new tensor shaped like one
        (`torch.randn_like(z)`, `z.size(0)`) or a detached one carries nothing."""
        facts, function = self.facts, self.function
        pending = [(arg.value, function.order_of(function.call_statement[call])) for arg in call.args]
        seen: set = set()
        while pending:
            expr, before = pending.pop()
            stack = [expr]
            while stack:
                node = stack.pop()
                if type(node) is cst.Call:
                    if _may_be_network(node, facts, function) and self.network_keys(node.func) & trained:
                        return True
                    method = node.func.attr.value if type(node.func) is cst.Attribute else ""
                    if (facts.names.qualified_name(node.func) or "").rsplit(".", 1)[-1] in LEAF_FACTORIES \
                            or method in DETACHING_METHODS | METADATA_METHODS:
                        continue
                elif type(node) is cst.Attribute and node.attr.value in METADATA_ATTRIBUTES:
                    continue
                elif type(node) is cst.Name:
                    for binding in function.bindings_at(node):
                        order = function.order_of(binding.statement)
                        if binding not in seen and binding.value is not None and order < before:
                            seen.add(binding)
                            pending.append((binding.value, order))
                    continue
                stack.extend(child_nodes(node))
        return False

    def _frozen_by_every_caller(self, key: str) -> bool:
        """Is `key` an argument that every call of the function in the file passes with its parameters
        switched off (`for p in teacher.parameters(): p.requires_grad = False` in `main()`, then
        `train(model, teacher, ...)`)? False when a call is out of sight. Asked once per key."""
        if key not in self._frozen_by_callers:
            self._frozen_by_callers[key] = self._read_frozen_by_every_caller(key)
        return self._frozen_by_callers[key]

    def _read_frozen_by_every_caller(self, key: str) -> bool:
        function, facts = self.function, self.facts
        if type(function.node) is not cst.FunctionDef:
            return False
        param = next((param for param in function.node.params.params if param.name.value == key), None)
        sites = facts.call_sites_of(function)
        if param is None or not sites:
            return False
        for caller, call, statement in sites:
            passed = passed_for_parameter(call, function.node, param)
            if passed is None or passed is PASSED_UNKNOWN or not _switched_off(
                    module_key(passed), facts.training.grad_switches(caller), caller.order_of(statement),
                    caller.order_of(statement)):
                return False
        return True


# ------------------------------------------------------------------ windows


def windows_of(function: FunctionFacts, training, optimizers: dict) -> list[Window]:
    """Steps that follow the same backward form one window: `loss.backward(); opt_a.step(); opt_b.step()`.

    A window's losses are the backwards since the previous step whose gradients its optimizers
    use: not one followed by a zeroing of those optimizers' gradients (`g_loss.backward();
    opt_d.zero_grad(); d_loss.backward(); opt_d.step()`: `g_loss` is not the discriminator's), nor
    one followed by the step of an optimizer the analysis does not know (`opt_g` built by a helper
    of another module): that step is the one the loss was for."""
    windows: list[Window] = []
    steps = training.steps(function, optimizers)
    if not steps:
        return windows
    backward_orders = [(function.order_of(b.statement), b) for b in backward_calls(function, training.facts)]
    direct = {order for order, _ in backward_orders}
    # `self.backward(d_loss)` whose method backpropagates its argument is a backward of that loss already.
    delegated = [(function.order_of(statement), (statement, call))
                 for statement, call in delegated_backwards(function, training.facts)
                 if function.order_of(statement) not in direct]
    backward_orders += delegated
    boundaries = None
    previous = -1
    earlier_groups: list[tuple] = []  # (last order, first step statement) of each group so far
    index = 0
    while index < len(steps):
        group = [steps[index]]
        while index + 1 < len(steps) and not any(group[-1].order < order < steps[index + 1].order
                                                  for order, _ in backward_orders):
            index += 1
            group.append(steps[index])
        start = previous
        if any(previous < order < group[0].order for order, _ in backward_orders):
            if boundaries is None:
                boundaries = _gradient_boundaries(function, training, optimizers)
            trained = frozenset().union(*(optimizers[step.optimizer] for step in group))
            handing = {order for order, _ in delegated}  # a method that zeroes, then backpropagates
            for order, modules in boundaries:
                if start < order < group[0].order and _zeroes(modules, trained) and order not in handing:
                    start = order
        losses = tuple((b.statement, b.loss) for order, b in backward_orders
                       if start < order < group[0].order and not isinstance(b, tuple))
        handed = tuple(b for order, b in delegated if start < order < group[0].order)
        if losses or handed:
            trained = frozenset().union(*(optimizers[step.optimizer] for step in group))
            reach_after = _last_sure_step(function, earlier_groups, group[0].statement)
            windows.append(Window(tuple(step.optimizer for step in group), trained, previous, group[0].order,
                                  losses, group[0].statement, tuple(group), handed, min(reach_after, previous)))
        previous = group[-1].order
        earlier_groups.append((group[-1].order, group[0].statement))
        index += 1
    return windows


def _last_sure_step(function: FunctionFacts, earlier_groups: list, statement: cst.CSTNode) -> int:
    """The order of the last earlier step that runs whenever `statement` does: not under an `if`
    (or a loop, which may run zero times) that leaves `statement` out. -1 when none does."""
    around = _enclosing_blocks(function.node, statement)
    for order, step_statement in reversed(earlier_groups):
        if _enclosing_blocks(function.node, step_statement) <= around:
            return order
    return -1


_CONDITIONAL_BLOCKS = (cst.If, cst.While, cst.For)


def _enclosing_blocks(root: cst.CSTNode, target: cst.CSTNode) -> frozenset:
    """The ids of the `if`s and loops around `target` inside `root`."""
    stack: list[tuple[cst.CSTNode, tuple]] = [(root, ())]
    while stack:
        node, blocks = stack.pop()
        if node is target:
            return frozenset(blocks)
        if type(node) in _CONDITIONAL_BLOCKS and node is not root:
            blocks = blocks + (id(node),)
        stack.extend((child, blocks) for child in child_nodes(node))
    return frozenset()


def delegated_backwards(function: FunctionFacts, facts, depth: int = 0) -> list:
    """(statement, call) for the calls of the file's functions and methods that run a backward,
    themselves or through their own such calls, without stepping an optimizer (pix2pix's
    `self.backward_D()` called between `zero_grad()` and `step()`)."""
    found = []
    for call, statement in function.call_statement.items():
        inner = _delegate(call, function, facts, depth)
        if inner is not None:
            found.append((statement, call))
    return found


def _delegate(call: cst.Call, function: FunctionFacts, facts, depth: int = 0) -> Optional[FunctionFacts]:
    """The function a call hands a backward to (see delegated_backwards), or None."""
    func = call.func
    if depth > 2 or not (type(func) is cst.Name or _is_self_call(call)):
        return None
    if facts.names.qualified_name(func) is not None:
        return None
    resolved = facts.summaries.resolve_callee(func, function)
    if resolved is None or type(resolved[0]) is not cst.FunctionDef or resolved[0] is function.node:
        return None
    summary = facts.summary(*resolved)
    if summary is None or summary.stepped:
        return None
    inner = facts.function_facts(resolved[0])
    if summary.backward or any(_delegate(other, inner, facts, depth + 1) is not None for other in inner.call_statement):
        return inner
    return None


def _gradient_boundaries(function: FunctionFacts, training, optimizers: dict) -> list:
    """(statement order, the modules whose gradients it discards, or None for any) for what ends the
    stretch of backwards an optimizer step uses: `opt.zero_grad()`, `netD.zero_grad()`, a helper of
    the file that zeroes gradients (`reset_grad()`: any), `p.grad = None` (any), and the step of an
    optimizer the file does not show being built (`opt_g.step()` with `opt_g` from elsewhere: any)."""
    facts = training.facts
    found = []
    for call, statement in function.call_statement.items():
        func = call.func
        order = function.order_of(statement)
        if type(func) is cst.Attribute and func.attr.value == "zero_grad":
            key = module_key(func.value)
            if key in optimizers:
                found.append((order, optimizers[key]))
            elif key is None or key == "self":
                found.append((order, None))
            else:
                found.append((order, frozenset({key})))
        elif type(func) is cst.Attribute and func.attr.value in ("zero_", "detach_") and reads_gradient(func.value):
            found.append((order, None))  # `p.grad.zero_()`, `p.grad.data.zero_()`
        elif type(func) is cst.Attribute and func.attr.value == "step":
            key = module_key(call.args[0].value) if call.args else module_key(func.value)
            if key is not None and key not in optimizers and module_key(func.value) not in optimizers \
                    and named_as_optimizer(key):
                found.append((order, None))
        elif type(func) is cst.Name or (type(func) is cst.Attribute and type(func.value) is cst.Name
                                             and func.value.value == "self"):
            if facts.names.qualified_name(func) is None and facts.summaries.resolve_callee(func, function):
                summary = facts.callee_summary(call, function)
                if summary is not None and summary.zeroes_gradients:
                    found.append((order, None))
    for statement, order in function.statement_order.items():
        if type(statement) is cst.Assign and writes_gradient(statement):
            found.append((order, None))
    return found


def _named_as_a_pair(discriminator: str, generator: str) -> bool:
    """`netD` and `netG`, `disc` and `gen`, `critic` and `generator`: names that say so, when the
    step does not show the discriminator judging anything but the generator's output."""
    return network_role(_last_part(discriminator)) == "discriminator" \
        and network_role(_last_part(generator)) == "generator"


def _last_part(key: str) -> str:
    """`self.netD` -> `netD`; `nets["D"]` -> `D`."""
    if key.endswith('"]'):
        return key[key.rindex('["') + 2:-2]
    return key.rpartition(".")[2]


def _last_self_assignment(attribute: str, order: int, function: FunctionFacts) -> Optional[cst.Assign]:
    """The last `self.<attribute> = value` of the function before statement order `order`."""
    found, at = None, -1
    for statement, position in function.statement_order.items():
        if position >= order or position <= at or type(statement) is not cst.Assign:
            continue
        if any(type(t.target) is cst.Attribute and t.target.attr.value == attribute
               and type(t.target.value) is cst.Name and t.target.value.value == "self" for t in statement.targets):
            found, at = statement, position
    return found


def _self_assignments(attribute: str, function: FunctionFacts) -> list:
    """(value, statement order) of every `self.<attribute> = value` in the function."""
    return [(statement.value, position) for statement, position in function.statement_order.items()
            if type(statement) is cst.Assign and any(
                type(t.target) is cst.Attribute and t.target.attr.value == attribute
                and type(t.target.value) is cst.Name and t.target.value.value == "self" for t in statement.targets)]


def _code(facts, node, limit: int = 50) -> str:
    text = " ".join(facts.code_for(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _detached_name(argument) -> Optional[cst.Name]:
    """`fake` for `fake.detach()`, `fake.data`, `fake.detach().view(...)`."""
    node = argument
    while True:
        if type(node) is cst.Call and type(node.func) is cst.Attribute:
            if node.func.attr.value in DETACHING_METHODS:
                return node.func.value if type(node.func.value) is cst.Name else None
            node = node.func.value
        elif type(node) is cst.Attribute:
            if node.attr.value == "data":
                return node.value if type(node.value) is cst.Name else None
            node = node.value
        else:
            return None


def _zeroes(modules: Optional[frozenset], trained: frozenset) -> bool:
    """Does zeroing `modules` (None: any) zero gradients of one of `trained`? `self.model.zero_grad()`
    zeroes `self.model.D`'s."""
    if modules is None:
        return True
    return any(key == module or key.startswith(module + ".") for module in modules for key in trained)


def _second_backward(generator_call: cst.Call, loss_statement, function: FunctionFacts, facts) -> Optional[GraphUse]:
    """The backward that runs through the generator's output again after the discriminator's
    backward freed it: the same backward at the next iteration of a loop the generator's call is not
    in (`fake = G(z)` then `for D in discriminators: ... d_loss.backward()`), else the first later
    backward through it."""
    loops = function.loops_of.get(loss_statement, ())
    made_in = function.loops_of.get(function.call_statement.get(generator_call), ())
    if loops and loops[-1] not in made_in:
        use = next((use for use in graph_uses(function, facts) if use.statement is loss_statement), None)
        if use is not None:
            return use
    return later_backward_through(generator_call, loss_statement, function, facts)


def _earlier_backward(generator_call: cst.Call, loss_statement, function: FunctionFacts, facts) -> Optional[GraphUse]:
    """A backward between the generator's call and the discriminator's, without `retain_graph=True`,
    whose loss went through the generator's output: it freed that graph (the generator step first,
    reusing its fake batch for the discriminator, as in CycleGAN)."""
    made = function.call_statement.get(generator_call)
    if made is None:
        return None
    start, end = function.order_of(made), function.order_of(loss_statement)
    for use in graph_uses(function, facts):
        if start < function.order_of(use.statement) < end and not use.retains \
                and generator_call in loss_slice(use.loss, use.statement, function, facts,
                                                 through_summaries=True).calls:
            return use
    return None


def _stepper(window: Window, trained: frozenset, optimizers: dict) -> OptimizerStep:
    """The step of the window whose optimizer trains `trained` (the discriminator's)."""
    return next((step for step in window.steps if optimizers.get(step.optimizer, frozenset()) & trained),
                window.steps[0])


def _calls_feeding(expr, function: FunctionFacts, after: int, at: Optional[int] = None,
                   facts=None) -> list[cst.Call]:
    """Every call whose result flows into `expr`, read at statement order `at`, through assignments
    made after order `after` and before the statement that reads them: a value a loop carries
    from later in its body is the previous iteration's, made outside this stretch (BEGAN's
    `k = ... g_loss.item()` feeding the next discriminator loss is no discriminator input). Numbers
    taken from tensors (`.item()`, `float(...)`) carry nothing, nor the arguments of a function of
    the file whose graph does not reach what it returns (a penalty's `torch.autograd.grad` of
    them without `create_graph=True`)."""
    calls = []
    seen = set()
    pending = [(expr, at)]

    def returned_only(node) -> Optional[list]:
        if facts is None or type(node) is not cst.Call or not (type(node.func) is cst.Name or _is_self_call(node)):
            return None
        summary = facts.callee_summary(node, function)
        if summary is None or not summary.accepts(node):
            return None
        return [node.func, *(argument for index in summary.returned_arguments
                             if (argument := argument_for(node, summary, index)) is not None)]

    while pending:
        current, read_at = pending.pop()
        for node in _walk(current, skip_numbers=True, children=returned_only):
            if type(node) is cst.Call:
                calls.append(node)
            if type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == "self" \
                    and node.attr.value not in seen:
                # `self.loss_D = ...; self.loss_D.backward()`: set in the function, followed as a name is.
                seen.add(node.attr.value)
                pending.extend((value, order) for value, order in _self_assignments(node.attr.value, function)
                               if after < order and (read_at is None or order < read_at))
            if type(node) is cst.Name:
                for binding in function.bindings_at(node):
                    if binding in seen or binding.value is None:
                        continue
                    order = function.order_of(binding.statement)
                    if order <= after or (read_at is not None and order >= read_at):
                        continue
                    seen.add(binding)
                    pending.append((binding.value, order))
    return calls


# torch functions that sample (a generator's latent input), and tensor methods that fill with samples.
SAMPLING_FUNCTIONS = frozenset({"randn", "rand", "randint", "randn_like", "rand_like", "randint_like", "normal",
                                "multinomial", "bernoulli", "randperm"})
SAMPLING_METHODS = frozenset({"normal_", "uniform_", "bernoulli_", "random_", "exponential_"})
# What keeps a value sampled: joins, moves, reshapes, conversions (their other arguments are sizes).
NOISE_PRESERVING = frozenset({"cat", "stack", "concat", "to", "cuda", "cpu", "view", "reshape", "unsqueeze", "squeeze",
                              "float", "double", "half", "type", "expand", "repeat", "flatten", "one_hot",
                              "Variable", "requires_grad_"})


def _sampled_noise(expr, function: FunctionFacts, facts, depth: int = 0) -> bool:
    """Is the value drawn at random (`torch.randn(n, d)`, `torch.zeros(n, d).normal_()`, a name bound
    to one, joined or moved: `torch.cat([z, c], 1).to(device)`)? A generator's input; never the data
    a discriminator judges."""
    if depth > 6:
        return False
    if isinstance(expr, cst.Name):
        bindings = function.bindings_at(expr)
        return bool(bindings) and all(binding.kind in ("assign", "walrus") and binding.value is not None
                                      and _sampled_noise(binding.value, function, facts, depth + 1)
                                      for binding in bindings)
    if isinstance(expr, (cst.List, cst.Tuple)):
        return bool(expr.elements) and all(_sampled_noise(element.value, function, facts, depth + 1)
                                           for element in expr.elements)
    if not isinstance(expr, cst.Call):
        return False
    qualified = facts.names.qualified_name(expr.func) or ""
    name = qualified.rpartition(".")[2] if qualified else (
        expr.func.attr.value if isinstance(expr.func, cst.Attribute) else dotted_name(expr.func) or "")
    if qualified.startswith("torch") and name in SAMPLING_FUNCTIONS:
        return True
    if not qualified and isinstance(expr.func, cst.Attribute) and name in SAMPLING_METHODS:
        return True  # `torch.empty(n, d).normal_()`, `z.data.normal_(0, 1)`
    if name not in NOISE_PRESERVING:
        return False
    tensors = [arg.value for arg in expr.args if arg.keyword is None
               and not isinstance(arg.value, (cst.Integer, cst.Float, cst.UnaryOperation))]
    if not qualified and isinstance(expr.func, cst.Attribute):
        tensors = [expr.func.value]  # `z.to(device)`, `z.view(n, d, 1, 1)`: the receiver
    return bool(tensors) and all(_sampled_noise(tensor, function, facts, depth + 1) for tensor in tensors)


def _is_generator(keys: frozenset, generators: frozenset, trained: frozenset) -> bool:
    if not keys or keys & trained:
        return False
    if generators:
        return bool(keys & generators)
    return any(key.rpartition(".")[2].lower() in GENERATOR_NAMES for key in keys)


def _switched_off(module: Optional[str], switches: list[GradSwitch], call_order: int, backward_order: int) -> bool:
    """Were the generator's parameters off when it ran, or switched off before the backward (its own, or
    those of a module that holds it: `frozen_params(G)` for a generator `G.decoder`)?"""
    if switched_off_at(module, switches, call_order):
        return True
    return any(s.covers(module) and not s.enabled and call_order < s.order < backward_order for s in switches)


def _fix_breaks(call: cst.Call, argument, function: FunctionFacts, facts, window: Window) -> Optional[tuple]:
    """Why detaching would be wrong, as (words, the node whose line completes them), or None: the
    discriminator's output also feeds a loss backpropagated outside the discriminator's step (the
    generator's: it would stop learning), or the argument is differentiated with autograd.grad."""
    own = {statement for statement, _ in window.losses}
    for backward in backward_calls(function, facts):
        if backward.statement not in own and call in _calls_feeding(backward.loss, function, -1,
                                                                    function.order_of(backward.statement), facts=facts):
            return ("the discriminator's output also feeds the loss backpropagated at line {line}, outside its "
                    "step, where the detach would cut the gradient that reaches the generator", backward.statement)
    names = {node.value for node in _walk(argument) if type(node) is cst.Name}
    for other_call in function.call_statement:
        func = other_call.func
        if type(func) is cst.Attribute and func.attr.value == "grad" and len(other_call.args) >= 2:
            inputs = other_call.args[1].value
            if {node.value for node in _walk(inputs) if type(node) is cst.Name} & names:
                return "the same values are differentiated with `torch.autograd.grad` at line {line}", other_call
    # `d_interp = D(interp)`, then `loss_fn(d_real, d_fake, d_interp, interp, lamb)`: a function given both the
    # discriminator's input and its output may take the gradient of one with respect to the other (a
    # gradient penalty), which the detach would break.
    statement = function.call_statement.get(call)
    outputs = {node.value for target in statement.targets for node in _walk(target.target) if type(node) is cst.Name} \
        if type(statement) is cst.Assign and statement.value is call else set()
    for other_call in function.call_statement if outputs else ():
        passed = {arg.value.value for arg in other_call.args if type(arg.value) is cst.Name}
        if passed & names and passed & outputs and facts.names.qualified_name(other_call.func) is None:
            name = sorted(passed & names)[0]
            return (f"`{name}` and the discriminator's output are both passed to "
                    f"`{facts.code_for(other_call.func)}` at line {{line}}, which may differentiate one with "
                    f"respect to the other (a gradient penalty)", other_call)
    return None


def _read_only_as(parameter, argument, helper: FunctionFacts) -> bool:
    """Is the helper's argument read only inside `argument` (the discriminator's input)? Then a
    `.detach()` at the call changes nothing else the helper does."""
    inside = {id(node) for node in _walk(argument)}
    return all(id(read.node) in inside for read in helper.reads_of(parameter))


def _walk(node: cst.CSTNode, skip_numbers: bool = False, children: Optional[Callable] = None):
    """Every node of `node`, outside nested definitions; with `skip_numbers`, not into a call whose
    value carries no graph (`loss.item()`, `pred.detach()`, `torch.zeros_like(pred)`) nor into a
    read of what a tensor is (`d_out.shape[0]`, `x.size(0)`: noise sized by the discriminator's
    output carries none of its values). `children(node)`, where it answers, says which of a node's
    parts to go into."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if type(current) in (cst.FunctionDef, cst.ClassDef, cst.Lambda) and current is not node:
            continue
        if skip_numbers and (type(current) is cst.Call and (cuts_graph(current) or _reads_metadata(current.func))
                             or _reads_metadata(current)):
            continue
        chosen = children(current) if children is not None else None
        if chosen is None and skip_numbers and type(current) is cst.Call and type(current.func) is cst.Attribute \
                and current.func.attr.value in CONVERSION_METHODS:
            chosen = [current.func]  # `label.type_as(d_out)`: the dtype and device of `d_out`, none of its values
        stack.extend(chosen if chosen is not None else child_nodes(current))


def _reads_metadata(node: cst.CSTNode) -> bool:
    """`x.shape`, `x.device`, or the method of `x.size(0)`: what the tensor is, not its values."""
    return type(node) is cst.Attribute and node.attr.value in METADATA_ATTRIBUTES | METADATA_METHODS


# ------------------------------------------------------------------ call sites


def networks_at(summaries, summary, call: cst.Call, function: FunctionFacts) -> list:
    """The networks a summarized callee calls, as the caller sees them: keys in the caller's scope
    (a network passed as an argument is named by what the caller passes). `inputs` stay indices of
    the callee's arguments (`argument_for` finds them at the call)."""
    from dataclasses import replace

    found = []
    for use in summary.networks:
        keys = use.aliases
        if use.parameter is not None:
            passed = argument_for(call, summary, use.parameter)
            keys = summaries.network_keys(passed, function) if passed is not None else frozenset()
            if not keys:
                continue
        found.append(replace(use, aliases=keys, parameter=None, via=(summary.label, *use.via)))
    return found


def argument_for(call: cst.Call, summary, index: int) -> Optional[cst.BaseExpression]:
    """What a call passes for the callee's argument number `index` (positionally or by name)."""
    positional = []
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is None:
            positional.append(arg.value)
        elif index < len(summary.parameters) and arg.keyword.value == summary.parameters[index]:
            return arg.value
    return positional[index] if index < len(positional) else None


def _may_be_network(call: cst.Call, facts, function: FunctionFacts) -> bool:
    """A callee spelled as a network can be: a name, `self.<...>`, a container element (not a torch
    function, not a tensor method such as `x.view`)."""
    func = call.func
    if type(func) is cst.Attribute and func.attr.value == "forward":
        func = func.value
    if facts.names.qualified_name(func) is not None:
        return False
    # `def train(G, D, ...)` beside `class G`: there `G(seeds)` runs the network it was given.
    shadowed = type(func) is cst.Name and func.value in facts.classes and facts.class_called(func, function) is None
    if facts.builds_module(call) and not shadowed:
        return False  # `G = Generator(latent_dim)`: a network of the file's class, built, not run
    spelled = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else ""
    if spelled[:1].isupper() and (type(func) is cst.Attribute or not spelled.isupper()):
        root = func
        while type(root) is cst.Attribute:
            root = root.value
        module_level = facts.function_facts(facts.module)
        bindings = [binding for binding in module_level.bindings if type(root) is cst.Name and binding.name == root.value]
        if bindings and all(binding.kind == "import" for binding in bindings):
            # `generator.Generator(...)`, or `Generator(...)` imported from the project's model module: a
            # class of another module, built, not a network run (an imported `G` may be a network itself).
            return False
    return type(func) in (cst.Name, cst.Subscript, cst.Attribute)


def _is_self_call(call: cst.Call) -> bool:
    func = call.func
    return type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self"


def _shown_key(func: cst.BaseExpression, keys: frozenset) -> str:
    """The key to name in a message and in the verify context: the underlying network when the call
    goes through a container or another name (`netD` for `nets["D"]`), else the call's own."""
    own = module_key(func)
    others = sorted(key for key in keys if key != own)
    return others[0] if others else (own or sorted(keys)[0])


def _container_note(func: cst.BaseExpression, keys: frozenset, facts) -> Optional[str]:
    """"`nets["D"]`, which holds `netD`" when the network was reached through a container or a name."""
    own = module_key(func)
    others = sorted(key for key in keys if key != own)
    if own is None or not others:
        return None
    what = "which holds" if type(func) is cst.Subscript else "bound to"
    return f"`{own}`, {what} `{others[0]}`"


def _through_note(summary, use, facts) -> str:
    """"the function `D` (line 10), which calls `netD(...)`"."""
    chain = " → ".join(use.via) if use.via else summary.label
    return f"through the {chain} at line {facts.line_of(summary.node)}, which calls `{use.key}(...)`"


