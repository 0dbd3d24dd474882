"""Networks and optimizers received as arguments: which optimizer trains which network.

`def d_step(netG, netD, opt_d, scaler, real, z)` builds no optimizer, so the construction
(`Adam(netD.parameters())`) that tells TrainingFacts what an optimizer trains is not in sight.
Each optimizer argument that the function steps is paired with the network arguments it trains,
by the first of these that answers:

1. the callers in the file: `d_step(G, D, optD, ...)` where `optD = Adam(D.parameters())`;
2. the structure of the function: a network called both on another network's output and on
   something no network made is a discriminator (its loss compares fake and real), the one that
   feeds it is a generator, and the optimizer stepped after a backward whose loss holds both kinds
   of discriminator call is the discriminator's;
3. name stems: `opt_d`, `optimizer_D`, `d_optim` with `disc`, `netD`, `D`; `opt_g` with `gen`, `netG`.

What none of them settles stays unpaired, and the rule that asks stays silent.
"""

from __future__ import annotations

import re

from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from torchcopylint.analysis.aliasing import FunctionFacts
from torchcopylint.analysis.syntax import child_nodes
from torchcopylint.analysis.torchnames import dotted_name, loss_function_name

DISCRIMINATOR_STEMS = frozenset({"d", "disc", "dis", "discriminator", "critic"})
GENERATOR_STEMS = frozenset({"g", "gen", "generator"})


@dataclass
class ArgumentRoles:
    """What a function's optimizer arguments train, and which network arguments are generators."""

    optimizers: dict = field(default_factory=dict)  # optimizer key -> frozenset of network keys
    generators: frozenset = frozenset()
    how: dict = field(default_factory=dict)  # optimizer key -> "callers", "structure" or "names"


def argument_roles(function: FunctionFacts, known_optimizers: dict, call_sites: list,
                   stepped: list[tuple[str, int]], backwards: list) -> ArgumentRoles:
    """`stepped`: (key, statement order) of every `.step()` in the function; `backwards`:
    (statement order, loss expression); `call_sites`: calls of this function in the file, each as
    (the call, the caller's FunctionFacts)."""
    roles = ArgumentRoles()
    parameters = [binding.name for binding in function.parameters]
    unknown = [(key, order) for key, order in stepped
               if key not in known_optimizers and key in parameters and named_as_optimizer(key)]
    if not unknown:
        return roles
    networks = _network_calls(function, set(parameters))
    if len(networks) < 2:
        return roles
    sources = {key: [_network_sources(call, function, networks) for call in calls] for key, calls in networks.items()}
    discriminators = {key for key, per_call in sources.items()
                      if any(found - {key} for found in per_call) and any(not found for found in per_call)}
    # A discriminator does not feed what feeds it (an encoder/decoder pair feeds both ways through a loss).
    discriminators = {d for d in discriminators
                      if not any(d in found for g in _feeders(sources[d], d) for found in sources.get(g, ()))}
    generators = frozenset(g for d in discriminators for g in _feeders(sources[d], d)) - discriminators
    roles.generators = generators
    step_orders = sorted(order for _, order in stepped)
    for key, order in unknown:
        trained = _through_callers(key, function, call_sites, known_optimizers, set(networks))
        how = "callers"
        if not trained:
            trained, how = _by_structure(order, step_orders, backwards, function, networks, discriminators,
                                         generators), "structure"
            named = _by_name(key, networks)
            if named and not named & trained:
                # `G_optimizer` steps `G_model_train`, whatever the structure suggests: a generator step
                # whose loss also holds a frozen network judging real and fake (a perceptual VGG)
                # looks like a discriminator's.
                trained, how = named, "names"
        if trained:
            roles.optimizers[key] = trained
            roles.how[key] = how
    return roles


def _network_calls(function: FunctionFacts, parameters: set) -> dict:
    """Parameters called as functions (`netD(x)`): key -> the calls."""
    found: dict = {}
    for call in function.call_statement:
        func = call.func
        if type(func) is cst.Attribute and func.attr.value == "forward":
            func = func.value
        # `criterion(logits, labels)` is a loss, which no optimizer trains: it judges nothing.
        if type(func) is cst.Name and func.value in parameters and call.args and not loss_function_name(func.value):
            bindings = function.bindings_at(func)
            if bindings and all(binding.kind == "param" for binding in bindings):
                found.setdefault(func.value, []).append(call)
    return found


def _network_sources(call: cst.Call, function: FunctionFacts, networks: dict) -> frozenset:
    """The networks whose output flows into the arguments of `call` (detached or not)."""
    found = set()
    seen = set()
    pending = [arg.value for arg in call.args]
    while pending:
        stack = [pending.pop()]
        while stack:
            node = stack.pop()
            if type(node) is cst.Call:
                key = _callee_key(node)
                if key in networks:
                    found.add(key)
                stack.extend(arg.value for arg in node.args)
                if type(node.func) is cst.Attribute:
                    stack.append(node.func.value)
                continue
            if type(node) is cst.Name:
                for binding in function.bindings_at(node):
                    if binding not in seen and binding.value is not None:
                        seen.add(binding)
                        pending.append(binding.value)
                continue
            if type(node) is cst.Lambda:
                continue
            stack.extend(child_nodes(node))
    return frozenset(found)


def _callee_key(call: cst.Call) -> Optional[str]:
    func = call.func
    if type(func) is cst.Attribute and func.attr.value == "forward":
        func = func.value
    return func.value if type(func) is cst.Name else None


def _feeders(per_call: list, key: str) -> set:
    return {source for found in per_call for source in found if source != key}


def _through_callers(key: str, function: FunctionFacts, call_sites: list, known_optimizers: dict,
                     networks: set) -> frozenset:
    """`train_step(G, D, optG, optD)` with `optD = Adam(D.parameters())`: opt_d -> {disc}."""
    parameters = [binding.name for binding in function.parameters]
    if function.class_name is not None and parameters and parameters[0] in ("self", "cls"):
        parameters = parameters[1:]
    answers = set()
    for call, _caller in call_sites:
        passed = _passed_arguments(call, parameters)
        optimizer = dotted_name(passed[key]) if key in passed else None
        modules = known_optimizers.get(optimizer or "")
        if not modules:
            return frozenset()  # a caller that does not show it: no answer from the callers
        answers.add(frozenset(name for name in networks if dotted_name(passed.get(name)) in modules))
    if len(answers) == 1:
        return next(iter(answers))
    return frozenset()


def _passed_arguments(call: cst.Call, parameters: list) -> dict:
    passed = {}
    for index, arg in enumerate(call.args):
        if arg.star:
            return {}
        if arg.keyword is not None:
            passed[arg.keyword.value] = arg.value
        elif index < len(parameters):
            passed[parameters[index]] = arg.value
    return passed


def _by_structure(order: int, step_orders: list, backwards: list, function: FunctionFacts, networks: dict,
                  discriminators: set, generators: frozenset) -> frozenset:
    """The optimizer stepped after a backward whose losses hold a discriminator's call on real data
    (no network made it) and one on a generator's output is the discriminator's. A generator step
    judges only the fake batch."""
    previous = max((o for o in step_orders if o < order), default=-1)
    losses = [loss for loss_order, loss in backwards if previous < loss_order < order]
    calls = set()
    for loss in losses:
        calls |= _network_calls_flowing_into(loss, function, networks)
    judged = set()
    for d in discriminators:
        per_call = [_network_sources(call, function, networks) for call in calls if _callee_key(call) == d]
        if any(not found for found in per_call) and any(found & generators for found in per_call):
            judged.add(d)
    return frozenset(judged) if len(judged) == 1 else frozenset()


def _network_calls_flowing_into(expr, function: FunctionFacts, networks: dict) -> set:
    found = set()
    seen = set()
    pending = [expr]
    while pending:
        stack = [pending.pop()]
        while stack:
            node = stack.pop()
            if type(node) is cst.Call and _callee_key(node) in networks:
                found.add(node)
            if type(node) is cst.Name:
                for binding in function.bindings_at(node):
                    if binding not in seen and binding.value is not None:
                        seen.add(binding)
                        pending.append(binding.value)
            if type(node) is not cst.Lambda:
                stack.extend(child_nodes(node))
    return found


def _by_name(key: str, networks: dict) -> frozenset:
    """`opt_d` with `netD`; `optimizer_G` with `gen`; `opt_d_a` with `D_A`."""
    stem = optimizer_stem(key)
    if not stem:
        return frozenset()
    exact = [name for name in networks if network_stem(name) == stem]
    if len(exact) == 1:
        return frozenset(exact)
    role = _role(stem)
    if role is None:
        return frozenset()
    same_role = [name for name in networks if _role(network_stem(name)) == role]
    return frozenset(same_role) if len(same_role) == 1 else frozenset()


def named_as_optimizer(key: str) -> bool:
    """`opt_d`, `optimizerG`, `D_solver` (CS231n's GAN notebook and its heirs), not `opt_sched`."""
    name = key.rpartition(".")[2].lower()
    return ("opt" in name or "solver" in name) and "sched" not in name


def optimizer_stem(key: str) -> str:
    """`opt_d` -> "d", `optimizer_D` -> "d", `d_optim` -> "d", `optD` -> "d", `opt_disc` -> "disc",
    `D_solver` -> "d"."""
    text = key.rpartition(".")[2].lower()
    for word in ("optimizer", "optim", "opt", "solver"):
        text = text.replace(word, "")
    return text.strip("_")


def network_stem(name: str) -> str:
    """`netD` -> "d", `net_g` -> "g", `disc` -> "disc", `D_A` -> "d_a"."""
    text = name.rpartition(".")[2].lower()
    if text.startswith("net") and len(text) > 3:
        text = text[3:]
    # `G_model_train`, `model_D`: words that say "a network", not which one.
    words = [word for word in text.split("_") if word]
    kept = [word for word in words if word not in NETWORK_WORDS]
    return "_".join(kept) if kept else text.strip("_")


NETWORK_WORDS = {"model", "net", "network", "module", "train"}


def network_role(name: str) -> Optional[str]:
    """"discriminator" for `netD`, `disc`, `critic`; "generator" for `netG`, `gen`; else None."""
    return _role(network_stem(name))


def _role(stem: str) -> Optional[str]:
    if stem in DISCRIMINATOR_STEMS:
        return "discriminator"
    if stem in GENERATOR_STEMS:
        return "generator"
    # CycleGAN's pairs name their domain after the role: `D_A`, `discB`, `genAB`, `G_A2B`. A one-letter
    # role needs the separator (`da` may be anything).
    base = DOMAIN_SUFFIX.sub("", stem, count=1)
    if base != stem and (len(base) > 1 or "_" in stem) and base in DISCRIMINATOR_STEMS | GENERATOR_STEMS:
        return _role(base)
    # `pt_model_G`, `my_disc`: a project's prefix before the role word; one role among the words.
    words = [word for word in stem.split("_") if word]
    if len(words) > 1:
        roles = {_role(word) for word in words} - {None}
        if len(roles) == 1:
            return roles.pop()
    return None


# A domain named after a network's role: `_a`, `b`, `ab`, `a2b`, `x2y`, `_1`.
DOMAIN_SUFFIX = re.compile(r"_?(?:a|b|x|y|ab|ba|xy|yx|a2b|b2a|x2y|y2x|\d+)$")
