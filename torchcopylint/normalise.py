"""Files CPython compiles but libcst refuses: a normalised text to lint, positions mapped back.

Two kinds were found (libcst 1.9, CPython 3.11; torch, timm, torchvision, transformers,
diffusers and pytorch-lightning have neither; old research code, notebooks and the fuzz have):

- indentation that mixes tabs and spaces in a way CPython accepts: CPython compares
  indentation by its width with tabs to the next multiple of 8 (and checks that the count of
  characters agrees, else TabError); libcst reads each block's indentation as text added to
  its parent's, so a block indented `"\\t    "` inside one indented `"    "` is refused though
  CPython runs it. Writing every statement's indentation as that many spaces keeps CPython's
  blocks exactly (same widths), and spaces-only indentation always extends its parent's.
- a line holding only a backslash where a statement starts (`def f():` then `\\` then the
  indented body): CPython continues the indentation on the next line, libcst refuses it. The
  line is left empty and its width carried to the next one.

Only the indentation of lines that start a statement (or are blank, or a comment) changes:
lines inside brackets, strings and backslash continuations are left as they are, so string
values never change, and a normalised text is used only if CPython parses it to the same tree
as the original. A position maps back exactly unless it falls inside a rewritten
indentation; a fix is exact when its edits map exactly and, if it writes several lines, none of
the lines it spans was rewritten (its new lines copy indentation from the normalised text).
An inexact fix is kept as an unsafe one, its new lines indented as the original's, for `--diff`
and `--unsafe-fixes`.
"""

from __future__ import annotations

import ast
import dataclasses
import warnings
from dataclasses import dataclass
from typing import Callable, Optional

from torchcopylint.diagnostic import Applicability, Diagnostic, Edit, Fix, Location
from torchcopylint.fix import split_lines
from torchcopylint.linescan import LineScanner
from torchcopylint.source_encoding import without_byte_order_mark

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


TABS = "indentation that mixes tabs and spaces"
CONTINUED = "indentation continued over a line that holds only a backslash"


def normalise(text: str) -> Optional[Normalised]:
    """A text libcst can read that CPython reads as the same program as `text`, or None.

    Statements' indentation is written as spaces, and a line that holds only a backslash at
    the start of a statement (its indentation continues on the next line: CPython 3.11 adds
    the two, 3.12 keeps the first) is left empty and its width carried to the next line. The
    result is kept only if CPython parses it to the same tree (positions aside) as `text`.
    """
    if "\t" not in text and "\f" not in text and "\\" not in text:
        return None
    original = parse_tree(text)
    if original is None:
        return None
    for carried in (_ADDED, _FIRST):
        candidate = _rewritten(text, carried)
        if candidate is None:
            return None
        tree = parse_tree(candidate.text)
        if tree is not None and ast.dump(tree) == ast.dump(original):
            return candidate
        if CONTINUED not in candidate.kind:
            return None  # the carried width did not matter: no other candidate to try
    return None


def _ADDED(carried: int, own: int) -> int:
    return carried + own


def _FIRST(carried: int, own: int) -> int:
    return carried or own


def _rewritten(text: str, combine: Callable[[int, int], int]) -> Optional[Normalised]:
    scanner = LineScanner()
    out: list[str] = []
    rewritten: dict[int, Rewritten] = {}
    kinds: list[str] = []
    carried: Optional[int] = None  # the width a backslash-only line passes on to the next line
    for number, line in enumerate(split_lines(text), 1):
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        if scanner.at_statement_start:
            indentation = body[: len(body) - len(body.lstrip(" \t\f"))]
            rest = body[len(indentation):]
            width = indentation_width(indentation)
            if rest == "\\" and ending:
                carried = width if carried is None else combine(carried, width)
                rewritten[number] = Rewritten(body, 0)
                out.append(ending)
                _add(kinds, CONTINUED)
                continue  # the next line starts the statement, for CPython and here
            if carried is not None:
                width, carried = combine(carried, width), None
            tabs = "\t" in indentation or "\f" in indentation
            if tabs:
                _add(kinds, TABS)
            if tabs or width != len(indentation):
                rewritten[number] = Rewritten(indentation, width)
                body = " " * width + rest
                line = body + ending
        scanner.feed(body)
        out.append(line)
    if not rewritten:
        return None
    return Normalised("".join(out), rewritten, " and ".join(kinds))


def _add(kinds: list[str], kind: str) -> None:
    if kind not in kinds:
        kinds.append(kind)


def parse_tree(text: str) -> Optional[ast.Module]:
    """CPython's tree of the text (a leading byte order mark skipped), or None."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(without_byte_order_mark(text))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None


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
            spanned = [normalised.lines[line] for line in range(edit.line, edit.end_line + 1)
                       if line in normalised.lines]
            if spanned:
                exact = False
                indented = [change for change in spanned if change.width and not change.original.endswith("\\")]
                if indented:
                    content = _respelled(content, indented[0])
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
