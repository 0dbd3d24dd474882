"""Parse a module for linting: libcst's parser, without each node re-checking itself.

Every libcst node validates its own fields as it is constructed (`CSTNode.__post_init__`
calls `_validate`: whitespace against regular expressions, balanced parentheses...). Those
checks are there for code that builds or edits trees by hand. A tree that libcst's native
parser builds from source comes out of a successful parse of the grammar, so the checks
prove again what the parse already did; they are about a seventh of the parse time (libcst's
own comment on `__post_init__` calls this a performance cost). The linter only reads the
tree, so `parse_for_analysis` switches them off while the parser builds it.

This changes a class attribute of libcst for the duration of the parse, in this process.
Nodes that another thread builds at that moment are not validated either; nothing else
changes. When libcst's `__post_init__` is not the one this module knows (another libcst
release), the parse runs with validation, as `libcst.parse_module` does.

The node classes' constructors are swapped too, for the same span: a frozen dataclass's
`__init__` sets each field through `object.__setattr__` and then calls `__post_init__`, and
building the nodes was an eighth of the parse. The replacement of each class (`_fast_init`)
takes the same parameters with the same defaults and sets the same fields through the class's
slot descriptors, without the call to `__post_init__` (whose only work is the validation
skipped anyway). A class whose constructor is not such a dataclass `__init__` keeps its own.

The parser's own working memory (several times the tree's size) is freed when the parse
returns, but the C library keeps those pages: the analysis then grows the process past the
parse's peak. After a parse that raised the process's peak, `_release_free_memory` hands the
free pages back (glibc's `malloc_trim`), so the analysis fits where the parser worked and a
lint's peak is the parse's (files are scheduled biggest first: about once per worker).
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
import types
from typing import Any, Callable, Optional

import libcst as cst

_validating_post_init = cst.CSTNode.__post_init__


def _without_validation(self: cst.CSTNode) -> None:
    pass


def _knows_this_libcst() -> bool:
    code = getattr(_validating_post_init, "__code__", None)
    return code is not None and _validating_post_init.__qualname__ == "CSTNode.__post_init__" \
        and code.co_names == ("_validate",)


_SKIPPABLE = _knows_this_libcst()


def _fast_init(node_type: type) -> Optional[Callable]:
    """An `__init__` for `node_type` with the parameters and defaults of its dataclass `__init__`,
    setting the same fields through the slot descriptors, not calling `__post_init__`. None
    when the class is not a slotted dataclass whose constructor is the generated one."""
    original = node_type.__dict__.get("__init__")
    if original is None or not dataclasses.is_dataclass(node_type) or "__slots__" not in node_type.__dict__:
        return None
    fields = dataclasses.fields(node_type)
    namespace: dict = {"_FACTORY": dataclasses._HAS_DEFAULT_FACTORY}  # the dataclass's own marker
    parameters, lines = [], []
    for index, field in enumerate(fields):
        descriptor = inspect.getattr_static(node_type, field.name, None)
        if not field.init or getattr(field, "kw_only", False) or type(descriptor) is not types.MemberDescriptorType:
            return None
        namespace[f"_set{index}"] = descriptor.__set__
        value = field.name
        if field.default is not dataclasses.MISSING:
            namespace[f"_default{index}"] = field.default
            parameters.append(f"{field.name}=_default{index}")
        elif field.default_factory is not dataclasses.MISSING:
            namespace[f"_factory{index}"] = field.default_factory
            parameters.append(f"{field.name}=_FACTORY")
            value = f"_factory{index}() if {field.name} is _FACTORY else {field.name}"
        else:
            parameters.append(field.name)
        lines.append(f"    _set{index}(self, {value})")
    source = f"def __init__(self, {', '.join(parameters)}):\n" + ("\n".join(lines) or "    pass") + "\n"
    exec(source, namespace)
    fast = namespace["__init__"]
    if not _same_parameters(original, fast):
        return None
    return fast


def _same_parameters(original: Callable, fast: Callable) -> bool:
    """The same positional parameters (names, in order) with the same defaults (the very objects),
    and nothing else."""
    old, new = getattr(original, "__code__", None), fast.__code__
    if old is None or old.co_kwonlyargcount or old.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
        return False
    old_defaults, new_defaults = original.__defaults__ or (), fast.__defaults__ or ()
    return old.co_varnames[:old.co_argcount] == new.co_varnames[:new.co_argcount] \
        and len(old_defaults) == len(new_defaults) and all(a is b for a, b in zip(old_defaults, new_defaults))


def _node_classes() -> list[type]:
    # `CSTNode in __mro__`, not issubclass: an ABC's issubclass fills caches of weak references
    # (1.4 MB for libcst's classes), in every process.
    return [value for value in vars(cst).values()
            if isinstance(value, type) and cst.CSTNode in value.__mro__ and not inspect.isabstract(value)]


# class -> (its own __init__, the fast one), for the classes that have one; made on the first
# parse (10 ms), which a run answered from the cache never makes.
_CONSTRUCTORS: Optional[dict[type, tuple[Callable, Callable]]] = None


def _constructors() -> dict[type, tuple[Callable, Callable]]:
    global _CONSTRUCTORS
    if _CONSTRUCTORS is None:
        constructors = {}
        for node_type in _node_classes():
            fast = _fast_init(node_type)
            if fast is not None:
                constructors[node_type] = (node_type.__dict__["__init__"], fast)
        _CONSTRUCTORS = constructors
    return _CONSTRUCTORS


def _free_memory_releaser() -> Optional[Callable[[], None]]:
    """glibc's `malloc_trim(0)`, and how to read the process's peak; None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes
        import resource

        trim = ctypes.CDLL(None).malloc_trim
    except (ImportError, OSError, AttributeError):  # another C library (musl has no malloc_trim)
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    peak = [resource.getrusage(resource.RUSAGE_SELF).ru_maxrss]

    def release() -> None:
        now = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        if now > peak[0]:
            peak[0] = now
            trim(0)

    return release


_NOT_YET = object()
# Made before the first parse (its peak is the one the parses must raise to trim).
_release_free_memory: Any = _NOT_YET


def parse_for_analysis(text: str) -> cst.Module:
    """`libcst.parse_module(text)`, the same tree, built without per-node validation."""
    global _release_free_memory
    if _release_free_memory is _NOT_YET:
        _release_free_memory = _free_memory_releaser()
    if not _SKIPPABLE:
        module = cst.parse_module(text)
        if _release_free_memory is not None:
            _release_free_memory()
        return module
    constructors = _constructors()
    cst.CSTNode.__post_init__ = _without_validation
    for node_type, (_, fast) in constructors.items():
        node_type.__init__ = fast
    try:
        module = cst.parse_module(text)
    finally:
        # Always back to libcst's own: with threads parsing at once, the worst case is that
        # validation comes back on during another thread's parse, which only costs time.
        for node_type, (original, _) in constructors.items():
            node_type.__init__ = original
        cst.CSTNode.__post_init__ = _validating_post_init
    if _release_free_memory is not None:
        _release_free_memory()
    return module
