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
"""

from __future__ import annotations

import libcst as cst

_validating_post_init = cst.CSTNode.__post_init__


def _without_validation(self: cst.CSTNode) -> None:
    pass


def _knows_this_libcst() -> bool:
    code = getattr(_validating_post_init, "__code__", None)
    return code is not None and _validating_post_init.__qualname__ == "CSTNode.__post_init__" \
        and code.co_names == ("_validate",)


_SKIPPABLE = _knows_this_libcst()


def parse_for_analysis(text: str) -> cst.Module:
    """`libcst.parse_module(text)`, the same tree, built without per-node validation."""
    if not _SKIPPABLE:
        return cst.parse_module(text)
    cst.CSTNode.__post_init__ = _without_validation
    try:
        return cst.parse_module(text)
    finally:
        # Always back to libcst's own: with threads parsing at once, the worst case is that
        # validation comes back on during another thread's parse, which only costs time.
        cst.CSTNode.__post_init__ = _validating_post_init
