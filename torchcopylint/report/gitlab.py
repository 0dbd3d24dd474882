"""GitLab Code Quality report: a JSON list of Code Climate-style issues.

GitLab matches issues between the base and head pipelines by `fingerprint`, so it must
not change when unrelated lines move: it hashes the path, the code and the flagged
line's text (see `location_fingerprints`), not the line number.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Sequence, TextIO

from torchcopylint.diagnostic import Diagnostic, Severity
from torchcopylint.report.common import ReportOptions, location_fingerprints, relative_path, verdict_label

# GitLab's scale is info, minor, major, critical, blocker.
_SEVERITIES = {Severity.ERROR: "major", Severity.WARNING: "minor"}


def issue(diagnostic: Diagnostic, fingerprint: str, options: ReportOptions) -> dict[str, Any]:
    region = options.file_region(diagnostic.location)
    description = f"{diagnostic.code} {diagnostic.message}"
    if diagnostic.verdict is not None:
        description += f" [{verdict_label(diagnostic.verdict)}]"
    return {
        "description": description,
        "check_name": diagnostic.code,
        "fingerprint": fingerprint,
        "severity": _SEVERITIES.get(diagnostic.severity, "info"),
        "location": {
            "path": relative_path(diagnostic.path, options.root),
            "lines": {"begin": region.line, "end": region.end_line},
        },
    }


def render(diagnostics: Sequence[Diagnostic], stream: TextIO, options: ReportOptions) -> None:
    issues = []
    for diagnostic, (digest, occurrence) in zip(diagnostics, location_fingerprints(diagnostics, options.root, options.sources)):
        fingerprint = hashlib.sha256(f"{digest}:{occurrence}".encode("ascii")).hexdigest()
        issues.append(issue(diagnostic, fingerprint, options))
    stream.write(json.dumps(issues, indent=2, ensure_ascii=False) + "\n")
