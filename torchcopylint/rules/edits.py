"""Small builders for the replacement nodes fixes are made of."""

from __future__ import annotations

from typing import Sequence

import libcst as cst


def as_receiver(expr: cst.BaseExpression) -> cst.BaseExpression:
    """Parenthesize what cannot take a method call as it stands (`(a + b).detach()`)."""
    if isinstance(expr, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def method_call(receiver: cst.BaseExpression, method: str, args: Sequence[cst.Arg] = ()) -> cst.Call:
    """`receiver.method(args)`, parenthesizing the receiver where needed."""
    return cst.Call(func=cst.Attribute(value=as_receiver(receiver), attr=cst.Name(method)), args=tuple(args))


def without_trailing_comma(arg: cst.Arg) -> cst.Arg:
    return arg.with_changes(comma=cst.MaybeSentinel.DEFAULT)
