"""TCL010 data-write-under-autograd: a write through `.data` into a tensor a pending backward saved."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from torchcopylint.analysis.aliasing import FunctionFacts
from torchcopylint.analysis.facts import ModuleFacts
from torchcopylint.diagnostic import Applicability
from torchcopylint.analysis.graphs import (
    DataWrite,
    data_writes,
    graph_uses,
    loss_slice,
    saved_uses,
    written_tensor,
)
from torchcopylint.rules.base import Finding, NodeFix, Rule
from torchcopylint.rules.edits import method_call


class DataWriteUnderAutograd(Rule):
    code = "TCL010"
    name = "data-write-under-autograd"
    summary = "A write through `.data` into a tensor autograd saved for a pending backward: a silently wrong gradient"
    fix_availability = "unsafe"
    triggers = (b".data",)

    def check(self, facts: ModuleFacts) -> Iterator[Finding]:
        for function in facts.all_functions():
            writes = data_writes(function)
            if not writes:
                continue
            uses = graph_uses(function, facts)
            if not uses:
                continue
            slices: dict = {}
            for write in writes:
                order = function.order_of(write.statement)
                written = written_tensor(write, function, facts)
                if written is None:
                    continue
                for use in uses:
                    if function.order_of(use.statement) <= order:
                        continue
                    if use not in slices:
                        slices[use] = loss_slice(use.loss, use.statement, function, facts)
                    saved = [found for found in saved_uses(written, slices[use], function, facts)
                             if function.order_of(found.statement) < order]
                    if saved:
                        yield self._finding(facts, function, write, written.label, saved[0], use)
                        break

    def _finding(self, facts: ModuleFacts, function: FunctionFacts, write: DataWrite, label: str, saved, use) -> Finding:
        backward_line = facts.line_of(use.statement)
        message = (
            f"`{_one_line(facts, write.node)}` writes `{label}` through `.data` while the backward at line "
            f"{backward_line} is pending, after {saved.how} (line {facts.line_of(saved.statement)}) saved it for "
            f"that backward: `.data` has a version counter of its own, so the backward silently uses the new values "
            f"(a wrong gradient, no error); write after the backward, under `torch.no_grad()`, without `.data`"
        )
        return self.finding(write.node, message, _move_after_backward(facts, function, write, use),
                            written=label, use_line=facts.line_of(saved.statement), backward_line=backward_line)


def _one_line(facts: ModuleFacts, node: cst.CSTNode, limit: int = 60) -> str:
    text = " ".join(facts.code_for(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ------------------------------------------------------------------------- the fix


def _move_after_backward(facts: ModuleFacts, function: FunctionFacts, write: DataWrite, use) -> Optional[NodeFix]:
    """Move the write to just after the backward, under `torch.no_grad()`, without `.data`.

    Offered when the write's line (or a `for` loop whose body is that line alone) and the backward's
    line are statements of one block, with only simple statements between them: the statements
    between move up by one place, and the write takes the backward's place after it.
    """
    torch_name = facts.names.local_name_of("torch")
    write_line = function.line_of_statement.get(write.statement)
    backward_line = function.line_of_statement.get(use.statement)
    if torch_name is None or write_line is None or backward_line is None or len(write_line.body) != 1:
        return None
    block = _block_holding(function.node, backward_line)
    if block is None:
        return None
    index_of_backward = block.index(backward_line)
    moved = None
    for index, statement in enumerate(block[:index_of_backward]):
        if statement is write_line or (isinstance(statement, cst.For) and _only_line(statement) is write_line):
            moved = index
    if moved is None:
        return None
    rest = block[moved + 1: index_of_backward + 1]
    if not all(isinstance(statement, cst.SimpleStatementLine) for statement in rest):
        return None
    rewritten = _without_data(write)
    if rewritten is None:
        return None
    indent = facts.indentation_of(block[moved])  # as written: a tab-indented file keeps its tabs
    original = block[moved]
    new_statement = write_line.with_changes(body=[rewritten], leading_lines=[],
                                            trailing_whitespace=cst.TrailingWhitespace())
    if isinstance(original, cst.For):
        new_statement = original.with_changes(body=original.body.with_changes(body=[new_statement]),
                                              leading_lines=[])
    code = facts.module.code_for_node(new_statement).rstrip("\n")
    body = "\n".join(f"{indent}{facts.module.default_indent}{line}" if line else line for line in code.split("\n"))
    replacements = []
    for current, following in zip(block[moved: index_of_backward], rest):
        replacements.append((current, _bare_code(facts, following)))
    replacements.append((backward_line, f"with {torch_name}.no_grad():\n{body}"))
    return NodeFix(Applicability.UNSAFE, "Write after the backward, under `torch.no_grad()`, without `.data`", tuple(replacements))


def _bare_code(facts: ModuleFacts, statement: cst.SimpleStatementLine) -> str:
    """The statement's text as its position spans it: no comments above, no trailing comment."""
    bare = statement.with_changes(leading_lines=[], trailing_whitespace=cst.TrailingWhitespace())
    return facts.module.code_for_node(bare).rstrip("\n")


def _only_line(loop: cst.For) -> Optional[cst.CSTNode]:
    body = loop.body
    if loop.orelse is None and isinstance(body, cst.IndentedBlock) and len(body.body) == 1:
        return body.body[0]
    return None


def _block_holding(node: cst.CSTNode, statement: cst.CSTNode) -> Optional[list]:
    """The statement list (a function body, a loop's body...) that holds `statement` directly."""
    pending = [node]
    while pending:
        current = pending.pop()
        body = getattr(current, "body", None)
        statements = body.body if isinstance(body, cst.IndentedBlock) else body if isinstance(current, cst.Module) else None
        if isinstance(statements, (list, tuple)):
            if statement in statements:
                return list(statements)
            pending.extend(s for s in statements if isinstance(s, cst.BaseCompoundStatement))
        for attribute in ("orelse", "finalbody"):
            other = getattr(current, attribute, None)
            if other is not None:
                pending.append(other)
        for handler in getattr(current, "handlers", ()) or ():
            pending.append(handler)
    return None


def _without_data(write: DataWrite) -> Optional[cst.BaseSmallStatement]:
    """The write as it reads without `.data`: `w.add_(v)`, `w[i] = v`, `w += v`, `w.data = v` -> `w.copy_(v)`."""
    statement = write.statement
    if isinstance(statement, cst.Assign) and len(statement.targets) == 1 and statement.targets[0].target is write.data:
        return cst.Expr(method_call(write.written, "copy_", [cst.Arg(statement.value)]))
    if isinstance(statement, (cst.Expr, cst.Assign, cst.AugAssign)):
        return statement.deep_replace(write.data, write.written)
    return None
