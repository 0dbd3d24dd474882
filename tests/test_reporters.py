"""The five output formats, on diagnostics built by hand (no rule or engine involved)."""

from __future__ import annotations

import dataclasses
import io
import json
import re
from pathlib import Path

import click
import jsonschema
import pytest

import torchcopylint
from torchcopylint import pages
from torchcopylint.diagnostic import Diagnostic, Edit, Fix, Location, Severity, Verdict
from torchcopylint.report import FORMATS, render
from torchcopylint.rules.base import Rule

TRICKY_MESSAGE = "100% of x: copied, then\nthrown away"


class FakeCloneDetachOrder(Rule):
    code = "TCL005"
    name = "clone-detach-order"
    summary = "`x.clone().detach()` records a clone in autograd only to drop it"
    fix_availability = "safe"


class FakeAliasMutated(Rule):
    code = "TCL002"
    name = "alias-mutated-in-place"
    summary = "An alias of a tensor is changed by an in-place write"
    fix_availability = "unsafe"


class FakeTensorCopyConstruct(Rule):
    code = "TCL008"
    name = "tensor-copy-construct"
    summary = "`torch.tensor(t)` on a tensor copies with a warning"
    severity = Severity.WARNING
    fix_availability = "safe"


class FakeNeverReported(Rule):
    code = "TCL007"
    name = "graph-kept-alive"
    summary = "Accumulating a loss tensor keeps every step's graph alive"


RULES = (FakeAliasMutated(), FakeCloneDetachOrder(), FakeNeverReported(), FakeTensorCopyConstruct())

MODEL_SOURCE = """import torch


def f(x):
    identity = x
    y = x.clone().detach()
    x.add_(1)
    return identity + y
"""

TRAIN_SOURCE = "import torch\n\nt = torch.ones(3)\nu = torch.tensor(t)\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "model.py").write_text(MODEL_SOURCE)
    (tmp_path / "src" / "train.py").write_text(TRAIN_SOURCE)
    return tmp_path


def clone_detach(root: Path) -> Diagnostic:
    # Absolute path under root: reporters must print it relative to root.
    return Diagnostic(
        code="TCL005",
        name="clone-detach-order",
        message="`x.clone().detach()` copies before detaching; use `x.detach().clone()`",
        location=Location(str(root / "src" / "model.py"), 6, 9, 6, 27),
        fix=Fix.safe("Replace with `x.detach().clone()`", Edit(6, 9, 6, 27, "x.detach().clone()")),
        verdict=Verdict("confirmed", "clone recorded CloneBackward0"),
    )


def alias_mutated() -> Diagnostic:
    return Diagnostic(
        code="TCL002",
        name="alias-mutated-in-place",
        message="`identity` aliases `x`, which `x.add_(1)` changes in place",
        location=Location("src/model.py", 7, 5, 7, 14),
        fix=Fix.unsafe("Clone `x` into `identity`", Edit(5, 16, 5, 17, "x.clone()")),
    )


def tensor_copy() -> Diagnostic:
    return Diagnostic(
        code="TCL008",
        name="tensor-copy-construct",
        message=TRICKY_MESSAGE,
        location=Location("src/train.py", 4, 5, 4, 20),
        severity=Severity.WARNING,
    )


def file_error() -> Diagnostic:
    return Diagnostic("TCL900", "file-error", "cannot parse: invalid syntax at 2:3", Location("broken.py", 2, 3, 2, 3))


@pytest.fixture
def diagnostics(project: Path) -> list[Diagnostic]:
    # In the order the engine sorts them: by path relative to root, then position.
    return [file_error(), clone_detach(project), alias_mutated(), tensor_copy()]


def rendered(format: str, diagnostics: list[Diagnostic], root: Path, **overrides) -> str:
    options = dict(
        rules=RULES,
        root=root,
        show_fixes=False,
        statistics=False,
        color=False,
        files_checked=3,
    )
    options.update(overrides)
    stream = io.StringIO()
    render(format, diagnostics, stream=stream, **options)
    return stream.getvalue()


# --- text --------------------------------------------------------------------------------


def test_text_lists_each_diagnostic_then_a_ruff_style_summary(project, diagnostics):
    assert rendered("text", diagnostics, project) == (
        "broken.py:2:3: TCL900 cannot parse: invalid syntax at 2:3\n"
        "src/model.py:6:9: TCL005 [*] `x.clone().detach()` copies before detaching; use `x.detach().clone()`"
        "  [confirmed: clone recorded CloneBackward0]\n"
        "src/model.py:7:5: TCL002 `identity` aliases `x`, which `x.add_(1)` changes in place\n"
        f"src/train.py:4:5: TCL008 {TRICKY_MESSAGE}\n"
        "Found 4 errors (1 confirmed).\n"
        "[*] 1 fixable with the `--fix` option (1 hidden fix can be enabled with the `--unsafe-fixes` option).\n"
    )


def test_text_marks_unsafe_fixes_fixable_when_they_are_enabled(project):
    output = rendered("text", [clone_detach(project), alias_mutated()], project, unsafe_fixes_hidden=False)
    assert output.splitlines()[1].startswith("src/model.py:7:5: TCL002 [*] `identity`")
    assert output.splitlines()[-1] == "[*] 2 fixable with the `--fix` option."


def test_text_says_when_only_hidden_fixes_exist(project):
    output = rendered("text", [alias_mutated()], project)
    assert output.splitlines()[-2:] == [
        "Found 1 error.",
        "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option).",
    ]


def test_text_summary_for_a_clean_run_and_after_fixing(project):
    assert rendered("text", [], project) == "All checks passed!\n"
    assert rendered("text", [], project, fixed=2) == "Found 2 errors (2 fixed, 0 remaining).\n"
    assert rendered("text", [tensor_copy()], project, fixed=1).splitlines()[-1] == (
        "Found 2 errors (1 fixed, 1 remaining)."
    )


def test_text_show_fixes_adds_the_fix_under_its_diagnostic(project):
    lines = rendered("text", [clone_detach(project), alias_mutated()], project, show_fixes=True).splitlines()
    assert lines[1] == "    help: Replace with `x.detach().clone()` (safe fix)"
    assert lines[3] == "    help: Clone `x` into `identity` (unsafe fix)"


def test_text_verdict_without_evidence_shows_the_status_alone(project):
    refuted = Diagnostic("TCL002", "alias-mutated-in-place", "m", Location("a.py", 1, 1, 1, 2), verdict=Verdict("refuted"))
    assert rendered("text", [refuted], project).splitlines()[0] == "a.py:1:1: TCL002 m  [refuted]"


def test_text_statistics_table_replaces_the_listing(project, diagnostics):
    twice = [dataclasses.replace(d, verdict=None) for d in diagnostics + [alias_mutated()]]
    assert rendered("text", twice, project, statistics=True) == (
        "2\tTCL002\t[ ] alias-mutated-in-place\n"
        "1\tTCL005\t[*] clone-detach-order\n"
        "1\tTCL008\t[ ] tensor-copy-construct\n"
        "1\tTCL900\t[ ] file-error\n"
        "[*] fixable with `torchcopylint --fix`\n"
    )


def _with_verdicts(project) -> list[Diagnostic]:
    """Findings as --verify leaves them: every one with a verdict (a file error with none)."""
    statuses = ["confirmed", "refuted", "not reached", "unverified", "confirmed"]
    made = [clone_detach(project), alias_mutated(), tensor_copy(), alias_mutated(), tensor_copy()]
    return [file_error()] + [dataclasses.replace(d, verdict=Verdict(status, "e")) for d, status in zip(made, statuses)]


def test_text_summary_counts_the_verdicts_after_verify(project):
    verified = _with_verdicts(project)
    lines = rendered("text", verified, project).splitlines()
    assert "Found 6 errors (2 confirmed, 1 refuted, 1 not reached, 1 unverified)." in lines, lines
    # Only the statuses that occur are counted; after --fix, with what was fixed.
    assert rendered("text", verified[1:3], project, fixed=1).splitlines()[-2] == (
        "Found 3 errors (1 fixed, 2 remaining; 1 confirmed, 1 refuted).")


def test_text_statistics_count_the_verdicts_per_rule_after_verify(project):
    assert rendered("text", _with_verdicts(project), project, statistics=True) == (
        "2\tTCL002\t[ ] alias-mutated-in-place\t1 refuted, 1 unverified\n"
        "2\tTCL008\t[ ] tensor-copy-construct\t1 confirmed, 1 not reached\n"
        "1\tTCL005\t[*] clone-detach-order\t1 confirmed\n"
        "1\tTCL900\t[ ] file-error\tno verdict\n"
        "[*] fixable with `torchcopylint --fix`\n"
    )


def test_sarif_run_counts_the_verdicts_after_verify(project):
    log = json.loads(rendered("sarif", _with_verdicts(project), project))
    assert log["runs"][0]["properties"]["verdicts"] == {"confirmed": 2, "refuted": 1, "not reached": 1,
                                                         "unverified": 1}
    assert "verdicts" not in json.loads(rendered("sarif", [file_error()], project))["runs"][0]["properties"]


def test_text_colour_only_when_asked(project, diagnostics):
    plain = rendered("text", diagnostics, project)
    coloured = rendered("text", diagnostics, project, color=True)
    assert "\x1b[" not in plain
    assert "\x1b[" in coloured
    assert click.unstyle(coloured) == plain


def test_text_keeps_paths_outside_root_absolute(tmp_path):
    outside = tmp_path / "elsewhere" / "x.py"
    root = tmp_path / "project"
    root.mkdir()
    diagnostic = Diagnostic("TCL900", "file-error", "unreadable", Location(str(outside), 1, 1, 1, 1))
    assert rendered("text", [diagnostic], root).startswith(f"{outside.as_posix()}:1:1: TCL900 unreadable\n")


# --- github ------------------------------------------------------------------------------

WORKFLOW_COMMAND = re.compile(
    r"^::(?P<command>error|warning) "
    r"file=(?P<file>[^,:]+),line=(?P<line>\d+),col=(?P<col>\d+),"
    r"endLine=(?P<endLine>\d+),endColumn=(?P<endColumn>\d+),title=(?P<title>[^,:]+)"
    r"::(?P<message>[^\r\n]*)$"
)


def unescape(text: str) -> str:
    # Decoding in the reverse order of encoding: %25 last, so "%253A" stays "%3A".
    for escaped, raw in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(escaped, raw)
    return text


def test_github_emits_one_workflow_command_per_diagnostic(project, diagnostics):
    lines = rendered("github", diagnostics, project).splitlines()
    assert len(lines) == len(diagnostics)
    matches = [WORKFLOW_COMMAND.match(line) for line in lines]
    assert all(matches), lines
    by_title = {unescape(m["title"]): m for m in matches}
    clone = by_title["TCL005 clone-detach-order"]
    assert (clone["command"], clone["file"], clone["line"], clone["col"]) == ("error", "src/model.py", "6", "9")
    assert (clone["endLine"], clone["endColumn"]) == ("6", "27")
    assert unescape(clone["message"]).endswith("[confirmed: clone recorded CloneBackward0]")
    assert by_title["TCL008 tensor-copy-construct"]["command"] == "warning"


def test_github_escapes_message_and_properties(project):
    tricky_path = project / "src" / "odd,name:100%.py"
    diagnostic = Diagnostic("TCL008", "tensor-copy-construct", TRICKY_MESSAGE, Location(str(tricky_path), 1, 1, 1, 2))
    line = rendered("github", [diagnostic], project).rstrip("\n")
    match = WORKFLOW_COMMAND.match(line)
    assert match, line
    assert match["file"] == "src/odd%2Cname%3A100%25.py"
    assert unescape(match["file"]) == "src/odd,name:100%.py"
    assert match["message"] == "100%25 of x: copied, then%0Athrown away"
    assert unescape(match["message"]) == TRICKY_MESSAGE


# --- json --------------------------------------------------------------------------------

JSON_KEYS = {
    "code", "name", "message", "severity", "path", "cell", "line", "column",
    "end_line", "end_column", "fix", "verdict", "url",
}


def test_json_records_carry_location_code_fix_and_verdict(project, diagnostics):
    records = json.loads(rendered("json", diagnostics, project))
    assert [r["code"] for r in records] == [d.code for d in diagnostics]
    assert all(set(r) == JSON_KEYS for r in records)
    clone = next(r for r in records if r["code"] == "TCL005")
    assert (clone["path"], clone["line"], clone["column"], clone["end_line"], clone["end_column"]) == (
        "src/model.py", 6, 9, 6, 27,
    )
    assert clone["fix"] == {
        "applicability": "safe",
        "description": "Replace with `x.detach().clone()`",
        "edits": [{"line": 6, "column": 9, "end_line": 6, "end_column": 27, "content": "x.detach().clone()"}],
    }
    assert clone["verdict"] == {"status": "confirmed", "evidence": "clone recorded CloneBackward0"}
    assert clone["url"].endswith("/rules/TCL005.md")
    warning = next(r for r in records if r["code"] == "TCL008")
    assert (warning["severity"], warning["message"], warning["fix"], warning["verdict"]) == (
        "warning", TRICKY_MESSAGE, None, None,
    )
    broken = next(r for r in records if r["code"] == "TCL900")
    assert (broken["name"], broken["path"], broken["url"]) == ("file-error", "broken.py", None)


def test_json_of_nothing_is_an_empty_list(project):
    assert json.loads(rendered("json", [], project)) == []


# --- sarif -------------------------------------------------------------------------------


def sarif_schema() -> dict:
    shared = Path(__file__).resolve().parents[2] / "shared" / "schemas" / "sarif-2.1.0.json"
    bundled = Path(__file__).resolve().parent / "data" / "sarif-2.1.0.json"
    return json.loads((shared if shared.is_file() else bundled).read_text(encoding="utf-8"))


def assert_valid_sarif(log: dict) -> None:
    validator = jsonschema.Draft4Validator(sarif_schema())
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)


@pytest.fixture
def rule_pages(tmp_path, monkeypatch) -> Path:
    directory = tmp_path / "pages"
    directory.mkdir()
    (directory / "TCL005.md").write_text(
        "# TCL005 clone-detach-order\n\n## What it flags\n\n`x.clone().detach()`.\n\n"
        "## Why it matters\n\nThe clone is recorded by autograd.\n"
    )
    monkeypatch.setattr(pages, "pages_directory", lambda: directory)
    return directory


def test_sarif_validates_and_carries_what_code_scanning_needs(project, diagnostics, rule_pages):
    log = json.loads(rendered("sarif", diagnostics, project))
    assert_valid_sarif(log)
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("torchcopylint", torchcopylint.__version__)
    assert driver["informationUri"].startswith("https://")
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.absolute().as_uri() + "/"

    descriptors = driver["rules"]
    ids = [d["id"] for d in descriptors]
    assert ids[:4] == [rule.code for rule in RULES]  # every rule, reported or not
    assert "TCL900" in ids
    for descriptor in descriptors:
        assert descriptor["shortDescription"]["text"] and descriptor["fullDescription"]["text"]
        assert descriptor["help"]["text"]
    with_page = descriptors[ids.index("TCL005")]
    assert with_page["fullDescription"]["text"] == "`x.clone().detach()`."
    assert with_page["help"]["markdown"] == (rule_pages / "TCL005.md").read_text()
    assert descriptors[ids.index("TCL008")]["defaultConfiguration"]["level"] == "warning"

    results = run["results"]
    assert len(results) == len(diagnostics)
    for result, diagnostic in zip(results, diagnostics):
        assert result["ruleId"] == diagnostic.code
        assert descriptors[result["ruleIndex"]]["id"] == diagnostic.code
        assert re.fullmatch(r"[0-9a-f]{64}:\d+", result["partialFingerprints"]["primaryLocationLineHash"])
        physical = result["locations"][0]["physicalLocation"]
        assert physical["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert not physical["artifactLocation"]["uri"].startswith("/")
    clone = results[[d.code for d in diagnostics].index("TCL005")]
    physical = clone["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"]["uri"] == "src/model.py"
    assert physical["region"] == {"startLine": 6, "startColumn": 9, "endLine": 6, "endColumn": 27}
    assert clone["properties"]["verdict"] == {"status": "confirmed", "evidence": "clone recorded CloneBackward0"}
    replacement = clone["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert replacement == {
        "deletedRegion": {"startLine": 6, "startColumn": 9, "endLine": 6, "endColumn": 27},
        "insertedContent": {"text": "x.detach().clone()"},
    }
    warning = results[[d.code for d in diagnostics].index("TCL008")]
    assert (warning["level"], warning["message"]["text"]) == ("warning", TRICKY_MESSAGE)
    assert "fixes" not in warning


def test_sarif_of_a_clean_run_validates_with_empty_results(project):
    log = json.loads(rendered("sarif", [], project))
    assert_valid_sarif(log)
    assert log["runs"][0]["results"] == []


def test_sarif_uses_an_absolute_file_uri_outside_root(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    outside = tmp_path / "other dir" / "x.py"
    diagnostic = Diagnostic("TCL900", "file-error", "unreadable", Location(str(outside), 1, 1, 1, 1))
    log = json.loads(rendered("sarif", [diagnostic], root))
    assert_valid_sarif(log)
    artifact = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": outside.as_uri()}


# --- fingerprints (sarif and gitlab) ---------------------------------------------------------


def sarif_fingerprints(diagnostics, root) -> list[str]:
    log = json.loads(rendered("sarif", diagnostics, root))
    return [r["partialFingerprints"]["primaryLocationLineHash"] for r in log["runs"][0]["results"]]


def gitlab_fingerprints(diagnostics, root) -> list[str]:
    return [issue["fingerprint"] for issue in json.loads(rendered("gitlab", diagnostics, root))]


@pytest.mark.parametrize("fingerprints", [sarif_fingerprints, gitlab_fingerprints])
def test_fingerprints_are_stable_and_distinct(project, diagnostics, fingerprints):
    first = fingerprints(diagnostics, project)
    assert first == fingerprints(diagnostics, project)
    assert len(set(first)) == len(first)


@pytest.mark.parametrize("fingerprints", [sarif_fingerprints, gitlab_fingerprints])
def test_fingerprints_follow_the_line_text_not_its_number(project, fingerprints):
    before = fingerprints([clone_detach(project)], project)
    (project / "src" / "model.py").write_text("# a new first line\n" + MODEL_SOURCE)
    moved = clone_detach(project)
    moved = Diagnostic(moved.code, moved.name, moved.message, Location(moved.path, 7, 9, 7, 27), fix=moved.fix)
    assert fingerprints([moved], project) == before
    # ...and it is the text that counts: editing the flagged line changes the fingerprint.
    (project / "src" / "model.py").write_text("# a new first line\n" + MODEL_SOURCE.replace("y = x", "z = x"))
    assert fingerprints([moved], project) != before


def test_identical_lines_are_told_apart_by_an_occurrence_counter(project):
    (project / "twice.py").write_text("y = x.clone().detach()\ny = x.clone().detach()\n")
    same_line_twice = [
        Diagnostic("TCL005", "clone-detach-order", "m", Location("twice.py", line, 5, line, 23)) for line in (1, 2)
    ]
    first, second = sarif_fingerprints(same_line_twice, project)
    assert first.split(":")[0] == second.split(":")[0]
    assert (first.split(":")[1], second.split(":")[1]) == ("1", "2")
    assert len(set(gitlab_fingerprints(same_line_twice, project))) == 2


# --- gitlab ------------------------------------------------------------------------------


def test_gitlab_code_quality_issues(project, diagnostics):
    issues = json.loads(rendered("gitlab", diagnostics, project))
    assert len(issues) == len(diagnostics)
    for issue, diagnostic in zip(issues, diagnostics):
        assert set(issue) == {"description", "check_name", "fingerprint", "severity", "location"}
        assert issue["check_name"] == diagnostic.code
        assert issue["description"].startswith(diagnostic.code + " ")
    by_code = {issue["check_name"]: issue for issue in issues}
    assert by_code["TCL005"]["location"] == {"path": "src/model.py", "lines": {"begin": 6, "end": 6}}
    assert by_code["TCL005"]["severity"] == "major"
    assert by_code["TCL008"]["severity"] == "minor"
    assert by_code["TCL900"]["location"]["path"] == "broken.py"


# --- dispatch ----------------------------------------------------------------------------


def test_every_format_renders_and_unknown_formats_are_refused(project, diagnostics):
    for format in FORMATS:
        assert rendered(format, diagnostics, project)
    with pytest.raises(ValueError, match="unknown output format"):
        rendered("xml", diagnostics, project)


# --- the `not reached` verdict, in every format ------------------------------------------------


def not_reached() -> Diagnostic:
    return Diagnostic(
        code="TCL002",
        name="alias-mutated-in-place",
        message="`identity` aliases `x`, which `x.add_(1)` changes in place",
        location=Location("src/model.py", 7, 5, 7, 14),
        verdict=Verdict("not reached", "line 12 never ran"),
    )


def test_text_shows_not_reached_with_its_own_colour(project):
    line = rendered("text", [not_reached()], project).splitlines()[0]
    assert line.endswith("  [not reached: line 12 never ran]"), line
    coloured = rendered("text", [not_reached()], project, color=True).splitlines()[0]
    unverified = dataclasses.replace(not_reached(), verdict=Verdict("unverified", "line 12 never ran"))
    coloured_unverified = rendered("text", [unverified], project, color=True).splitlines()[0]
    assert click.style("[not reached: line 12 never ran]", fg="magenta") in coloured, coloured
    assert coloured.replace("not reached", "unverified") != coloured_unverified


def test_json_carries_not_reached(project):
    (record,) = json.loads(rendered("json", [not_reached()], project))
    assert record["verdict"] == {"status": "not reached", "evidence": "line 12 never ran"}


def test_sarif_carries_not_reached_in_the_result_properties(project):
    log = json.loads(rendered("sarif", [not_reached()], project))
    assert_valid_sarif(log)
    (result,) = log["runs"][0]["results"]
    assert result["properties"]["verdict"] == {"status": "not reached", "evidence": "line 12 never ran"}


def test_gitlab_carries_not_reached_in_the_description(project):
    (issue,) = json.loads(rendered("gitlab", [not_reached()], project))
    assert issue["description"].endswith("[not reached: line 12 never ran]"), issue


def test_github_carries_not_reached_in_the_annotation(project):
    (line,) = rendered("github", [not_reached()], project).splitlines()
    match = WORKFLOW_COMMAND.match(line)
    assert match, line
    assert unescape(match["message"]).endswith("[not reached: line 12 never ran]"), line


def test_a_finding_not_reached_still_fails_the_run():
    from torchcopylint.cli import _counts_as_finding

    assert _counts_as_finding([not_reached()])
    refuted = dataclasses.replace(not_reached(), verdict=Verdict("refuted", "ran, no effect"))
    assert not _counts_as_finding([refuted])
