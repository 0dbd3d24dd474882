"""Fast access to a libcst node's children, without the trivia.

libcst's own `node.children` rebuilds the node through a visitor on every call; walking a module
that way cost three times its parse. The analysis never looks at whitespace, comments,
brackets or commas, so `child_nodes` reads only the fields that can hold syntax, straight off
the dataclass, in source order.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Iterator, Optional

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


def is_self_attribute(node: object) -> bool:
    """`self.<name>`: an attribute read straight off the method's object."""
    return type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == "self"


def single_index(subscript: cst.Subscript) -> Optional[cst.BaseExpression]:
    """`k` for `x[k]`; None for a slice (`x[1:]`) or several indices (`x[i, j]`)."""
    if len(subscript.slice) == 1 and type(subscript.slice[0].slice) is cst.Index:
        return subscript.slice[0].slice.value
    return None


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and everything below it, depth first, in source order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(child_nodes(current)))


def sum_terms(expression: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The terms of a sum or difference (`a + b - c`), a term scaled by a number counting as that term
    (`0.5 * (a + b)`: `a`, `b`); any other expression is its own one term."""
    if isinstance(expression, cst.BinaryOperation):
        if isinstance(expression.operator, (cst.Add, cst.Subtract)):
            return sum_terms(expression.left) + sum_terms(expression.right)
        if isinstance(expression.operator, (cst.Multiply, cst.Divide)):
            if isinstance(expression.left, (cst.Integer, cst.Float)):
                return sum_terms(expression.right)
            if isinstance(expression.right, (cst.Integer, cst.Float)):
                return sum_terms(expression.left)
    return [expression]


def on_exclusive_branches(root: cst.CSTNode, first: cst.CSTNode, second: cst.CSTNode) -> bool:
    """Do the two nodes lie on the two branches of one `if`/`else` under `root` (one pass runs only one)?"""
    for node in walk(root):
        if type(node) is cst.If and node.orelse is not None:
            body = {id(sub) for sub in walk(node.body)}
            other = {id(sub) for sub in walk(node.orelse)}
            if id(first) in body and id(second) in other or id(second) in body and id(first) in other:
                return True
    return False


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


# Scopes of their own: what they bind and read is not the enclosing code's.
_NESTED_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def name_uses(scope: cst.CSTNode) -> dict[str, tuple[list, list]]:
    """For each name the code of `scope` binds or reads (its own statements, not those of nested
    functions, classes, lambdas or comprehensions): (the nodes that bind it, the Name nodes that read
    it). A name declared `global` or `nonlocal` counts as bound by that declaration (its value may
    come from anywhere)."""
    found: dict[str, tuple[list, list]] = {}

    def bound(name: str, node: cst.CSTNode) -> None:
        found.setdefault(name, ([], []))[0].append(node)

    def targets(target: cst.CSTNode) -> None:
        if type(target) is cst.Name:
            bound(target.value, target)
        elif type(target) in (cst.Tuple, cst.List):
            for element in target.elements:
                targets(element.value)
        elif type(target) is cst.StarredElement:
            targets(target.value)
        else:
            pending.append(target)  # `x[i] = ...`, `self.a = ...`: reads

    if type(scope) is cst.FunctionDef:
        for param in (*scope.params.params, *scope.params.posonly_params, *scope.params.kwonly_params,
                      scope.params.star_arg, scope.params.star_kwarg):
            if isinstance(param, cst.Param):
                bound(param.name.value, param)
        pending = list(child_nodes(scope.body))
    else:
        pending = list(child_nodes(scope)) if type(scope) is cst.Module else [scope]
    while pending:
        node = pending.pop()
        kind = type(node)
        if kind in _NESTED_SCOPES:
            if kind in (cst.FunctionDef, cst.ClassDef):
                bound(node.name.value, node)
            continue
        if kind is cst.Name:
            found.setdefault(node.value, ([], []))[1].append(node)
            continue
        if kind is cst.Attribute:
            pending.append(node.value)  # not `.attr`, a field name
            continue
        if kind is cst.Arg:
            pending.append(node.value)  # not `keyword=`
            continue
        if kind in (cst.Global, cst.Nonlocal):
            for item in node.names:
                bound(item.name.value, node)
            continue
        if kind is cst.Assign:
            for target in node.targets:
                targets(target.target)
            pending.append(node.value)
            continue
        if kind in (cst.AnnAssign, cst.AugAssign):
            targets(node.target)
            if kind is cst.AugAssign and type(node.target) is cst.Name:
                found[node.target.value][1].append(node.target)  # `w += 1` reads `w` too
            if node.value is not None:
                pending.append(node.value)
            continue
        if kind is cst.NamedExpr:
            targets(node.target)
            pending.append(node.value)
            continue
        if kind is cst.For:
            targets(node.target)
            pending.extend(child for child in child_nodes(node) if child is not node.target)
            continue
        if kind is cst.AsName:
            targets(node.name)
            continue
        if kind in (cst.Import, cst.ImportFrom):
            for alias in node.names if isinstance(node.names, (list, tuple)) else ():
                name = alias.asname.name if alias.asname is not None else alias.name
                while type(name) is cst.Attribute:  # `import os.path` binds `os`
                    name = name.value
                if type(name) is cst.Name:
                    bound(name.value, alias)
            continue
        pending.extend(child_nodes(node))
    return found


def writes_gradient(statement: cst.CSTNode) -> bool:
    """`p.grad = ...` (or `p.grad += ...`): an assignment to a tensor's `.grad`."""
    targets = [target.target for target in statement.targets] if type(statement) is cst.Assign else \
        [statement.target] if type(statement) is cst.AugAssign else []
    return any(type(target) is cst.Attribute and target.attr.value == "grad" for target in targets)


def reads_gradient(expr) -> bool:
    """`p.grad`, `p.grad.data`: an attribute chain through `.grad`."""
    while type(expr) is cst.Attribute:
        if expr.attr.value == "grad":
            return True
        expr = expr.value
    return False


# Calls that show a value and compute nothing with it.
SHOWING_CALLS = frozenset({"print", "display"})


def only_shows(statement: cst.CSTNode, name: cst.CSTNode) -> bool:
    """Does the statement do nothing with the name but show it, or an element or attribute of it: a
    notebook cell (or its last line) that is the name alone or a tuple (`b`, `a, b`, `a[0, 0], b[0, 0]`,
    `b, b.shape`), `print(b)`, `print(a, b)`, `print(f"after: {b}")`, `display(b)`?"""
    if type(statement) is not cst.Expr:
        return False
    value = statement.value
    if _selects(value, name):
        return True
    if type(value) is cst.Tuple:
        return any(_selects(element.value, name) for element in value.elements)
    if not (type(value) is cst.Call and type(value.func) is cst.Name and value.func.value in SHOWING_CALLS):
        return False
    return any(_selects(argument.value, name) or type(argument.value) is cst.FormattedString and any(
        type(part) is cst.FormattedStringExpression and _selects(part.expression, name) for part in argument.value.parts)
        for argument in value.args)


# Calls that tell what a value is, not what it holds: `print(f"{t}, {type(t)}")` shows `t` and its type.
IDENTIFYING_CALLS = frozenset({"type", "id"})


def _selects(expr: cst.BaseExpression, name: cst.CSTNode) -> bool:
    """Is `expr` the name, or an element or attribute of it (`b[0, 0]`, `b.shape`), or its type?"""
    if type(expr) is cst.Call and type(expr.func) is cst.Name and expr.func.value in IDENTIFYING_CALLS \
            and len(expr.args) == 1:
        expr = expr.args[0].value
    while type(expr) in (cst.Subscript, cst.Attribute) and expr is not name:
        expr = expr.value
    return expr is name
