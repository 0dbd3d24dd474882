"""TCL008 tensor-copy-construct: `torch.tensor(t)` of a tensor -> `t.detach().clone()`."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from torchcopylint.analysis.facts import ModuleFacts
from torchcopylint.analysis.loaders import Batch
from torchcopylint.analysis.tensors import Tensorness
from torchcopylint.diagnostic import Severity
from torchcopylint.rules.base import Finding, NodeFix, Rule
from torchcopylint.rules.edits import method_call, without_trailing_comma

# Keywords of torch.tensor that `.to(...)` takes with the same meaning.
CONVERSION_KEYWORDS = ("dtype", "device")


class TensorCopyConstruct(Rule):
    code = "TCL008"
    name = "tensor-copy-construct"
    summary = "`torch.tensor(t)` of a tensor copies with a UserWarning; use `t.detach().clone()`"
    severity = Severity.WARNING
    fix_availability = "safe"
    triggers = (b"tensor",)

    def check(self, facts: ModuleFacts) -> Iterator[Finding]:
        if not facts.names.imports_torch:
            return
        for call in facts.calls:
            if facts.names.qualified_name(call.func) != "torch.tensor":
                continue
            if not call.args or call.args[0].keyword is not None or call.args[0].star:
                continue
            source = call.args[0].value
            why = ""
            sure = True
            if type(source) is cst.Name and _never_given_a_tensor(source, facts):
                continue  # `def act(self, state: torch.Tensor)` that every call gives a NumPy array
            if type(source) is cst.Name and facts.type_tested(call, source.value):
                continue  # `if not isinstance(values, torch.Tensor): values = torch.tensor(values)`
            if facts.tensorness(source) is not Tensorness.SURE:
                batch = _loader_batch(call, source, facts)
                if batch is None:
                    continue
                why, sure = _batch_words(source, batch, facts), batch.surely_tensor
            fix = _fix(call, source, sure)
            advice = facts.code_for((fix.replacements[0][1] if fix else method_call(method_call(source, "detach"), "clone")))
            yield self.finding(
                call,
                f"`{facts.code_for(call)}` copy-constructs from a tensor (PyTorch warns){why}; use `{advice}`",
                fix,
                source=facts.code_for(source),
            )


def _never_given_a_tensor(name: cst.Name, facts: ModuleFacts) -> bool:
    """Is `name` a parameter that every call in the file gives a value that is surely not a tensor,
    whatever its annotation says?"""
    passed = facts.arguments_passed(name)
    return bool(passed) and all(facts.tensorness(argument) is Tensorness.NOT for argument in passed)


def _loader_batch(call: cst.Call, source: cst.BaseExpression, facts: ModuleFacts) -> Optional[Batch]:
    """A part of a batch of a data loader: a tensor when the default collate made it."""
    site = facts.call_site(call)
    if site is None:
        return None
    batch = facts.loaders.batch_expression(source, site[0])
    if batch is None or batch.whole or (batch.loader.sure and not batch.loader.default_collate):
        return None  # the whole batch (a tuple, a dict), or what a `collate_fn` of its own makes
    return batch


def _batch_words(source: cst.BaseExpression, batch: Batch, facts: ModuleFacts) -> str:
    """What made `source` a tensor, for the message."""
    shown = facts.code_for(source)
    loader = batch.loader
    if batch.surely_tensor:
        return (f": `{shown}` comes from a batch of `{loader.shown}`, a `DataLoader` (line "
                f"{facts.line_of(loader.built)}) whose default collate makes tensors")
    return (f": `{shown}` comes from a batch of `{loader.shown}`, very likely a `DataLoader` (by its name), "
            f"whose default collate makes tensors")


def _fix(call: cst.Call, source: cst.BaseExpression, sure: bool = True) -> Optional[NodeFix]:
    """The rewrite; unsafe when `source` is only very likely a tensor (a batch of a loader known by
    its name), since on a list or an array `t.detach()` does not exist."""
    keywords = call.args[1:]
    if any(arg.keyword is None for arg in keywords):
        return None
    # `torch.tensor(t.detach().clone())` already has its copy: keep it rather than copy twice.
    copy: cst.BaseExpression = source if _is_detached_copy(source) else method_call(method_call(source, "detach"), "clone")
    conversions = []
    requires_grad = None
    for arg in keywords:
        name = arg.keyword.value
        if name in CONVERSION_KEYWORDS:
            conversions.append(without_trailing_comma(arg))
        elif name == "requires_grad":
            requires_grad = arg.value
        else:
            return None  # pin_memory, names...: no `.to()` equivalent
    if conversions:
        copy = method_call(copy, "to", conversions)
    # `requires_grad=False` is the default of both spellings; anything else is passed on.
    if requires_grad is not None and not (isinstance(requires_grad, cst.Name) and requires_grad.value == "False"):
        copy = method_call(copy, "requires_grad_", [cst.Arg(requires_grad)])
    make = Rule.safe_fix if sure else Rule.unsafe_fix
    return make("Replace with `.detach().clone()`", call, copy.with_changes(lpar=call.lpar, rpar=call.rpar))


def _is_detached_copy(expr: cst.BaseExpression) -> bool:
    """`t.detach().clone()` or `t.clone().detach()`."""
    methods = []
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and not expr.args and len(methods) < 2:
        methods.append(expr.func.attr.value)
        expr = expr.func.value
    return sorted(methods) == ["clone", "detach"]
