"""Inputs for a network from its call sites: `G(z, c)` gets a `z` and a `c` made the way the code makes them.

Runs in the verification child process. A network with several inputs (a
conditional generator `G(z, labels)`, a discriminator `D(x, c)`) cannot be fed
one probed tensor. Its call sites in the file say how each argument is made:
`z = torch.randn(batch_size, z_dim)`, `c = F.one_hot(labels, 10).float()`,
`torch.cat([x, c], 1)`. Each argument's expression is rebuilt through the
assignments before the call (in the same function, or the top level), then
evaluated in the module's namespace (its constants, carried by
verify/script.py), with:

- batch-size names (`batch_size`, `mb_size`, `bs`) set to a small batch;
- labels (a name like `labels`, `y`, `c`, or the second value a loop over a
  loader unpacks) made as class indices `0, 1, 2, 3`;
- the generator's own output, where a discriminator's argument is made from it,
  given as the fake batch under test.

An argument nothing explains (a batch of real images from a loader, a
function's parameter) is probed: the shapes the network's first layer reads,
less the widths of the other inputs when they are concatenated, then the usual
shapes. The inputs made are named in the evidence.
"""

from __future__ import annotations

import ast
import builtins
import functools
import inspect
import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import torch
from torch import nn

from torchcopylint.verify.inputs import CLASSES, COMMON_SHAPES, CannotRun, class_indices, first_layer_shapes

BATCH = 4
SUBSTITUTION_DEPTH = 5
BATCH_NAME = re.compile(r"^(batch_size|batchsize|bs|b_size|n_batch|mb_size|minibatch_size|num_samples|"
                        r"n_samples|batch)$")
LABEL_NAME = re.compile(r"(?i)^(y|c|labels?|targets?|classes|class_ids?|cond\w*|gen_labels|real_labels|"
                        r"fake_labels|cls|digits?|attr\w*)$")
DEVICE_NAME = re.compile(r"^(device|dev)$")
SAMPLE = "__tcl_sample__"
PARAMETER = "__tcl_parameter__"


class Unknown(Exception):
    """An argument whose making the code does not show: it is probed instead."""


@dataclass(frozen=True)
class CallSite:
    """One call of the network: where, and each argument's expression rebuilt from the assignments before it."""

    line: int
    written: tuple    # the arguments as written
    recipes: tuple    # the arguments as expressions of module-level names and placeholders
    keywords: tuple = ()  # (name, recipe) pairs


# ------------------------------------------------------------------------------ finding the call sites


def instance_keys(tree: ast.Module, class_name: str) -> set[str]:
    """How instances of the class are named: `netG = Generator(...).to(device)` -> "netG", `self.G = ...` -> "self.G"."""
    keys = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            func = node.value.func
            while isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
                func = func.value.func
            if isinstance(func, ast.Name) and func.id == class_name:
                keys |= {ast.unparse(target) for target in node.targets}
    return keys


def call_sites(source: str, keys: set[str], class_name: Optional[str] = None) -> list[CallSite]:
    """Every call of a network named by `keys` (or of `ClassName(...)(...)` itself), arguments rebuilt."""
    tree = ast.parse(source)
    wanted = set(keys) | {f"{key}.forward" for key in keys}
    found = []
    for scope in _scopes(tree):
        bindings = _bindings(scope)
        for node in _walk_scope(scope):
            if not isinstance(node, ast.Call):
                continue
            callee = ast.unparse(node.func)
            direct = class_name is not None and isinstance(node.func, ast.Call) and \
                isinstance(node.func.func, ast.Name) and node.func.func.id == class_name
            if callee not in wanted and not direct:
                continue
            if any(isinstance(arg, ast.Starred) for arg in node.args):
                continue
            recipes = tuple(ast.unparse(_rebuilt(arg, bindings, node.lineno, 0)) for arg in node.args)
            keywords = tuple((kw.arg, ast.unparse(_rebuilt(kw.value, bindings, node.lineno, 0)))
                             for kw in node.keywords if kw.arg)
            site = CallSite(node.lineno, tuple(ast.unparse(arg) for arg in node.args), recipes, keywords)
            if site not in found:
                found.append(site)
    return found


def _scopes(tree: ast.Module) -> list[ast.AST]:
    return [tree] + [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _walk_scope(scope: ast.AST):
    """The nodes of a scope, not those of the functions and classes nested in it."""
    pending = list(ast.iter_child_nodes(scope))
    while pending:
        node = pending.pop(0)
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            pending.extend(ast.iter_child_nodes(node))


@dataclass
class _Binding:
    line: int
    value: Optional[ast.expr] = None   # `name = value`
    marker: Optional[ast.expr] = None  # a placeholder: a loop's unpacked value, a parameter


def _bindings(scope: ast.AST) -> dict[str, list[_Binding]]:
    found: dict[str, list[_Binding]] = {}
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        for argument in [*scope.args.posonlyargs, *scope.args.args, *scope.args.kwonlyargs]:
            if argument.arg != "self":
                found.setdefault(argument.arg, []).append(_Binding(scope.lineno, marker=_placeholder(
                    PARAMETER, argument.arg, 0)))
    for node in _walk_scope(scope):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                found.setdefault(target.id, []).append(_Binding(node.lineno, value=node.value))
            elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(node.value, (ast.Tuple, ast.List)) \
                    and len(target.elts) == len(node.value.elts):
                for element, value in zip(target.elts, node.value.elts):
                    if isinstance(element, ast.Name):
                        found.setdefault(element.id, []).append(_Binding(node.lineno, value=value))
        elif isinstance(node, (ast.For, ast.comprehension)):
            target = node.target
            line = getattr(node, "lineno", getattr(target, "lineno", 0))
            if isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[1], ast.Tuple):
                target = target.elts[1]  # `for i, (x, y) in enumerate(loader)`
            elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
            for position, element in enumerate(elements):
                if isinstance(element, ast.Name):
                    found.setdefault(element.id, []).append(_Binding(line, marker=_placeholder(
                        SAMPLE, element.id, position)))
    return found


def _placeholder(kind: str, name: str, position: int) -> ast.expr:
    return ast.Call(ast.Name(kind, ast.Load()), [ast.Constant(name), ast.Constant(position)], [])


def _rebuilt(expr: ast.expr, bindings: dict, before: int, depth: int) -> ast.expr:
    """The expression with each local name replaced by what it was last bound to before line `before`."""

    class Substitute(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name):
            if not isinstance(node.ctx, ast.Load) or depth >= SUBSTITUTION_DEPTH:
                return node
            earlier = [b for b in bindings.get(node.id, ()) if b.line < before]
            if not earlier:
                return node  # a module-level name: the namespace has it
            binding = earlier[-1]
            if binding.marker is not None:
                return binding.marker
            return _rebuilt(binding.value, bindings, binding.line, depth + 1)

    copied = ast.parse(ast.unparse(expr), mode="eval").body
    return Substitute().visit(copied)


# ------------------------------------------------------------------------------ making the inputs


@dataclass
class Inputs:
    """The arguments of one call of a network, made: evaluated recipes, probed shapes for the rest.
    It stands where a probed input shape would (verify/inputs.py `make_input`)."""

    site: CallSite
    made: list                      # one entry per argument: ("recipe", text), ("shape", shape) or ("fake", None)
    keywords: dict = field(default_factory=dict)
    namespace: dict = field(default_factory=dict, repr=False)
    device: str = "cpu"
    imports: dict = field(default_factory=dict, repr=False)  # the file's imports, for names the snippet lacks
    # The names of the network's inputs in order: keywords the call passes (`loss(p, mu=0.5, sigma=0.1)`)
    # are handed over in their places, since the block under test takes its inputs by position.
    order: tuple = ()

    def make(self) -> tuple:
        """(the first argument's leaf, the arguments): fresh tensors, the same values each time."""
        arguments, keywords, leaves = _made(self, self.namespace, self.device)
        for name in self.order[len(arguments):]:
            if name not in keywords:
                break
            arguments.append(keywords.pop(name))
        if keywords:
            raise CannotRun("keyword inputs of a block under test are not supported")
        leaf = leaves[0] if leaves else next((a for a in arguments if isinstance(a, torch.Tensor)), None)
        return leaf, tuple(arguments)

    def describe(self) -> str:
        shown = []
        for written, (kind, value) in zip(self.site.written, self.made):
            if kind == "shape":
                shown.append(f"`{written}` random {tuple(value)}")
            elif kind == "fake":
                shown.append(f"`{written}` the generator's output")
            elif readable(value) == written:
                shown.append(f"`{written}`")
            else:
                shown.append(f"`{written}` = `{readable(value)}`")
        placeholders = sorted({name for _, value in self.made if isinstance(value, str)
                               for name in re.findall(rf"(?:{PARAMETER}|{SAMPLE})\('(\w+)'", value)})
        notes = [f"`{name}` = {BATCH}" if BATCH_NAME.match(name) else f"`{name}` class indices 0..{BATCH - 1}"
                 for name in placeholders]
        return (f"inputs as the call at line {self.site.line} makes them: " + ", ".join(shown)
                + (f" ({', '.join(notes)})" if notes else ""))

    def __str__(self) -> str:
        return self.describe()


def readable(recipe: str) -> str:
    """A recipe as the user would write it: placeholders shown as the names they stand for."""
    return re.sub(rf"(?:{PARAMETER}|{SAMPLE})\('(\w+)', \d+\)", r"\1", recipe)


def make_arguments(inputs: Inputs, namespace: dict, device: str, fake: Any = None,
                   generator_keys: tuple = ()) -> tuple[list, dict]:
    """Fresh tensors for one call (the same values each time: seeded)."""
    arguments, keywords, _ = _made(inputs, namespace, device, fake, generator_keys)
    return arguments, keywords


def _made(inputs: Inputs, namespace: dict, device: str, fake: Any = None, generator_keys: tuple = ()):
    """(arguments, keywords, the leaves behind the probed ones): a probed input is `leaf * 1.0`, a
    non-leaf as inside a network (verify/inputs.py `make_input`)."""
    torch.manual_seed(1)
    environment = _Environment(namespace, device, fake, generator_keys, inputs.imports)
    arguments, leaves = [], []
    for kind, value in inputs.made:
        if kind == "shape":
            leaf = torch.randn(*value, device=device, requires_grad=True)
            leaves.append(leaf)
            arguments.append(leaf * 1.0)
        elif kind == "fake":
            arguments.append(fake)
        else:
            arguments.append(_evaluate(value, environment))
    keywords = {name: _evaluate(recipe, environment) for name, recipe in inputs.keywords.items()}
    return arguments, keywords, leaves


def inputs_for(sites: list[CallSite], network: Callable[[], Any], namespace: dict, device: str, source: str,
               fake: Any = None, generator_keys: tuple = (), accept: Optional[Callable] = None) -> Inputs:
    """The first call site whose arguments can all be made and with which a fresh network runs."""
    errors = []
    imports = _imports_of(source)
    if fake is not None:  # the calls that feed it the generator's output first
        sites = sorted(sites, key=lambda site: not any(_from_generator(r, generator_keys) for r in site.recipes))
    for site in sites:
        environment = _Environment(namespace, device, fake, generator_keys, imports)
        made: list = []
        unknown: list[int] = []
        for index, recipe in enumerate(site.recipes):
            if fake is not None and _from_generator(recipe, generator_keys):
                made.append(("fake", None))
                continue
            try:
                _evaluate(recipe, environment)  # can it be made here?
            except Exception:  # noqa: BLE001 - Unknown, or a name the namespace lacks: probe it
                made.append(None)
                unknown.append(index)
                continue
            made.append(("recipe", recipe))
        if fake is not None and not any(entry and entry[0] == "fake" for entry in made) and made:
            made[0] = ("fake", None)  # the discriminator reads the fake batch where the code gives it data
            unknown = [index for index in unknown if index != 0]
        keywords = {}
        for name, recipe in site.keywords:
            try:
                _evaluate(recipe, environment)
                keywords[name] = recipe
            except Exception:  # noqa: BLE001 - a keyword we cannot make is left to its default
                continue
        if len(unknown) > 1:
            errors.append(f"line {site.line}: {len(unknown)} arguments nothing explains")
            continue
        candidates = [None] if not unknown else _shapes_for(network(), made, environment, fake)
        for shape in candidates:
            attempt = list(made)
            if unknown:
                attempt[unknown[0]] = ("shape", shape)
            inputs = Inputs(site, attempt, keywords, namespace, device, imports,
                            order=_input_names(network()) if keywords else ())
            try:
                arguments, keyword_values = make_arguments(inputs, namespace, device, fake, generator_keys)
                result = network()(*arguments, **keyword_values)
            except Exception as error:  # noqa: BLE001 - a wrong shape: try the next
                if accept is not None and accept(error):
                    return inputs
                errors.append(f"line {site.line}: {type(error).__name__}")
                continue
            if result is not None:
                return inputs
    raise CannotRun(f"no call site gave inputs that run ({'; '.join(errors[:3]) or 'no call site found'})")


def _input_names(network: Any) -> tuple:
    """The names of what the network's forward takes, in order (none where it takes `*args`)."""
    try:
        parameters = inspect.signature(network.forward if isinstance(network, nn.Module) else network).parameters
    except (TypeError, ValueError):
        return ()
    return tuple(name for name, parameter in parameters.items()
                 if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD))


def _from_generator(recipe: str, generator_keys: tuple) -> bool:
    """Is the argument made by calling the generator (`G(z, c)`, `G(z).detach()`)?"""
    try:
        tree = ast.parse(recipe, mode="eval")
    except SyntaxError:
        return False
    return any(isinstance(node, ast.Call) and ast.unparse(node.func) in generator_keys for node in ast.walk(tree))


def _shapes_for(network: nn.Module, made: list, environment: dict, fake: Any) -> list[tuple]:
    """Shapes for the one argument nothing explains: what the first layer reads (less the widths of
    the other inputs, which the network may concatenate to it), then the usual batches."""
    widths = []
    for entry in made:
        if entry is None:
            continue
        kind, value = entry
        try:
            tensor = fake if kind == "fake" else _evaluate(value, environment)
        except Exception:  # noqa: BLE001
            continue
        if isinstance(tensor, torch.Tensor) and tensor.dim() >= 2:
            widths.append(math.prod(tensor.shape[1:]))
    found = []
    for shape in first_layer_shapes(network) if isinstance(network, nn.Module) else []:
        if shape and shape[0] == "indices":
            continue
        found.append((BATCH, *shape[1:]))
        if len(shape) == 2:
            for width in widths:
                if shape[1] > width:
                    rest = shape[1] - width
                    found.append((BATCH, rest))
                    found += [(BATCH, c, s, s) for c, s in ((1, 28), (3, 32), (1, 32), (3, 64)) if c * s * s == rest]
        if len(shape) == 4:
            for width in widths:
                if shape[1] > width:
                    found.append((BATCH, shape[1] - width, *shape[2:]))
    if isinstance(network, nn.Module):
        # A first layer that reads another input (an embedding of the labels): the widths the next
        # linear layers read, for the input nothing explains (`z * self.embed(labels)` into a Linear).
        widths_read = [layer.in_features for layer in network.modules() if isinstance(layer, nn.Linear)][:3]
        found += [(BATCH, width) for width in widths_read]
    found += [(BATCH, *shape[1:]) for shape in COMMON_SHAPES]
    return list(dict.fromkeys(found))


class _Environment(dict):
    """The namespace a recipe is evaluated in: the module's, with a small batch, labels, the device."""

    def __init__(self, namespace: dict, device: str, fake: Any, generator_keys: tuple, imports: dict) -> None:
        super().__init__(namespace)
        self.device = device
        self.imports = imports
        classes = next((namespace[n] for n in ("n_classes", "num_classes", "nclasses", "n_class", "num_class")
                        if isinstance(namespace.get(n), int)), CLASSES)
        self.classes = max(classes, BATCH)
        for name in list(self):
            if BATCH_NAME.match(name) and isinstance(self[name], int):
                self[name] = BATCH
        self[SAMPLE] = self._sample
        self[PARAMETER] = self._parameter
        if fake is not None:
            for key in generator_keys:
                if "." not in key:
                    self[key] = lambda *args, **kwargs: fake

    def __missing__(self, name: str):
        if BATCH_NAME.match(name):
            return BATCH
        if DEVICE_NAME.match(name):
            return self.device
        statement = self.imports.get(name)
        if statement is not None:  # a module the snippet did not need, but the call site uses (`F`)
            scope: dict = {}
            try:
                exec(statement, scope)  # noqa: S102 - the file's own import
            except Exception as error:  # noqa: BLE001
                raise Unknown(name) from error
            self[name] = scope[name]
            return scope[name]
        raise Unknown(name)

    def labels(self) -> torch.Tensor:
        return class_indices(BATCH, self.classes, self.device)

    def _sample(self, name: str, position: int):
        if position >= 1 or LABEL_NAME.match(name):
            return self.labels()
        raise Unknown(name)

    def _parameter(self, name: str, position: int):
        if LABEL_NAME.match(name):
            return self.labels()
        if BATCH_NAME.match(name):
            return BATCH
        if DEVICE_NAME.match(name):
            return self.device
        raise Unknown(name)


@functools.lru_cache(maxsize=16)
def _imports_of(source: str) -> dict[str, str]:
    """Name -> the import statement (absolute) that binds it in the file."""
    found: dict[str, str] = {}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return found
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found[(alias.asname or alias.name).split(".")[0]] = ast.unparse(ast.Import([alias]))
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for alias in node.names:
                if alias.name != "*":
                    found[alias.asname or alias.name] = ast.unparse(ast.ImportFrom(node.module, [alias], 0))
    return found


def _evaluate(recipe: str, environment: dict):
    # The environment as locals: its `__missing__` answers the names the module does not bind.
    code = compile(recipe, "<call site>", "eval")
    return eval(code, {"__builtins__": builtins, **environment}, environment)  # noqa: S307 - the user's own code


# ------------------------------------------------------------------------------ a G -> D replay


def first_tensor(value: Any) -> Optional[torch.Tensor]:
    """The tensor a network's output stands for: itself, or the first of a tuple, list or dict
    (`return out, features`: what `out, _ = D(x)` or `D(x)[0]` reads)."""
    if isinstance(value, torch.Tensor):
        return value
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (tuple, list)):
        for item in value:
            found = first_tensor(item)
            if found is not None:
                return found
    return None


@dataclass
class Replay:
    """How a generator and a discriminator built from their classes are called in a G -> D replay:
    one probed tensor each when that runs, else inputs from their call sites."""

    device: str
    namespace: dict
    shape: Optional[tuple] = None             # the generator's single input
    generator_inputs: Optional[Inputs] = None
    discriminator_inputs: Optional[Inputs] = None
    generator_keys: tuple = ()

    def generator_arguments(self) -> tuple[list, dict]:
        if self.generator_inputs is None:
            return [torch.randn(*self.shape, device=self.device)], {}
        return make_arguments(self.generator_inputs, self.namespace, self.device)

    def discriminator_arguments(self, fake: Any) -> tuple[list, dict]:
        if self.discriminator_inputs is None:
            return [fake], {}
        return make_arguments(self.discriminator_inputs, self.namespace, self.device, fake, self.generator_keys)

    def describe(self) -> str:
        parts = [inputs.describe() for inputs in (self.generator_inputs, self.discriminator_inputs) if inputs]
        return "; ".join(parts)


def replay(source: str, namespace: dict, device: str, generator: tuple, discriminator: tuple,
           probe_shape: Callable[[], tuple]) -> Replay:
    """`generator` and `discriminator` are (key, class name, build): the inputs each needs."""
    tree = ast.parse(source)
    generator_key, generator_class, build_generator = generator
    discriminator_key, discriminator_class, build_discriminator = discriminator
    generator_keys = tuple({generator_key, *instance_keys(tree, generator_class)} - {""})
    plan = Replay(device, namespace, generator_keys=generator_keys)
    try:
        plan.shape = probe_shape()
    except CannotRun as failure:
        sites = call_sites(source, set(generator_keys), generator_class)
        if not sites:
            raise
        try:
            plan.generator_inputs = inputs_for(sites, build_generator, namespace, device, source)
        except CannotRun as reason:
            raise CannotRun(f"{failure}; {reason}") from reason
    torch.manual_seed(3)
    arguments, keywords = plan.generator_arguments()
    fake = first_tensor(build_generator()(*arguments, **keywords))  # `image, attention = G(z)`: the image
    if fake is None:
        raise CannotRun(f"{generator_class} returned no tensor")
    try:
        build_discriminator()(fake)
        return plan
    except Exception as failure:  # noqa: BLE001 - it takes more than the fake batch
        keys = {discriminator_key, *instance_keys(tree, discriminator_class)} - {""}
        sites = call_sites(source, keys, discriminator_class)
        if not sites:
            raise CannotRun(f"the discriminator does not run on the fake batch alone ({type(failure).__name__}) "
                            f"and the file has no call of it") from failure
        plan.discriminator_inputs = inputs_for(sites, build_discriminator, namespace, device, source,
                                               fake.detach(), generator_keys)
    return plan
