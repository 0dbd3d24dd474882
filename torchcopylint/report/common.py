"""What more than one report format shares: paths relative to the project root, regions that
viewers accept, rule links, and fingerprints that survive unrelated edits.

The formats (text.py, github.py, ...) import these from here, not from the package: the package's
`render` imports the formats, and a format importing the package back would close a circle
(tests/test_import_cycles.py)."""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence

from torchcopylint import notebook, source_encoding
from torchcopylint.diagnostic import Applicability, Diagnostic, Location, Verdict

if TYPE_CHECKING:
    from torchcopylint.rules.base import Rule

# Where the project and its rule pages are published (SARIF informationUri, JSON "url").
PROJECT_URL = "https://github.com/torchcopylint/torchcopylint"


def rule_url(code: str) -> str:
    return f"{PROJECT_URL}/blob/main/rules/{code}.md"


def verdict_label(verdict: Verdict) -> str:
    """`confirmed: evidence`, or just the status when --verify left no evidence."""
    return f"{verdict.status}: {verdict.evidence}" if verdict.evidence else verdict.status


# The --verify statuses, in the order summaries count them.
VERDICT_STATUSES = ("confirmed", "refuted", "not reached", "unverified")


def verdict_counts(diagnostics: Sequence[Diagnostic]) -> Counter:
    """How many diagnostics --verify gave each status (none when it did not run)."""
    return Counter(d.verdict.status for d in diagnostics if d.verdict is not None)


def verdict_summary(diagnostics: Sequence[Diagnostic]) -> str:
    """`3 confirmed, 1 refuted, 2 unverified`: the statuses --verify gave, those with a count; ""
    without --verify."""
    counts = verdict_counts(diagnostics)
    ordered = [*VERDICT_STATUSES, *sorted(set(counts) - set(VERDICT_STATUSES))]
    return ", ".join(f"{counts[status]} {status}" for status in ordered if counts[status])


@dataclass(frozen=True)
class ReportOptions:
    """Everything a format may need besides the diagnostics themselves."""

    rules: Sequence["Rule"]
    root: Path
    show_fixes: bool = False
    statistics: bool = False
    color: bool = False
    files_checked: int = 0
    fixed: int = 0
    unsafe_fixes_hidden: bool = True
    quiet: bool = False  # text: the findings only, no summary
    # The flagged files' text, read once (fingerprints, notebook positions); render() fills it.
    sources: Optional["SourceLines"] = None

    def file_region(self, location: Location) -> "Region":
        """Where a viewer of the file shows the location: in a notebook, the line of the JSON file."""
        return self.sources.file_region(location) if self.sources is not None else Region.of(location)

    def rule_for(self, code: str) -> Optional["Rule"]:
        for rule in self.rules:
            if rule.code == code:
                return rule
        return None

    def fix_is_applied_by_fix(self, diagnostic: Diagnostic) -> bool:
        """Whether `--fix` (with the current --unsafe-fixes setting) would apply this fix."""
        if diagnostic.fix is None:
            return False
        return diagnostic.fix.applicability is Applicability.SAFE or not self.unsafe_fixes_hidden

    def fix_is_hidden(self, diagnostic: Diagnostic) -> bool:
        return diagnostic.fix is not None and not self.fix_is_applied_by_fix(diagnostic)


# --- paths -------------------------------------------------------------------------------


def _absolute(path: str, root: Path) -> str:
    """Normalise without resolving symlinks: the user's spelling of the tree is what they know."""
    candidate = path if os.path.isabs(path) else os.path.join(os.fspath(root), path)
    return os.path.normpath(os.path.abspath(candidate))


def relative_path(path: str, root: Path) -> str:
    """`path` relative to `root` with forward slashes; absolute (posix) when outside it."""
    absolute = Path(_absolute(path, root))
    # Compare as spelled first, then with symlinks resolved (a tmp dir behind /private, ...).
    attempts = (
        (absolute, Path(os.path.abspath(root))),
        (Path(os.path.realpath(absolute)), Path(os.path.realpath(root))),
    )
    for file, base in attempts:
        try:
            return file.relative_to(base).as_posix()
        except ValueError:
            pass
    return absolute.as_posix()


def is_under_root(path: str, root: Path) -> bool:
    return not Path(relative_path(path, root)).is_absolute()


# --- regions -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Region:
    """A location clamped to what viewers accept: 1-based, and never ending before it starts."""

    line: int
    column: int
    end_line: int
    end_column: int

    @classmethod
    def of(cls, location: Location) -> "Region":
        line = max(1, location.line)
        column = max(1, location.column)
        end_line = max(line, location.end_line)
        end_column = max(1, location.end_column)
        if end_line == line:
            end_column = max(column, end_column)
        return cls(line, column, end_line, end_column)


# --- fingerprints ---------------------------------------------------------------------------


class SourceLines:
    """The text of flagged lines, read from disk once per file; missing files read as empty.

    A notebook's lines are those of its cells (`cell` given), and its locations have a second
    place, in the JSON file, where viewers of the file (GitHub annotations, code scanning) show them.
    """

    def __init__(self, root: Path) -> None:
        self._root = root
        self._files: dict[str, list[str]] = {}
        self._notebooks: dict[str, Optional["notebook.Notebook"]] = {}

    def line(self, path: str, number: int, cell: Optional[int] = None) -> Optional[str]:
        if cell is not None:
            document = self._notebook(path)
            code_cell = document.cell_numbered(cell) if document is not None else None
            lines = code_cell.lines() if code_cell is not None else []
        else:
            lines = self._lines(path)
        return lines[number - 1] if 1 <= number <= len(lines) else None

    def file_region(self, location: Location) -> "Region":
        if location.cell is None:
            return Region.of(location)
        document = self._notebook(location.path)
        start = end = None
        if document is not None:
            start = notebook.file_position(document, location.cell, location.line, location.column)
            end = notebook.file_position(document, location.cell, location.end_line, location.end_column)
        if start is None:  # the notebook changed or went away since it was linted
            return Region(1, 1, 1, 1)
        if end is None or end < start:
            end = (start[0], start[1] + 1)
        return Region(start[0], start[1], end[0], end[1])

    def _notebook(self, path: str) -> Optional["notebook.Notebook"]:
        key = _absolute(path, self._root)
        if key not in self._notebooks:
            try:
                self._notebooks[key] = notebook.read(Path(key).read_bytes().decode("utf-8"))
            except (OSError, UnicodeDecodeError, notebook.NotebookError):
                self._notebooks[key] = None
        return self._notebooks[key]

    def _lines(self, path: str) -> list[str]:
        key = _absolute(path, self._root)
        if key not in self._files:
            try:
                data = Path(key).read_bytes()
                text = source_encoding.without_byte_order_mark(
                    data.decode(source_encoding.encoding_of(data), errors="replace"))
            except OSError:
                text = ""
            # Python's own line breaks only: str.splitlines would also split on \f and \x1c.
            self._files[key] = text.replace("\r\n", "\n").replace("\r", "\n").split("\n") if text else []
        return self._files[key]


def location_fingerprints(diagnostics: Sequence[Diagnostic], root: Path,
                          sources: Optional[SourceLines] = None) -> list[tuple[str, int]]:
    """Per diagnostic: (sha256 of path, code and the flagged line's text, occurrence number).

    The line's text rather than its number keeps the fingerprint stable when code above it
    moves; the occurrence number (1, 2, ...) separates identical lines in one file, as
    GitHub's own `primaryLocationLineHash` does. Without the file, the message stands in.
    """
    # Imported here: hashlib loads OpenSSL (3.6 MB), which the lint's worker processes, forked
    # from this one, would carry for nothing.
    import hashlib

    sources = sources if sources is not None else SourceLines(root)
    seen: Counter[str] = Counter()
    fingerprints = []
    for diagnostic in diagnostics:
        path = relative_path(diagnostic.path, root)
        text = sources.line(diagnostic.path, diagnostic.location.line, diagnostic.location.cell)
        content = text.strip() if text is not None else diagnostic.message
        digest = hashlib.sha256("\0".join((path, diagnostic.code, content)).encode("utf-8")).hexdigest()
        seen[digest] += 1
        fingerprints.append((digest, seen[digest]))
    return fingerprints
