"""Diagnostics, fixes and noqa comments as Language Server Protocol values.

torchcopylint counts lines from 1 and columns in characters from 1; the protocol counts both
from 0 and columns in the code units the client and server agreed on (UTF-16 unless the
client offers another), which the position codec converts to.
"""

from __future__ import annotations

from typing import Optional, Sequence

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from torchcopylint import noqa, pages
from torchcopylint.diagnostic import Applicability, Diagnostic, Edit, Severity
from torchcopylint.report import rule_url, verdict_label
from torchcopylint.rules import rule_by_code

SOURCE = "torchcopylint"
FIX_ALL_KIND = "source.fixAll.torchcopylint"


def position(lines: Sequence[str], line: int, column: int, codec: PositionCodec) -> types.Position:
    """A 1-based (line, character column) as a protocol position."""
    return codec.position_to_client_units(lines, types.Position(line=max(0, line - 1), character=max(0, column - 1)))


def span(lines: Sequence[str], line: int, column: int, end_line: int, end_column: int,
         codec: PositionCodec) -> types.Range:
    return types.Range(start=position(lines, line, column, codec), end=position(lines, end_line, end_column, codec))


def diagnostic_range(diagnostic: Diagnostic, lines: Sequence[str], codec: PositionCodec) -> types.Range:
    location = diagnostic.location
    return span(lines, location.line, location.column, location.end_line, location.end_column, codec)


def to_lsp(diagnostic: Diagnostic, uri: str, lines: Sequence[str], codec: PositionCodec,
           key: str) -> types.Diagnostic:
    """`key` identifies the finding in the server's memory (for code actions and verify)."""
    where = diagnostic_range(diagnostic, lines, codec)
    message = diagnostic.message
    related = None
    if diagnostic.verdict is not None:
        message = f"{message}\n[--verify] {verdict_label(diagnostic.verdict)}"
        related = [types.DiagnosticRelatedInformation(
            location=types.Location(uri=uri, range=where),
            message=f"--verify {diagnostic.verdict.status}: {diagnostic.verdict.evidence or '(no evidence)'}")]
    return types.Diagnostic(
        range=where,
        message=message,
        severity=types.DiagnosticSeverity.Warning if diagnostic.severity is Severity.WARNING
        else types.DiagnosticSeverity.Error,
        code=diagnostic.code,
        code_description=types.CodeDescription(href=rule_url(diagnostic.code)) if not diagnostic.code.startswith("TCL9")
        else None,
        source=SOURCE,
        related_information=related,
        data={"key": key},
    )


def text_edits(edits: Sequence[Edit], lines: Sequence[str], codec: PositionCodec) -> list[types.TextEdit]:
    return [types.TextEdit(range=span(lines, edit.line, edit.column, edit.end_line, edit.end_column, codec),
                           new_text=edit.content) for edit in edits]


def whole_text_edit(old_text: str, new_text: str, lines: Sequence[str], codec: PositionCodec) -> types.TextEdit:
    """Replace a document's whole text (what fix-all returns, as ruff's server does)."""
    end_line = len(lines)
    end = codec.position_to_client_units(lines, types.Position(line=end_line, character=0)) \
        if not lines or lines[-1].endswith(("\n", "\r")) else \
        position(lines, end_line, len(lines[-1]) + 1, codec)
    return types.TextEdit(range=types.Range(start=types.Position(line=0, character=0), end=end), new_text=new_text)


def fix_title(diagnostic: Diagnostic) -> Optional[str]:
    fix = diagnostic.fix
    if fix is None or not fix.edits:
        return None
    title = f"{diagnostic.code}: {fix.description}"
    return title if fix.applicability is Applicability.SAFE else f"{title} (unsafe fix)"


def noqa_edit(diagnostic: Diagnostic, text: str, lines: Sequence[str], codec: PositionCodec) -> Optional[types.TextEdit]:
    """The one-line edit that adds `# noqa: CODE` where the finding is reported (the line a
    multi-line statement's directive belongs on, merging codes already there)."""
    new_text, added = noqa.add_noqa(text, [diagnostic])
    if not added:
        return None
    old_lines, new_lines = text.splitlines(keepends=True), new_text.splitlines(keepends=True)
    for number, (old, new) in enumerate(zip(old_lines, new_lines)):
        if old != new:
            old_end = len(old.rstrip("\r\n"))
            return types.TextEdit(
                range=span(lines, number + 1, 1, number + 1, old_end + 1, codec),
                new_text=new.rstrip("\r\n"))
    return None


def hover_text(diagnostics: Sequence[Diagnostic]) -> str:
    """Markdown for the findings under the cursor: what the rule flags and why, from its page."""
    parts = []
    for diagnostic in diagnostics:
        rule = rule_by_code(diagnostic.code)
        heading = f"**{diagnostic.code}** {rule.name}" if rule is not None else f"**{diagnostic.code}**"
        section = [heading, "", diagnostic.message]
        if diagnostic.verdict is not None:
            section += ["", f"*--verify:* {verdict_label(diagnostic.verdict)}"]
        if rule is not None:
            flags = _first_paragraph(pages.page_section(diagnostic.code, "What it flags"))
            why = _first_paragraph(pages.page_section(diagnostic.code, "Why it matters"))
            if flags:
                section += ["", f"*What it flags:* {flags}"]
            if why:
                section += ["", f"*Why it matters:* {why}"]
            section += ["", f"[{diagnostic.code} documentation]({rule_url(diagnostic.code)})"]
        parts.append("\n".join(section))
    return "\n\n---\n\n".join(parts)


def _first_paragraph(text: str) -> str:
    return " ".join(text.strip().split("\n\n", 1)[0].split()) if text else ""
