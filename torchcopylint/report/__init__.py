"""Reporters: turn sorted diagnostics into text, GitHub annotations, JSON, SARIF or GitLab output.

`render` is the only entry point the CLI needs. What more than one format shares lives in
common.py (re-exported here for callers of the package).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Sequence, TextIO

from torchcopylint.diagnostic import Diagnostic
from torchcopylint.report.common import (  # re-exported: the package's helpers
    PROJECT_URL,
    Region,
    ReportOptions,
    SourceLines,
    is_under_root,
    location_fingerprints,
    relative_path,
    rule_url,
    verdict_counts,
    verdict_label,
    verdict_summary,
)

if TYPE_CHECKING:
    from torchcopylint.rules.base import Rule

__all__ = ["FORMATS", "PROJECT_URL", "Region", "ReportOptions", "SourceLines", "is_under_root",
           "location_fingerprints", "relative_path", "render", "rule_url", "verdict_counts", "verdict_label",
           "verdict_summary"]

FORMATS = ("text", "github", "json", "sarif", "gitlab")

# Format modules are imported on demand: a run only ever needs the one format it was asked for.
_FORMAT_MODULES = {
    "text": "text",
    "github": "github",
    "json": "json_format",
    "sarif": "sarif",
    "gitlab": "gitlab",
}


def render(
    format: str,
    diagnostics: Sequence[Diagnostic],
    *,
    stream: TextIO,
    rules: Sequence["Rule"],
    root: Path,
    show_fixes: bool,
    statistics: bool,
    color: bool,
    files_checked: int,
    fixed: int = 0,
    unsafe_fixes_hidden: bool = True,
    quiet: bool = False,
) -> None:
    """Write `diagnostics` (already sorted) to `stream` in `format`."""
    if format not in _FORMAT_MODULES:
        raise ValueError(f"unknown output format {format!r}; expected one of {', '.join(FORMATS)}")
    options = ReportOptions(
        rules=rules,
        root=Path(root),
        show_fixes=show_fixes,
        statistics=statistics,
        color=color,
        files_checked=files_checked,
        fixed=fixed,
        unsafe_fixes_hidden=unsafe_fixes_hidden,
        quiet=quiet,
        sources=SourceLines(Path(root)),
    )
    module = importlib.import_module(f"{__name__}.{_FORMAT_MODULES[format]}")
    module.render(list(diagnostics), stream, options)
