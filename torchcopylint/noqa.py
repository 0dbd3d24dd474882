"""`# noqa`, `# noqa: TCL005` on the flagged line, file-level `# torchcopylint: noqa`, and `--add-noqa`.

A finding's `# noqa` goes on its first line; when no comment can end that line (the line
ends inside a string that goes on, or with a backslash continuation), on the first line
after it where one can, as ruff does. `--add-noqa` writes it there, and a lint reads it there.
"""

from __future__ import annotations

import re
from typing import Iterable, Optional

from torchcopylint.diagnostic import Diagnostic
from torchcopylint.fix import split_lines
from torchcopylint.linescan import LineScanner

_LINE = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.I)
_FILE = re.compile(r"^\s*#\s*torchcopylint\s*:\s*noqa\b", re.I | re.M)
# Findings no line comment can silence: a file that could not be read or parsed.
_FILE_LEVEL_PREFIX = "TCL9"


def file_is_exempt(text: str) -> bool:
    return _FILE.search(text) is not None


def suppressed_codes(line: str) -> Optional[set[str]]:
    """None when the line has no noqa; an empty set for a bare `# noqa` (everything)."""
    match = _LINE.search(line)
    if match is None:
        return None
    codes = match.group("codes")
    if not codes:
        return set()
    return {code.upper() for code in re.split(r"[\s,]+", codes) if code}


def is_suppressed(code: str, line: str) -> bool:
    codes = suppressed_codes(line)
    return codes is not None and (not codes or code in codes)


def directive_line(lines: list[str], line: int, column: int) -> Optional[int]:
    """The line (1-based) whose `# noqa` covers a finding that starts at (line, column)."""
    scanner = LineScanner()
    for number in range(line, len(lines) + 1):
        body = lines[number - 1].rstrip("\r\n")
        scanner.feed(body[column - 1 :] if number == line else body)
        if scanner.comment_may_end_line:
            return number
    return None


def is_suppressed_at(code: str, lines: list[str], line: int, column: int) -> bool:
    """Whether a `# noqa` silences `code` found at (line, column); `lines` keep their endings."""
    if 1 <= line <= len(lines) and is_suppressed(code, lines[line - 1]):
        return True
    target = directive_line(lines, line, column) if 1 <= line <= len(lines) else None
    return target is not None and target != line and is_suppressed(code, lines[target - 1])


def add_noqa(text: str, diagnostics: Iterable[Diagnostic]) -> tuple[str, int]:
    """`text` with a `# noqa: CODES` on each line that needs one; returns it and how many lines changed.

    An existing `# noqa: X` is extended (codes sorted, none twice); a bare `# noqa` already
    covers everything. Positions are those of `diagnostics` in `text`.
    """
    lines = split_lines(text)
    wanted: dict[int, set[str]] = {}
    for diagnostic in diagnostics:
        if diagnostic.code.startswith(_FILE_LEVEL_PREFIX):
            continue
        target = directive_line(lines, diagnostic.location.line, diagnostic.location.column)
        if target is not None:
            wanted.setdefault(target, set()).add(diagnostic.code)
    changed = 0
    for number, codes in wanted.items():
        line = lines[number - 1]
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        match = _LINE.search(body)
        existing = suppressed_codes(body)
        if existing is not None and (not existing or codes <= existing):
            continue
        if match is None:
            body = f"{body.rstrip()}  # noqa: {', '.join(sorted(codes))}"
        else:
            merged = ", ".join(sorted(existing | codes))
            body = f"{body[: match.start()]}# noqa: {merged}{body[match.end():]}"
        lines[number - 1] = body + ending
        changed += 1
    return "".join(lines), changed
