"""Constructor configurations for a class under test: the ways to build it, best first.

Runs in the verification child process. A block's flagged path often runs only
under some constructor arguments (`inplace=True`, `downsample=...`, a flag that
selects a branch), so an experiment tries several configurations until the
lines its claim depends on ran. Order: the configured factory, literal calls in
the file, the defaults, values consistent with how `__init__` uses them
(`inplanes == planes * expansion`), then each boolean flipped and each `None`
option given a small module.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import os
import textwrap
import types
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import torch
from torch import nn

from torchcopylint.verify.inputs import CannotRun, Factories
from torchcopylint.verify.snippet import literal_calls, literal_keywords, resolved
from torchcopylint.verify.standins import (CLASSES, FLOAT_NAMES, TENSOR_METHODS, StandInNet, Use, names_a_network,
                                            ints_annotated, option_uses, uses)

# Channel or feature count given to a required int parameter that nothing else decides.
WIDTH = 16
FRACTION = 0.1  # a rate, a probability, a float the code asks for
# Words of a keyword's name that say it is a rate (`d_lr`, `drop_rate`, `adam_beta1`): a fraction, not a width.
RATE_WORDS = frozenset({"lr", "rate", "dropout", "prob", "eps", "momentum", "beta", "beta1", "beta2", "decay"})
MAX_CONFIGURATIONS = 8


class ScaledInput(nn.Module):
    """Stands in for an optional module argument left `None` by default (`downsample=None`)."""

    def forward(self, x):
        return x * 1.0


class NetworkArgument:
    """Stands in for a required argument named like a network (`energy_net`, `model`): each build
    gets a fresh stand-in network (verify/standins.py)."""

    def __repr__(self) -> str:
        return "<network>"


class TensorArgument:
    """Stands in for a required argument `__init__` uses as an array (`embeddings.shape[1]`,
    `torch.tensor(embeddings)`): a fresh WIDTH x WIDTH tensor of random values at each build."""

    def __repr__(self) -> str:
        return f"<tensor {WIDTH}x{WIDTH}>"


class OptionsArgument:
    """Stands in for a required argument `__init__` reads options of (`Generator(args)`, then `args.ngf`,
    `args.input_nc`): a namespace of those options, each a width, a fraction for a rate, or False for
    a flag it only tests."""

    def __init__(self, options: dict) -> None:
        self.options = options

    def __repr__(self) -> str:
        return "<options " + ", ".join(f"{name}={value!r}" for name, value in self.options.items()) + ">"


def stand_in_networks(configuration: "Configuration") -> str:
    """What `<network>` in the configuration's description is, for the evidence; "" if it has none."""
    if not any(isinstance(value, NetworkArgument) for value in (*configuration.args, *configuration.kwargs.values())):
        return ""
    return f"built as {configuration.description}, each <network> a {StandInNet((CLASSES,)).describe()}"


@dataclass(frozen=True)
class Configuration:
    """One way to build the class: a factory, or arguments to call it with."""

    description: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    factory: Optional[Callable[[], Any]] = None

    def build(self, cls: type, seed: int = 0):
        torch.manual_seed(seed)
        if self.factory is not None:
            return self.factory()
        return cls(*(_fresh(value, cls) for value in self.args),
                   **{name: _fresh(value, cls) for name, value in self.kwargs.items()})


def _fresh(value: Any, cls: type) -> Any:
    value = resolved(value, cls)
    if isinstance(value, NetworkArgument):
        return StandInNet((CLASSES,))
    if isinstance(value, TensorArgument):
        return torch.rand(WIDTH, WIDTH)
    if isinstance(value, OptionsArgument):
        return types.SimpleNamespace(**value.options)
    return ScaledInput() if isinstance(value, ScaledInput) else value


def _call_text(cls: type, args: tuple, kwargs: dict) -> str:
    shown = [repr(a) for a in args] + [f"{k}={'<module>' if isinstance(v, ScaledInput) else repr(v)}"
                                       for k, v in kwargs.items()]
    return f"{cls.__name__}({', '.join(shown)})"


def configurations(cls: type, source: str, module_path: str, factories: Factories,
                   limit: int = MAX_CONFIGURATIONS, importers: tuple = ()):
    """The configurations that build, at most `limit`, lazily (building a large model takes time);
    CannotRun naming the failures if none does. `importers`: the (path, text, cells) of the linted
    files that import the class's module, whose calls of the class come after the file's own."""
    built = 0
    seen: set[str] = set()
    errors: list[str] = []
    for candidate in _candidates(cls, source, module_path, factories, importers):
        if built >= limit:
            return
        if candidate.description in seen:
            continue
        seen.add(candidate.description)
        try:
            candidate.build(cls)
        except Exception as error:  # noqa: BLE001 - any failure means: try the next way
            errors.append(f"{candidate.description}: {type(error).__name__}: {error}")
            continue
        built += 1
        yield candidate
    if not built:
        raise CannotRun(f"could not construct {cls.__name__} ({_first_errors(errors)})")


def _first_errors(errors: list[str], limit: int = 300) -> str:
    """The errors that fit in `limit` characters, whole (the first one cut if it alone does not),
    and how many more there were."""
    shown: list[str] = []
    for error in errors:
        if shown and len("; ".join([*shown, error])) > limit:
            break
        shown.append(error if shown else error[:limit])
    rest = len(errors) - len(shown)
    return "; ".join(shown) + (f" (and {rest} more)" if rest else "")


def _candidates(cls: type, source: str, module_path: str, factories: Factories, importers: tuple = ()):
    factory = factories.for_object(module_path, cls.__name__)
    if factory is not None:
        yield Configuration("the configured factory", factory=factory)
    parameters = _parameters(cls)
    bases = []
    for args, kwargs in literal_calls(source, cls.__name__):
        bases.append((tuple(args), kwargs, "found in the file"))
    if parameters is not None:
        keywords = _keywords_read(cls, parameters)
        required = [p.name for p in parameters if p.default is p.empty
                    and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        made = _required_values(cls, parameters)
        for path, text, _ in importers:
            # `blocks.ResidualBlock(out_ch, kernel_size=3, padding=1)` in the decoder that builds the
            # block: its literal settings, the widths made for the rest.
            try:
                calls = literal_keywords(text, cls.__name__)
            except (SyntaxError, ValueError):
                continue
            for given in calls if made else ():
                rest = {name: value for name, value in zip(required, made[0]) if name not in given}
                bases.append(((), {**keywords, **rest, **given}, f"as {os.path.basename(path)} builds it"))
        for args in made:
            bases.append((tuple(args), keywords, ""))
    else:
        bases.append(((), {}, ""))
    for args, kwargs, origin in bases:
        text = _call_text(cls, args, kwargs)
        yield Configuration(f"{text} {origin}".strip(), args, kwargs)
    if parameters is None:
        return
    # The flagged path may need a flag the defaults do not set: flip each option, on every base.
    for (args, kwargs, origin), (name, value) in itertools.product(bases, _options(parameters)):
        if name in kwargs or len(args) > _position(parameters, name):
            continue
        varied = {**kwargs, name: value}
        yield Configuration(_call_text(cls, args, varied), args, varied)


def _parameters(cls: type) -> Optional[list[inspect.Parameter]]:
    try:
        return list(inspect.signature(cls.__init__).parameters.values())[1:]
    except (TypeError, ValueError):
        return None


def _position(parameters: list[inspect.Parameter], name: str) -> int:
    return next((index for index, p in enumerate(parameters) if p.name == name), len(parameters))


def _options(parameters: list[inspect.Parameter]):
    """(name, other value) for each boolean and `None` default."""
    for parameter in parameters:
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if isinstance(parameter.default, bool):
            yield parameter.name, not parameter.default
        elif parameter.default is None:
            yield parameter.name, ScaledInput()


def _required_values(cls: type, parameters: list[inspect.Parameter]) -> list[list]:
    """Values for the required parameters: WIDTH each, then widths that chain through `__init__`."""
    required = [p for p in parameters if p.default is p.empty
                and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    plain = []
    tree = _init_tree(cls)
    used = uses(tree) if tree is not None else {}  # how `__init__` uses each name (verify/standins.py)
    for parameter in required:
        options = option_uses(tree, parameter.name) if tree is not None and parameter.annotation is parameter.empty \
            else {}
        value = _options_for(options) if options else _value_for(parameter, used.get(parameter.name))
        if value is None:
            return []  # a required argument of a type it cannot make: only call sites can build it
        plain.append(value)
    found = [plain]
    names = [p.name for p in required]
    for multiplied, factor in _multiplied_parameters(cls, tree, set(names)):
        # `planes * self.expansion` must often equal the input width: the first other int parameter.
        others = [n for n in names if n != multiplied and isinstance(plain[names.index(n)], int)]
        if not others:
            continue
        chained = list(plain)
        chained[names.index(others[0])] = WIDTH * factor
        found.append(chained)
    return found


def _value_for(parameter: inspect.Parameter, use: Optional[Use] = None) -> Any:
    annotation = parameter.annotation
    if annotation is parameter.empty and names_a_network(parameter.name, use):
        return NetworkArgument()  # `EBM(energy_net, ...)`: a module wrapping the network it is given
    if annotation is parameter.empty and use is not None and use.methods & TENSOR_METHODS:
        return TensorArgument()  # `self.embed_size = embeddings.shape[1]`: no number has a shape
    if annotation in (bool, "bool"):
        return False
    if annotation is parameter.empty and use is not None and use.probability:
        return FRACTION  # `nn.Dropout(dropout_prob)` refuses the width
    if annotation in (float, "float"):
        return FRACTION
    if annotation in (int, "int", parameter.empty):
        return WIDTH
    if ints_annotated(annotation):
        return [WIDTH, WIDTH]  # `hidden_sizes: list[int]`: a width per layer
    return None


def _options_for(options: dict[str, Use]) -> OptionsArgument:
    """The namespace for options `__init__` reads (`args.ngf` -> `ngf`)."""
    names = {key: key.split(".", 1)[1] for key in options}
    return OptionsArgument({names[key]: _setting_for(names[key], use) for key, use in options.items()})


def _setting_for(name: str, use: Optional[Use] = None) -> Any:
    """A setting `__init__` reads by name (`kwargs["latent_dim"]`, `args.ngf`): a width; by its name or its use
    a rate (`d_lr`, `drop_rate`: FRACTION); False for a flag it only tests (`if args.use_tanh:`)."""
    if FLOAT_NAMES.match(name) or RATE_WORDS & set(name.lower().split("_")) or (use is not None and use.probability):
        return FRACTION
    if use is not None and use.truth and not (use.arithmetic or use.sizes or use.fed_to):
        return False
    return WIDTH


def _keywords_read(cls: type, parameters: list[inspect.Parameter]) -> dict:
    """For a constructor of `**kwargs` (`Generator(**hparams)`), the keys `__init__` reads of them without a
    default (`kwargs["latent_dim"]`), each a width, or by its name a rate (`d_lr`: FRACTION)."""
    var_keyword = next((p.name for p in parameters if p.kind is p.VAR_KEYWORD), None)
    tree = _init_tree(cls) if var_keyword is not None else None
    if tree is None:
        return {}
    keys = list(dict.fromkeys(node.slice.value for node in ast.walk(tree) if isinstance(node, ast.Subscript)
                              and isinstance(node.value, ast.Name) and node.value.id == var_keyword
                              and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)))
    return {key: _setting_for(key) for key in keys}


def _init_tree(cls: type) -> Optional[ast.Module]:
    """The class's `__init__`, parsed; None where its code cannot be read."""
    try:
        return ast.parse(textwrap.dedent(inspect.getsource(cls.__init__)))
    except (OSError, TypeError, SyntaxError):
        return None


def _multiplied_parameters(cls: type, tree: Optional[ast.Module], names: set[str]) -> list[tuple[str, int]]:
    """(parameter, factor) for `name * 4` / `name * self.expansion` in `__init__` (an int class attribute, or
    one `__init__` sets to a literal)."""
    if tree is None:
        return []
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)):
            continue
        for name_side, factor_side in ((node.left, node.right), (node.right, node.left)):
            if isinstance(name_side, ast.Name) and name_side.id in names:
                factor = _int_value(cls, factor_side, tree)
                if factor and factor > 1 and (name_side.id, factor) not in found:
                    found.append((name_side.id, factor))
    return found


def _int_value(cls: type, node: ast.AST, init: ast.Module) -> Optional[int]:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
        value = getattr(cls, node.attr, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        # `self.expansion = 4` set in `__init__` itself, not on the class
        kept = [assigned.value for assigned in ast.walk(init) if isinstance(assigned, ast.Assign)
                and any(ast.unparse(target) == f"self.{node.attr}" for target in assigned.targets)]
        if len(kept) == 1 and isinstance(kept[0], ast.Constant) and type(kept[0].value) is int:
            return kept[0].value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == cls.__name__:
        value = getattr(cls, node.attr, None)
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    return None
