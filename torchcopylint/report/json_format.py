"""A stable JSON list of records, one per diagnostic; the schema is in docs/output-formats.md.

The record is flat and spelled out here rather than taken from `Diagnostic.to_dict()`, so
that internal fields (`context`) and refactors of the dataclasses never change the output.
"""

from __future__ import annotations

import json
from typing import Any, Optional, Sequence, TextIO

from torchcopylint.diagnostic import Diagnostic, Fix, Verdict
from torchcopylint.report.common import ReportOptions, relative_path, rule_url


def fix_record(fix: Optional[Fix]) -> Optional[dict[str, Any]]:
    if fix is None:
        return None
    return {
        "applicability": fix.applicability.value,
        "description": fix.description,
        "edits": [
            {
                "line": edit.line,
                "column": edit.column,
                "end_line": edit.end_line,
                "end_column": edit.end_column,
                "content": edit.content,
            }
            for edit in fix.edits
        ],
    }


def verdict_record(verdict: Optional[Verdict]) -> Optional[dict[str, str]]:
    return None if verdict is None else {"status": verdict.status, "evidence": verdict.evidence}


def record(diagnostic: Diagnostic, options: ReportOptions) -> dict[str, Any]:
    location = diagnostic.location
    return {
        "code": diagnostic.code,
        "name": diagnostic.name,
        "message": diagnostic.message,
        "severity": diagnostic.severity.value,
        "path": relative_path(location.path, options.root),
        # A notebook's code cell (1-based, markdown cells counted); line and column are in it.
        "cell": location.cell,
        "line": location.line,
        "column": location.column,
        "end_line": location.end_line,
        "end_column": location.end_column,
        "fix": fix_record(diagnostic.fix),
        "verdict": verdict_record(diagnostic.verdict),
        # Only rules have a page; TCL900 (a file that could not be read) has none.
        "url": rule_url(diagnostic.code) if options.rule_for(diagnostic.code) is not None else None,
    }


def render(diagnostics: Sequence[Diagnostic], stream: TextIO, options: ReportOptions) -> None:
    records = [record(diagnostic, options) for diagnostic in diagnostics]
    stream.write(json.dumps(records, indent=2, ensure_ascii=False) + "\n")
