"""The rule pages (rules/TCLnnn.md): finding them in a checkout or in an installed wheel."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

_PACKAGE_DIR = Path(__file__).resolve().parent


def pages_directory() -> Optional[Path]:
    """Where the pages are: inside the package for a wheel, the repository's rules/ otherwise."""
    for candidate in (_PACKAGE_DIR / "rule_pages", _PACKAGE_DIR.parent / "rules"):
        if candidate.is_dir() and any(candidate.glob("TCL*.md")):
            return candidate
    return None


def page_text(code: str) -> Optional[str]:
    directory = pages_directory()
    if directory is None:
        return None
    path = directory / f"{code.upper()}.md"
    return path.read_text(encoding="utf-8") if path.is_file() else None


@dataclass(frozen=True)
class Example:
    """A fenced example of a page: ```python flagged lines=N[,M], ```python clean or ```python fixed."""

    code: str  # the rule the page documents
    kind: str  # "flagged", "clean" or "fixed"
    source: str
    line: int  # line of the opening fence in the page, for test ids
    info: str = ""  # the rest of the fence's info string, e.g. "lines=3,5"
    # For a flagged example: the 1-based lines, within the example, where the rule
    # reports (a line given twice means two diagnostics on it). Empty otherwise.
    lines: tuple[int, ...] = ()


_FENCE = re.compile(r"^```python[ \t]+(flagged|clean|fixed)\b([^\n]*)\n(.*?)^```[ \t]*$", re.S | re.M)
_LINES = re.compile(r"(?:^|\s)lines=([0-9][0-9, ]*)")


def _fence_lines(info: str) -> tuple[int, ...]:
    match = _LINES.search(info)
    if match is None:
        return ()
    return tuple(int(part) for part in re.split(r"[,\s]+", match.group(1).strip()) if part)


def page_examples(code: str) -> list[Example]:
    text = page_text(code) or ""
    examples = []
    for match in _FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        info = match.group(2).strip()
        examples.append(Example(code, match.group(1), match.group(3), line, info, _fence_lines(info)))
    return examples


def page_section(code: str, heading: str) -> str:
    """The text under `## heading` of a page, without the heading."""
    text = page_text(code) or ""
    match = re.search(rf"^##\s+{re.escape(heading)}\s*$(.*?)(?=^##\s|\Z)", text, re.S | re.M | re.I)
    return match.group(1).strip() if match else ""
