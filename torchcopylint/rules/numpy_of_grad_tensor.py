"""TCL009 numpy-of-grad-tensor: `.numpy()` / `np.asarray(t)` of a tensor that requires grad, in grad mode."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from torchcopylint.analysis.autograd import ASSUMED
from torchcopylint.analysis.facts import ModuleFacts
from torchcopylint.analysis.torchnames import numpy_name
from torchcopylint.rules.base import Finding, NodeFix, Rule
from torchcopylint.rules.edits import method_call

NUMPY_ERROR = "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
# numpy functions that call the tensor's `.numpy()` (through `__array__`).
CONVERTERS = frozenset({"numpy.asarray", "numpy.array", "numpy.asanyarray", "numpy.ascontiguousarray"})


class NumpyOfGradTensor(Rule):
    code = "TCL009"
    name = "numpy-of-grad-tensor"
    summary = "`.numpy()` of a tensor that requires grad: RuntimeError at run time; detach first"
    fix_availability = "safe"
    triggers = (b"numpy", b"asarray", b"np.array")

    def check(self, facts: ModuleFacts) -> Iterator[Finding]:
        if not facts.names.imports_torch:
            return
        for call, tensor in _conversions(facts):
            site = facts.call_site(call)
            if site is None:
                continue
            function, statement = site
            if not facts.grad_enabled_at(function, statement):
                continue  # numpy() checks requires_grad only in grad mode
            if type(tensor) is cst.Name and facts.type_tested(call, tensor.value):
                continue  # `elif type(x) == Image.Image: np.array(x)`: a branch for what is no tensor
            # A network of unknown class (loaded, built by a factory, a `model` argument) counts, with
            # the assumption that it has trainable parameters stated in the message.
            origin = facts.autograd.origin(tensor, function, statement, ASSUMED)
            passed_by = None
            if origin is None:
                # A wrapper (`def to_np(t): return t.cpu().numpy()`) handed a grad tensor by a caller.
                passed_by = facts.autograd.origin_from_callers(tensor, function, ASSUMED)
                # (`def to_np(x): if isinstance(x, torch.Tensor): return x.detach().numpy()`, then `return
                # np.array(x)`: a helper that branches on what it is given has a branch for the callers' tensor.)
                dispatching = type(tensor) is cst.Name and facts.dispatches_on_type_of(function, tensor.value)
                if passed_by is None or dispatching:
                    continue
                origin = passed_by[2]
            if origin.assumption and facts.names.other_framework:
                # The module also imports TensorFlow (or another framework): a network of unknown class
                # may be a Keras model, whose output's `.numpy()` is that framework's own.
                continue
            shown = facts.code_for(tensor)
            fix = _detach_fix(call, tensor)
            why = f"{origin.description}, line {facts.line_of(origin.node)}"
            if origin.derived:
                why = f"computed in grad mode from {why}"
            condition = f"{origin.assumption}, " if origin.assumption else ""
            context = {}
            if passed_by is not None:
                caller_call, passed, _ = passed_by
                why = f"the call at line {facts.line_of(caller_call)} passes `{_one_line(facts.code_for(passed))}`, " \
                      f"{why}"
                # --verify runs the caller: the wrapper alone would be given a stand-in of its own.
                context["caller_line"] = facts.line_of(caller_call)
            yield self.finding(
                call,
                f"`{_one_line(facts.code_for(call))}`: {condition}`{_one_line(shown)}` requires grad "
                f"({why}): RuntimeError: {NUMPY_ERROR}",
                fix,
                tensor=shown,
                origin_line=facts.line_of(origin.node),
                assumption=origin.assumption,
                **context,
            )


def _conversions(facts: ModuleFacts) -> Iterator[tuple[cst.Call, cst.BaseExpression]]:
    """(call, the tensor it converts) for `t.numpy()` and `np.asarray(t)` / `np.array(t)`."""
    for call in facts.method_calls("numpy"):
        if any(arg.keyword is not None and arg.keyword.value == "force" for arg in call.args) or \
                any(arg.keyword is None for arg in call.args):
            continue  # `numpy(force=True)` detaches and copies to the CPU itself
        yield call, call.func.value
    numpy = facts.numpy
    if not numpy:
        return
    for call in facts.calls:
        if not call.args or call.args[0].keyword is not None or call.args[0].star:
            continue
        if numpy_name(call.func, numpy) in CONVERTERS:
            yield call, call.args[0].value


def _detach_fix(call: cst.Call, tensor: cst.BaseExpression) -> NodeFix:
    """`t` -> `t.detach().cpu()`; where the chain already has `.cpu()`, `.detach()` goes just before it."""
    cpu = _cpu_call(tensor)
    if cpu is None:
        fixed = method_call(method_call(tensor, "detach"), "cpu")
        if tensor is call.func.value:
            # The method form: rewrite the whole call, so that a parenthesized receiver keeps one pair.
            return Rule.safe_fix("Detach (and move to the CPU) before converting to NumPy", call,
                                 call.with_changes(func=call.func.with_changes(value=fixed)))
        return Rule.safe_fix("Detach (and move to the CPU) before converting to NumPy", tensor, fixed)
    detached = cpu.with_changes(func=cpu.func.with_changes(value=method_call(cpu.func.value, "detach")))
    return Rule.safe_fix("Detach before converting to NumPy", cpu, detached)


def _cpu_call(tensor: cst.BaseExpression) -> Optional[cst.Call]:
    """The outermost `.cpu()` / `.to("cpu")` of the receiver chain, if it ends in one."""
    if isinstance(tensor, cst.Call) and isinstance(tensor.func, cst.Attribute):
        method = tensor.func.attr.value
        if method == "cpu" or (method == "to" and len(tensor.args) == 1
                               and isinstance(tensor.args[0].value, cst.SimpleString)
                               and tensor.args[0].value.evaluated_value == "cpu"):
            return tensor
    return None


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."
