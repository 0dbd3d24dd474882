"""TCL005 clone-detach-order: `x.clone().detach()` -> `x.detach().clone()`."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from torchcopylint.analysis.facts import ModuleFacts
from torchcopylint.rules.base import Finding, Rule
from torchcopylint.rules.edits import method_call, without_trailing_comma


class CloneDetachOrder(Rule):
    code = "TCL005"
    name = "clone-detach-order"
    summary = "`x.clone().detach()` records an autograd node that is thrown away; use `x.detach().clone()`"
    fix_availability = "safe"
    triggers = (b"clone",)

    def check(self, facts: ModuleFacts) -> Iterator[Finding]:
        for detach in facts.method_calls("detach") + facts.method_calls("detach_"):
            if detach.args:
                continue
            clone = detach.func.value
            cloned = _cloned_tensor(clone, facts)
            if cloned is None:
                continue
            source, clone_args = cloned
            site = facts.call_site(detach)
            if site is None or _records_nothing(site, source, facts):
                continue
            function, statement = site
            fixed = method_call(method_call(source, "detach"), "clone", clone_args)
            waste = (f"`{facts.code_for(detach)}` records a CloneBackward node that is thrown away at once; "
                     f"use `{facts.code_for(fixed)}` (same values, no autograd work)")
            if facts.autograd.origin(source, function, statement) is None:
                passed_by = facts.autograd.origin_from_callers(source, function)
                if passed_by is not None:
                    waste = f"{waste}; the call at line {facts.line_of(passed_by[0])} passes " \
                            f"`{facts.code_for(passed_by[1])}`, which requires grad"
                elif facts.autograd.only_an_argument(source, function, statement):
                    continue  # an argument nothing in sight says anything of: usually data, or a constant
                elif facts.autograd.callers_pass_no_graph(source, function):
                    continue  # every call in the file hands over data, or what no-grad code made
                elif facts.autograd.held_by_an_object(source, function, statement):
                    continue  # state an object keeps (a mask, a buffer, labels): measured mostly data
                else:
                    # Something in sight may make it require grad: say the condition the waste depends on.
                    waste = f"if `{facts.code_for(source)}` requires grad, {waste}"
            yield self.finding(
                detach,
                waste,
                self.safe_fix("Swap to `.detach().clone()`", detach, fixed.with_changes(lpar=detach.lpar, rpar=detach.rpar)),
                source=facts.code_for(source),
            )


def _cloned_tensor(node: cst.BaseExpression, facts: ModuleFacts) -> Optional[tuple[cst.BaseExpression, tuple]]:
    """For `X.clone(kw=...)` or `torch.clone(X, kw=...)`: (X, the keyword arguments). Else None."""
    if not isinstance(node, cst.Call):
        return None
    keywords = tuple(arg for arg in node.args if arg.keyword is not None)
    positional = [arg for arg in node.args if arg.keyword is None]
    if any(arg.star for arg in node.args):
        return None
    if any(arg.keyword.value != "memory_format" for arg in keywords):
        return None
    keywords = tuple(without_trailing_comma(arg) for arg in keywords)
    if facts.names.qualified_name(node.func) == "torch.clone":
        if len(positional) != 1:
            return None
        return positional[0].value, keywords
    if isinstance(node.func, cst.Attribute) and node.func.attr.value == "clone" and not positional:
        if facts.names.qualified_name(node.func) is not None:
            return None  # a torch attribute spelled `.clone`, not a tensor method
        return node.func.value, keywords
    return None


def _records_nothing(site, source: cst.BaseExpression, facts: ModuleFacts) -> bool:
    """Under no-grad, or on a tensor that does not require grad (integer indices and class labels,
    state-dict entries, buffers, factories made without `requires_grad=True`, batches of a data
    loader, gradients, what no-grad code made...), the clone records no autograd node: both orders
    cost the same and there is nothing to report. "Very likely" is enough here (`likely=True`):
    silence is this rule's safe side, since the fixed order is never slower."""
    function, statement = site
    return not facts.grad_enabled_at(function, statement) or \
        facts.autograd.never_requires_grad(source, function, statement, likely=True)
