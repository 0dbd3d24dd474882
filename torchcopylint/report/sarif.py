"""SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

Beyond the schema, GitHub wants for each rule a shortDescription, fullDescription and
help, for each result a `partialFingerprints.primaryLocationLineHash`, and URIs relative
to the repository root (here: `root`, via the `%SRCROOT%` base).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional, Sequence, TextIO
from urllib.parse import quote

import torchcopylint
from torchcopylint import pages
from torchcopylint.diagnostic import Diagnostic, Fix, Severity
from torchcopylint.report.common import (
    PROJECT_URL,
    VERDICT_STATUSES,
    ReportOptions,
    is_under_root,
    location_fingerprints,
    relative_path,
    rule_url,
    verdict_counts,
)

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"

# Codes a run can report that are not rules, so have no page and no Rule object.
_NON_RULE_DESCRIPTIONS = {
    "TCL900": "A file could not be read or parsed, so it was not checked.",
}


def level(severity: Severity) -> str:
    return "warning" if severity is Severity.WARNING else "error"


def _text(text: str, markdown: Optional[str] = None) -> dict[str, str]:
    message = {"text": text}
    if markdown:
        message["markdown"] = markdown
    return message


def rule_descriptor(rule: Any) -> dict[str, Any]:
    page = pages.page_text(rule.code)
    flags = pages.page_section(rule.code, "What it flags")
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": _text(rule.summary),
        "fullDescription": _text(flags or rule.summary, flags or None),
        "help": _text(page, page) if page else _text(rule.summary),
        "helpUri": rule_url(rule.code),
        "defaultConfiguration": {"level": level(rule.severity)},
        "properties": {
            "tags": ["pytorch"],
            # GitHub's scale: error, warning, recommendation.
            "problem.severity": level(rule.severity),
            "fixAvailability": rule.fix_availability,
        },
    }


def non_rule_descriptor(diagnostic: Diagnostic) -> dict[str, Any]:
    """A descriptor for a reported code with no Rule (TCL900), so every result has a ruleIndex."""
    description = _NON_RULE_DESCRIPTIONS.get(diagnostic.code, diagnostic.name)
    return {
        "id": diagnostic.code,
        "name": diagnostic.name,
        "shortDescription": _text(description),
        "fullDescription": _text(description),
        "help": _text(description),
        "defaultConfiguration": {"level": level(diagnostic.severity)},
        "properties": {"tags": ["pytorch"], "problem.severity": level(diagnostic.severity)},
    }


def artifact_location(path: str, options: ReportOptions) -> dict[str, str]:
    if is_under_root(path, options.root):
        return {"uri": quote(relative_path(path, options.root), safe="/"), "uriBaseId": SRCROOT}
    # Outside the project root a relative URI would mean nothing to a viewer.
    return {"uri": Path(relative_path(path, options.root)).as_uri()}


def region(line: int, column: int, end_line: int, end_column: int) -> dict[str, int]:
    return {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}


def sarif_fix(fix: Fix, path: str, options: ReportOptions) -> dict[str, Any]:
    replacements = [
        {
            "deletedRegion": region(edit.line, edit.column, edit.end_line, edit.end_column),
            "insertedContent": {"text": edit.content},
        }
        for edit in fix.edits
    ]
    return {
        "description": _text(fix.description),
        "artifactChanges": [{"artifactLocation": artifact_location(path, options), "replacements": replacements}],
        "properties": {"applicability": fix.applicability.value},
    }


def result(diagnostic: Diagnostic, rule_index: int, fingerprint: str, options: ReportOptions) -> dict[str, Any]:
    spot = options.file_region(diagnostic.location)
    entry: dict[str, Any] = {
        "ruleId": diagnostic.code,
        "ruleIndex": rule_index,
        "level": level(diagnostic.severity),
        "message": _text(diagnostic.message),
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": artifact_location(diagnostic.path, options),
                    "region": region(spot.line, spot.column, spot.end_line, spot.end_column),
                }
            }
        ],
        "partialFingerprints": {"primaryLocationLineHash": fingerprint},
    }
    # A notebook's edits count in its cell, not in the JSON file that SARIF's regions address.
    if diagnostic.fix is not None and diagnostic.location.cell is None:
        entry["fixes"] = [sarif_fix(diagnostic.fix, diagnostic.path, options)]
    if diagnostic.verdict is not None:
        entry["properties"] = {
            "verdict": {"status": diagnostic.verdict.status, "evidence": diagnostic.verdict.evidence}
        }
    return entry


def sarif_log(diagnostics: Sequence[Diagnostic], options: ReportOptions) -> dict[str, Any]:
    descriptors = [rule_descriptor(rule) for rule in options.rules]
    index_of = {descriptor["id"]: index for index, descriptor in enumerate(descriptors)}
    for diagnostic in diagnostics:
        if diagnostic.code not in index_of:
            index_of[diagnostic.code] = len(descriptors)
            descriptors.append(non_rule_descriptor(diagnostic))
    fingerprints = location_fingerprints(diagnostics, options.root, options.sources)
    results = [
        result(diagnostic, index_of[diagnostic.code], f"{digest}:{occurrence}", options)
        for diagnostic, (digest, occurrence) in zip(diagnostics, fingerprints)
    ]
    run = {
        "tool": {
            "driver": {
                "name": "torchcopylint",
                "version": torchcopylint.__version__,
                "semanticVersion": torchcopylint.__version__,
                "informationUri": PROJECT_URL,
                "rules": descriptors,
            }
        },
        "originalUriBaseIds": {SRCROOT: {"uri": options.root.absolute().as_uri().rstrip("/") + "/"}},
        # Our columns count characters (code points), not SARIF's default UTF-16 units.
        "columnKind": "unicodeCodePoints",
        "invocations": [{"executionSuccessful": True}],
        "results": results,
        "properties": _run_properties(diagnostics, options),
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def _run_properties(diagnostics: Sequence[Diagnostic], options: ReportOptions) -> dict:
    properties = {"filesChecked": options.files_checked, "fixed": options.fixed}
    counts = verdict_counts(diagnostics)
    if counts:  # after --verify: how many findings got each verdict (each result carries its own)
        properties["verdicts"] = {status: counts[status] for status in VERDICT_STATUSES}
    return properties


def render(diagnostics: Sequence[Diagnostic], stream: TextIO, options: ReportOptions) -> None:
    stream.write(json.dumps(sarif_log(diagnostics, options), indent=2, ensure_ascii=False) + "\n")
