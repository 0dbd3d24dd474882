"""Plain data shared by every layer: where a finding is, what it says, how to fix it.

Lines are 1-based and columns are 1-based character offsets, as in ruff's and
flake8's output. End positions are exclusive (the column just after the node).
In a notebook, a location's line and column (and its fix's edits) count in its cell.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any, Optional


class Applicability(str, Enum):
    SAFE = "safe"  # applied by --fix
    UNSAFE = "unsafe"  # applied only with --unsafe-fixes


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Location:
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    # In a notebook: the cell (1-based, over all its cells) that line and column count in.
    cell: Optional[int] = None


@dataclass(frozen=True)
class Edit:
    """Replace the text between (line, column) and (end_line, end_column) with `content`."""

    line: int
    column: int
    end_line: int
    end_column: int
    content: str


@dataclass(frozen=True)
class Fix:
    applicability: Applicability
    description: str
    edits: tuple[Edit, ...]

    @classmethod
    def safe(cls, description: str, *edits: Edit) -> "Fix":
        return cls(Applicability.SAFE, description, tuple(edits))

    @classmethod
    def unsafe(cls, description: str, *edits: Edit) -> "Fix":
        return cls(Applicability.UNSAFE, description, tuple(edits))


@dataclass(frozen=True)
class Verdict:
    """What --verify found when it ran the flagged code."""

    status: str  # "confirmed" | "refuted" | "unverified" | "not reached"
    evidence: str = ""


@dataclass(frozen=True)
class Diagnostic:
    code: str
    name: str
    message: str
    location: Location
    severity: Severity = Severity.ERROR
    fix: Optional[Fix] = None
    verdict: Optional[Verdict] = None
    # Free-form facts the rule knows (lines of the events it names, ...), used by
    # --verify to build its experiment. Values are plain JSON data.
    context: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def path(self) -> str:
        return self.location.path

    def sort_key(self) -> tuple:
        location = self.location
        return (location.path, location.cell or 0, location.line, location.column, self.code)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Diagnostic":
        fix = data.get("fix")
        verdict = data.get("verdict")
        return cls(
            code=data["code"],
            name=data["name"],
            message=data["message"],
            location=Location(**data["location"]),
            severity=Severity(data.get("severity", "error")),
            fix=None
            if fix is None
            else Fix(
                Applicability(fix["applicability"]),
                fix["description"],
                tuple(Edit(**edit) for edit in fix["edits"]),
            ),
            verdict=None if verdict is None else Verdict(**verdict),
            context=dict(data.get("context") or {}),
        )
