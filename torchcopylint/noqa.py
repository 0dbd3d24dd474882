"""`# noqa`, `# noqa: TCL005` on the flagged line, and file-level `# torchcopylint: noqa`."""

from __future__ import annotations

import re
from typing import Optional

_LINE = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.I)
_FILE = re.compile(r"^\s*#\s*torchcopylint\s*:\s*noqa\b", re.I | re.M)


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
