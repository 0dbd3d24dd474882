"""TCL002 alias-mutated-in-place: `y = x` (or a view of x) read after an in-place write to x's storage."""

from __future__ import annotations

from typing import Iterator


from torchcopylint.analysis.aliasing import Binding, FunctionFacts
from torchcopylint.analysis.facts import ModuleFacts
from torchcopylint.rules.base import Finding, Rule
from torchcopylint.rules.edits import method_call

# Any in-place write spells one of these; a file with none cannot have the bug. The engine
# matches them token-wise (`x.add_ (1)`, `x[0]  = v`, `out = c` match too). Every augmented
# assignment counts ("**=" and "//=" contain "*=" and "/=").
INPLACE_TRIGGERS = (b"_(", b"inplace", b"+=", b"-=", b"*=", b"/=", b"%=", b"@=", b"&=", b"|=", b"^=", b"<<=",
                    b">>=", b"] =", b"out=", b"True)")


class AliasMutatedInPlace(Rule):
    code = "TCL002"
    name = "alias-mutated-in-place"
    summary = "A name that shares storage with a tensor is read after an in-place write changed that storage"
    fix_availability = "unsafe"
    triggers = INPLACE_TRIGGERS

    def check(self, facts: ModuleFacts) -> Iterator[Finding]:
        for function in facts.all_functions():
            for alias in function.bindings:
                if alias.made_by != "alias" or alias.kind != "assign" or not alias.tensorness.is_tensor:
                    continue
                found = _first_read_after_write(function, alias)
                if found is None:
                    continue
                read, event = found
                source = facts.code_for(alias.value)
                yield self.finding(
                    alias.value,
                    f"`{alias.name}` aliases `{source}`, which {_with_line(event.description, facts.line_of(event.node))} "
                    f"overwrites before `{alias.name}` is read at line {facts.line_of(read.node)}",
                    self.unsafe_fix(f"Copy with `{source}.clone()`", alias.value, method_call(alias.value, "clone")),
                    alias=alias.name,
                    alias_line=facts.line_of(alias.target),
                    event_line=facts.line_of(event.node),
                    read_line=facts.line_of(read.node),
                )


def _first_read_after_write(function: FunctionFacts, alias: Binding):
    if any(function.written_through(event, alias) for event in function.events_on(alias.storages)):
        return None  # the alias is itself written through: the sharing is what the code wants
    for read in sorted(function.reads_of(alias), key=lambda r: function.order_of(r.statement)):
        if read.use != "value":
            continue  # `y.shape`, `y[i] = v`: nothing of the old values is used
        # Earliest write first, so the message is the same from run to run.
        for event in sorted(read.events_since.get(alias, ()), key=lambda e: (function.order_of(e.statement), e.order)):
            # `x[..] = alias[..]` in a loop copies a region of a buffer onto itself, on purpose.
            copies_within = event.kind == "setitem" and event.statement is read.statement
            if event.certainty == "sure" and not copies_within:
                return read, event
    return None


def _with_line(description: str, line: int) -> str:
    """`self.relu (ReLU(inplace=True))` -> `self.relu (ReLU(inplace=True), line 14)`."""
    if description.endswith(")") and " (" in description:
        return f"{description[:-1]}, line {line})"
    return f"{description} (line {line})"
