"""Where losses are backpropagated: `loss.backward()`, `scaler.scale(loss).backward()`,
`accelerator.backward(loss)`, `self.manual_backward(loss)`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from torchcopylint.analysis.aliasing import FunctionFacts


@dataclass(frozen=True)
class Backward:
    call: cst.Call
    loss: cst.BaseExpression  # the expression backpropagated from
    statement: cst.CSTNode


def backward_calls(function: FunctionFacts) -> list[Backward]:
    found = []
    for call, statement in function.call_statement.items():
        loss = backpropagated_expression(call, function)
        if loss is not None:
            found.append(Backward(call, loss, statement))
    return found


def backpropagated_expression(call: cst.Call, function: FunctionFacts) -> Optional[cst.BaseExpression]:
    func = call.func
    if not isinstance(func, cst.Attribute):
        return None
    method = func.attr.value
    positional = [arg.value for arg in call.args if arg.keyword is None]
    if method == "manual_backward":
        return positional[0] if positional else None
    if method != "backward":
        return None
    receiver = func.value
    # `scaler.scale(loss).backward()`: AMP's scaler multiplies; the loss is inside.
    if isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Attribute) \
            and receiver.func.attr.value == "scale" and receiver.args:
        return receiver.args[0].value
    if positional and not _is_tensor(receiver, function):
        # `accelerator.backward(loss)`, `torch.autograd.backward(loss)`: the loss is the argument.
        return positional[0]
    return receiver


def _is_tensor(expr: cst.BaseExpression, function: FunctionFacts) -> bool:
    if isinstance(expr, cst.Name):
        bindings = function.bindings_at(expr)
        return bool(bindings) and all(binding.tensorness.is_tensor for binding in bindings)
    return not isinstance(expr, cst.Attribute)
