"""Fast access to a libcst node's children, without the trivia.

libcst's own `node.children` rebuilds the node through a visitor on every call; walking a module
that way cost three times its parse. The analysis never looks at whitespace, comments,
brackets or commas, so `child_nodes` reads only the fields that can hold syntax, straight off
the dataclass, in source order.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Iterator

import libcst as cst

# Nodes that are only layout or punctuation.
TRIVIA: tuple[type, ...] = (
    cst.BaseParenthesizableWhitespace, cst.EmptyLine, cst.TrailingWhitespace, cst.Newline, cst.Comment,
    cst.LeftParen, cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket,
    cst.LeftCurlyBrace, cst.RightCurlyBrace, cst.Comma, cst.Dot, cst.Colon, cst.Semicolon, cst.AssignEqual,
)

# Where a dataclass declares its fields in another order than the source text has them.
_SOURCE_ORDER: dict[type, tuple[str, ...]] = {
    cst.Arg: ("keyword", "value"),
    cst.IfExp: ("body", "test", "orelse"),
    cst.ExceptHandler: ("type", "name", "body"),
    cst.ExceptStarHandler: ("type", "name", "body"),
    cst.FunctionDef: ("decorators", "asynchronous", "name", "type_parameters", "params", "returns", "body"),
    cst.ClassDef: ("decorators", "name", "type_parameters", "bases", "keywords", "body"),
    cst.For: ("asynchronous", "target", "iter", "body", "orelse"),
    cst.With: ("asynchronous", "items", "body"),
    cst.CompFor: ("asynchronous", "target", "iter", "ifs", "inner_for_in"),
    cst.MatchCase: ("pattern", "guard", "body"),
    cst.Parameters: ("posonly_params", "posonly_ind", "params", "star_arg", "kwonly_params", "star_kwarg"),
    cst.TypeAlias: ("name", "type_parameters", "value"),
}

_syntax_fields: dict[type, tuple[str, ...]] = {}
_NODE_TYPES: set[type] = set()
_OTHER_TYPES: set[type] = set()
# Node types seen so far that can have no syntax children (`Integer`, `SimpleString`, `Add`):
# a walk may skip them without asking child_nodes.
CHILDLESS: set[type] = set()


def child_nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The children of `node` that are syntax (not TRIVIA), in source order."""
    fields = _syntax_fields.get(type(node))
    if fields is None:
        fields = _syntax_fields[type(node)] = _fields_holding_syntax(type(node))
        if not fields:
            CHILDLESS.add(type(node))
    children: list[cst.CSTNode] = []
    for name in fields:
        value = getattr(node, name)
        kind = type(value)
        if kind is list or kind is tuple:
            children.extend(value)
        elif kind in _NODE_TYPES:
            children.append(value)
        elif kind not in _OTHER_TYPES:
            # libcst's classes are ABCs, whose isinstance is slow: ask once per type.
            (_NODE_TYPES if issubclass(kind, cst.CSTNode) else _OTHER_TYPES).add(kind)
            if kind in _NODE_TYPES:
                children.append(value)
    return children


_IS_EXPRESSION: dict[type, bool] = {}


def is_expression(value: object) -> bool:
    """`isinstance(value, cst.BaseExpression)`, asked once per type (an ABC's isinstance is slow)."""
    kind = type(value)
    found = _IS_EXPRESSION.get(kind)
    if found is None:
        found = _IS_EXPRESSION[kind] = isinstance(value, cst.BaseExpression)
    return found


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and everything below it, depth first, in source order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(child_nodes(current)))


def _fields_holding_syntax(node_type: type) -> tuple[str, ...]:
    hints = typing.get_type_hints(node_type)
    names = [field.name for field in dataclasses.fields(node_type)
             if _mentions_syntax(hints.get(field.name))]
    order = _SOURCE_ORDER.get(node_type)
    if order is not None:
        names.sort(key=lambda name: order.index(name) if name in order else len(order))
    return tuple(names)


def _mentions_syntax(annotation) -> bool:
    """Can a field with this annotation hold a node that is not trivia?"""
    if isinstance(annotation, type):
        return issubclass(annotation, cst.CSTNode) and not issubclass(annotation, TRIVIA)
    return any(_mentions_syntax(argument) for argument in typing.get_args(annotation))
