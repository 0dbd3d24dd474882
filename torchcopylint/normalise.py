"""Files CPython compiles but libcst refuses: a normalised text to lint, positions mapped back.

The one kind measured (libcst 1.9 on CPython 3.11; torch, timm, torchvision, transformers,
diffusers and pytorch-lightning have none, old research code and notebooks do) is indentation
that mixes tabs and spaces in a way CPython accepts and libcst does not. CPython compares
indentation by its width with tabs to the next multiple of 8 (and checks that the count of
characters agrees, else TabError); libcst stores each block's indentation as text added to its
parent's, so a block indented `"\\t "` inside one indented `" "` is refused though CPython runs
it. Writing every logical line's indentation as that many spaces keeps CPython's block
structure exactly (same widths), and spaces-only indentation is always an extension of its
parent's, so libcst reads it.

Only the indentation of lines that start a statement (or are blank, or a comment) changes:
lines inside brackets, strings and backslash continuations are left as they are, so string
values never change. A position maps back exactly unless it falls inside a rewritten
indentation; a fix is exact when its edits map exactly and, if it writes several lines, none of
the lines it spans was rewritten (its new lines copy indentation from the normalised text).
An inexact fix is kept as an unsafe one, its new lines indented as the original's, for `--diff`
and `--unsafe-fixes`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

from torchcopylint.diagnostic import Applicability, Diagnostic, Edit, Fix, Location
from torchcopylint.fix import split_lines
from torchcopylint.linescan import LineScanner

TAB_SIZE = 8  # CPython's tokenizer: a tab advances to the next multiple of 8
INEXACT_NOTE = " (this file mixes tabs and spaces: review the indentation of this fix)"


@dataclass(frozen=True)
class Rewritten:
    """One line whose indentation was rewritten."""

    original: str  # its indentation as written
    width: int  # the spaces written instead


@dataclass
class Normalised:
    text: str
    lines: dict[int, Rewritten]  # 1-based line -> how its indentation changed
    kind: str  # what was normalised, for messages


def expand_indentation(text: str) -> Optional[Normalised]:
    """The text with every statement's indentation written as spaces; None when there is nothing to expand."""
    if "\t" not in text and "\f" not in text:
        return None
    scanner = LineScanner()
    out: list[str] = []
    rewritten: dict[int, Rewritten] = {}
    for number, line in enumerate(split_lines(text), 1):
        body = line.rstrip("\r\n")
        if scanner.at_statement_start:
            indentation = body[: len(body) - len(body.lstrip(" \t\f"))]
            if "\t" in indentation or "\f" in indentation:
                width = indentation_width(indentation)
                rewritten[number] = Rewritten(indentation, width)
                body_rest = body[len(indentation):]
                line = " " * width + body_rest + line[len(body):]
                body = " " * width + body_rest
        scanner.feed(body)
        out.append(line)
    if not rewritten:
        return None
    return Normalised("".join(out), rewritten, "indentation that mixes tabs and spaces")


def indentation_width(indentation: str) -> int:
    """The column CPython's tokenizer reaches over this indentation."""
    column = 0
    for char in indentation:
        if char == "\t":
            column = (column // TAB_SIZE + 1) * TAB_SIZE
        elif char == "\f":
            column = 0  # a form feed resets the count, as in CPython's tokenizer
        else:
            column += 1
    return column


def original_column(normalised: Normalised, line: int, column: int) -> tuple[int, bool]:
    """(1-based column in the original line, whether that is exactly the same character)."""
    change = normalised.lines.get(line)
    if change is None:
        return column, True
    offset = column - 1
    if offset >= change.width:
        return offset - change.width + len(change.original) + 1, True
    if offset == 0:
        return 1, True
    return len(change.original) + 1, False  # inside the indentation: its end is the nearest character


def to_original(diagnostic: Diagnostic, normalised: Normalised) -> Diagnostic:
    """A diagnostic found in the normalised text, in the original text's positions."""
    location = diagnostic.location
    column, _ = original_column(normalised, location.line, location.column)
    end_column, _ = original_column(normalised, location.end_line, location.end_column)
    mapped = Location(location.path, location.line, column, location.end_line, end_column, location.cell)
    fix = diagnostic.fix
    if fix is not None:
        fix = _fix_to_original(fix, normalised)
    return dataclasses.replace(diagnostic, location=mapped, fix=fix)


def _fix_to_original(fix: Fix, normalised: Normalised) -> Fix:
    exact = True
    edits = []
    for edit in fix.edits:
        column, start_exact = original_column(normalised, edit.line, edit.column)
        end_column, end_exact = original_column(normalised, edit.end_line, edit.end_column)
        content = edit.content
        exact = exact and start_exact and end_exact
        if "\n" in content or "\r" in content:
            spanned = [line for line in range(edit.line, edit.end_line + 1) if line in normalised.lines]
            if spanned:
                exact = False
                content = _respelled(content, normalised.lines[spanned[0]])
        edits.append(Edit(edit.line, column, edit.end_line, end_column, content))
    if exact:
        return dataclasses.replace(fix, edits=tuple(edits))
    return Fix(Applicability.UNSAFE, fix.description + INEXACT_NOTE, tuple(edits))


def _respelled(content: str, change: Rewritten) -> str:
    """New lines indented as the rewritten line was in the original: its spaces back to its tabs."""
    spaces = " " * change.width
    lines = split_lines(content)
    return "".join([lines[0], *(change.original + line[change.width:] if line.startswith(spaces) else line
                                for line in lines[1:])])
