"""Apply the fixes that rules attach to diagnostics, re-lint, and write files safely.

Everything here works on decoded text (`str`). Positions are those of
`diagnostic.Edit`: 1-based lines, 1-based columns counted in characters, end
exclusive. Lines end at "\\n", "\\r\\n" or "\\r" only, which is how Python's
tokenizer and libcst count them; `str.splitlines` would also break at form
feeds, "\\x85" and "\\u2028", and then every position after one would be off.

A leading BOM: libcst drops it and reports line 1 columns as if it were not
there, so `fix_source` hands `relint` the text without it and puts it back on
the result. `apply_edits` applies positions to the text exactly as given.
"""

from __future__ import annotations

import difflib
import os
import re
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence

import libcst

from torchcopylint.diagnostic import Applicability, Diagnostic, Fix
from torchcopylint.source_encoding import BYTE_ORDER_MARK, without_byte_order_mark
from torchcopylint.syntax_errors import cpython_accepts, problem_in

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass
class FixOutcome:
    path: str
    original: str
    fixed: str
    applied: int  # diagnostics whose fix was applied, over all passes
    passes: int  # passes that changed the text
    error: Optional[str] = None  # the fixes broke the syntax; then fixed == original
    converged: bool = True  # False when max_passes ran out while fixes still applied


def split_lines(text: str) -> list[str]:
    """Lines with their endings, broken where Python and libcst break them."""
    lines, start = [], 0
    for match in _LINE_BREAK.finditer(text):
        lines.append(text[start : match.end()])
        start = match.end()
    if start < len(text):
        lines.append(text[start:])
    return lines


def _line_starts(text: str) -> list[int]:
    """Offset where each line starts, plus one past the end so that the
    position just after the last line (a fix that appends) resolves too."""
    starts = [0]
    for line in split_lines(text):
        starts.append(starts[-1] + len(line))
    return starts


def _offset(line_starts: list[int], line: int, column: int) -> Optional[int]:
    """String offset of a (line, column) position; None if it is not in the text."""
    if not 1 <= line <= len(line_starts) or column < 1:
        return None
    offset = line_starts[line - 1] + column - 1
    # A column may point at the line's ending (end of line) but not past it.
    line_end = line_starts[line] if line < len(line_starts) else line_starts[-1]
    return offset if offset <= line_end else None


def _spans(fix: Fix, line_starts: list[int]) -> Optional[list[tuple[int, int, str]]]:
    """The fix's edits as sorted (start, end, content) offsets, or None when
    the fix is malformed (a position outside the text, or edits that overlap
    each other) and must not be applied at all."""
    spans = []
    for edit in fix.edits:
        start = _offset(line_starts, edit.line, edit.column)
        end = _offset(line_starts, edit.end_line, edit.end_column)
        if start is None or end is None or end < start:
            return None
        spans.append((start, end, edit.content))
    spans.sort(key=lambda span: (span[0], span[1]))
    for (_, end, _), (next_start, _, _) in zip(spans, spans[1:]):
        if next_start < end:
            return None
    return spans


def _collides(span: tuple[int, int, str], taken: list[tuple[int, int, str]]) -> bool:
    # Touching counts as colliding: two insertions at one point, or an insertion
    # at the edge of a replacement, have no obvious order. The later fix is
    # simply deferred; the next pass re-lints and offers it again if still due.
    start, end, _ = span
    return any(start <= other_end and other_start <= end for other_start, other_end, _ in taken)


def _allowed(fix: Optional[Fix], unsafe: bool) -> bool:
    if fix is None or not fix.edits:
        return False
    return fix.applicability is Applicability.SAFE or unsafe


def apply_edits(source: str, diagnostics: Sequence[Diagnostic], *, unsafe: bool) -> tuple[str, int]:
    """Apply the allowed fixes of `diagnostics` to `source`.

    Safe fixes always apply, unsafe ones only with `unsafe=True`. A fix is
    applied whole or not at all; when fixes of different diagnostics overlap,
    the one that starts first in the source wins (on a tie, the one listed
    first) and the others wait for the next pass. Returns the new text and the number of fixes applied.
    """
    line_starts = _line_starts(source)
    candidates = []
    for diagnostic in diagnostics:
        if not _allowed(diagnostic.fix, unsafe):
            continue
        spans = _spans(diagnostic.fix, line_starts)
        if spans is not None:
            candidates.append(spans)
    # Stable: fixes that start at the same point keep the diagnostics' order.
    candidates.sort(key=lambda spans: spans[0][0])

    taken: list[tuple[int, int, str]] = []
    applied = 0
    for spans in candidates:
        if any(_collides(span, taken) for span in spans):
            continue
        taken.extend(spans)
        applied += 1

    # Splice left to right from the original text, so no edit shifts another.
    pieces, cursor = [], 0
    for start, end, content in sorted(taken, key=lambda span: span[0]):
        pieces.append(source[cursor:start])
        pieces.append(content)
        cursor = end
    pieces.append(source[cursor:])
    return "".join(pieces), applied


def fix_source(
    source: str,
    path: str,
    relint: Callable[[str], list[Diagnostic]],
    *,
    unsafe: bool,
    max_passes: int = 10,
    apply: Optional[Callable[[str, list[Diagnostic], bool], tuple[str, int]]] = None,
    syntax_error: Optional[Callable[[str], Optional[str]]] = None,
) -> FixOutcome:
    """Lint, fix and re-lint until no fix applies (or `max_passes` run out).

    Each pass's result must parse; if one does not, every change is dropped
    (as ruff does: a fix that breaks syntax makes the earlier ones suspect too)
    and the outcome carries the error with `fixed == original`. A module CPython
    compiled must still compile (libcst accepts some texts CPython refuses).
    A document that is not a module (a notebook) brings its own `apply(text, diagnostics,
    unsafe)` and `syntax_error(text)`.
    """
    has_bom = source.startswith(BYTE_ORDER_MARK)
    text = without_byte_order_mark(source)
    applied_total = passes = 0
    converged = False
    for _ in range(max_passes):
        if apply is None:
            new_text, applied = apply_edits(text, relint(text), unsafe=unsafe)
        else:
            new_text, applied = apply(text, relint(text), unsafe)
        if applied == 0 or new_text == text:
            converged = True
            break
        error = (syntax_error or module_syntax_error)(new_text)
        if error is None and syntax_error is None and not cpython_accepts(new_text) and cpython_accepts(text):
            error = _cpython_message(new_text)
        if error is not None:
            message = f"fixes introduced a syntax error, reverted: {error}"
            return FixOutcome(path, source, source, 0, 0, error=message)
        text = new_text
        applied_total += applied
        passes += 1
    fixed = BYTE_ORDER_MARK + text if has_bom else text
    return FixOutcome(path, source, fixed, applied_total, passes, converged=converged)


def module_syntax_error(text: str) -> Optional[str]:
    """Why the text cannot be linted, or None: libcst parses it, or CPython does (then the linter
    reads a normalised text, normalise.py)."""
    try:
        libcst.parse_module(text)
    except libcst.ParserSyntaxError as exc:
        if cpython_accepts(text):
            return None
        return _cpython_message(text) or str(exc).splitlines()[0]
    return None


def _cpython_message(text: str) -> Optional[str]:
    problem = problem_in(text)
    return None if problem is None else f"{problem.message} (line {problem.line}, column {problem.column})"


def write_atomically(path: Path, text: str, *, encoding: str = "utf-8") -> None:
    """Replace `path` with `text` so that readers see the old file or the new
    one, never a half-written one. Line endings are written exactly as in `text`."""
    target = Path(path).resolve()  # write through a symlink, don't replace the link
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    with tempfile.NamedTemporaryFile(
        "w",
        encoding=encoding,
        newline="",
        dir=target.parent,
        prefix=f".{target.name}.",
        suffix=".tmp",
        delete=False,
    ) as temporary:
        try:
            temporary.write(text)
            temporary.flush()
            os.fsync(temporary.fileno())
            if mode is not None:  # NamedTemporaryFile creates 0600
                os.chmod(temporary.name, mode)
        except BaseException:
            temporary.close()
            os.unlink(temporary.name)
            raise
    try:
        os.replace(temporary.name, target)
    except BaseException:
        os.unlink(temporary.name)
        raise


def unified_diff(path: str, original: str, fixed: str) -> str:
    """A `diff -u` of the fix, headed `--- a/path` / `+++ b/path`; "" if nothing changed."""
    if original == fixed:
        return ""
    lines = difflib.unified_diff(split_lines(original), split_lines(fixed), f"a/{path}", f"b/{path}")
    out = []
    for line in lines:
        if line.endswith(("\n", "\r")):
            out.append(line)
        else:  # last line of a file without a final newline, shown as diff and git do
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)
