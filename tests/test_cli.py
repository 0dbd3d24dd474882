"""The command line end to end: on examples/ in a subprocess (as users run it), and its options in-process."""

from __future__ import annotations

import functools
import importlib.util
import json
import re
import sys
import textwrap
from pathlib import Path

import jsonschema
import libcst
import pytest

from conftest import (
    CLEAN,
    CLONE_DETACH,
    CLONE_DETACH_FIXED,
    EXAMPLES,
    REPO_ROOT,
    run_torchcopylint,
    sarif_schema_path,
    snapshot,
    subprocess_env,
    write,
)

import torchcopylint
from torchcopylint.rules import ALL_RULES

FINDING_LINE = re.compile(r"^(?P<path>[^:\n]+):(?P<line>\d+):(?P<column>\d+): (?P<code>TCL\d{3}) ", re.M)
GITHUB_LINE = re.compile(
    r"^::(?:error|warning) file=[^,:\n]+,line=\d+,col=\d+,endLine=\d+,endColumn=\d+,"
    r"title=TCL\d{3} [a-z0-9-]+::\S.*$"
)


def codes_in(text: str) -> list[str]:
    return [match.group("code") for match in FINDING_LINE.finditer(text)]


# --- the examples, as a user runs them ----------------------------------------------------


# Runs the real command line on examples/ in a fresh interpreter and reports what it imported.
# The second variant makes `import torch` fail outright: the run must not even try.
_NO_TORCH_SCRIPT = textwrap.dedent(
    """
    import sys

    BLOCK = {block}
    if BLOCK:
        class NoTorch:
            def find_spec(self, name, path=None, target=None):
                if name == "torch" or name.startswith("torch."):
                    raise ImportError("torch is blocked in this test")
                return None
        sys.meta_path.insert(0, NoTorch())

    from torchcopylint.cli import main

    try:
        main(["examples/"], prog_name="torchcopylint")
    except SystemExit as exit:
        status = exit.code
    else:
        status = 0
    imported = sorted(name for name in sys.modules if name == "torch" or name.startswith("torch."))
    print("STATUS", status, file=sys.stderr)
    print("TORCH", ",".join(imported) or "-", file=sys.stderr)
    """
)


@pytest.mark.parametrize("block", [False, True], ids=["torch-importable", "torch-blocked"])
def test_linting_examples_never_imports_torch(block):
    import subprocess

    completed = subprocess.run(
        [sys.executable, "-c", _NO_TORCH_SCRIPT.format(block=block)],
        cwd=REPO_ROOT, env=subprocess_env(), stdin=subprocess.DEVNULL,
        capture_output=True, text=True, encoding="utf-8", timeout=120,
    )
    assert "TORCH -\n" in completed.stderr, completed.stderr
    assert "STATUS 1\n" in completed.stderr, completed.stderr
    codes = codes_in(completed.stdout)
    assert "TCL005" in codes and "TCL008" in codes, completed.stdout


def test_examples_exit_1_and_list_tcl005_and_tcl008():
    # The README's first command, `torchcopylint examples/`, from the repository root: the
    # project's own configuration excludes examples/ from self-linting, but a directory named
    # on the command line is linted all the same.
    completed = run_torchcopylint("examples/")
    assert completed.returncode == 1, completed
    findings = FINDING_LINE.findall(completed.stdout)
    assert findings, completed.stdout
    for path, line, column, code in findings:
        assert (REPO_ROOT / path).is_file(), path
        assert int(line) >= 1 and int(column) >= 1
    codes = codes_in(completed.stdout)
    assert codes.count("TCL005") >= 1 and codes.count("TCL008") >= 1
    assert re.search(r"^Found \d+ errors?\.$", completed.stdout, re.M), completed.stdout
    assert "TCL900" not in codes, completed.stdout
    assert completed.stderr == ""


def test_a_project_s_modules_named_as_python_s_own_do_not_shadow_them(tmp_path: Path):
    # A repository linted from its root with `python -m torchcopylint` (fresh84's survival models keep a
    # `multiprocessing.py` there): Python puts the working directory first on the import path, and the
    # linter crashed importing the project's module instead of Python's.
    for name in ("multiprocessing", "json", "textwrap"):
        (tmp_path / f"{name}.py").write_text("raise ImportError('shadowed')\n", encoding="utf-8")
    (tmp_path / "train.py").write_text("import torch\n\ny = torch.tensor(torch.ones(2))\n", encoding="utf-8")
    result = run_torchcopylint("check", ".", "--no-cache", "--output-format", "json", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert [finding["code"] for finding in json.loads(result.stdout)] == ["TCL008"], result.stdout
    if importlib.util.find_spec("torch") is not None:
        # The verifier's child starts so too, in the same folder.
        result = run_torchcopylint("check", ".", "--no-cache", "--verify", "--output-format", "json", cwd=tmp_path)
        assert [finding["verdict"]["status"] for finding in json.loads(result.stdout)] == ["confirmed"], result.stdout


def test_clean_example_passes():
    completed = run_torchcopylint("examples/clean/")
    assert completed.returncode == 0, completed
    assert "All checks passed!" in completed.stdout


def test_self_lint_is_clean():
    # The project's configuration excludes examples/ and tests/data, so `torchcopylint .` passes.
    completed = run_torchcopylint(".")
    assert completed.returncode == 0, completed.stdout + completed.stderr


# --- --fix and --diff on a copy of the examples --------------------------------------------


def _parse_all(directory: Path) -> None:
    for path in directory.rglob("*.py"):
        libcst.parse_module(path.read_bytes())


def test_fix_removes_every_tcl005_and_is_idempotent(examples_copy: Path):
    before = run_torchcopylint("--select", "TCL005", ".", cwd=examples_copy)
    assert before.returncode == 1 and "TCL005" in codes_in(before.stdout), before

    fixed = run_torchcopylint("--fix", ".", cwd=examples_copy)
    assert fixed.returncode in (0, 1), fixed  # other rules' findings may remain
    assert "fixed" in fixed.stdout, fixed.stdout
    after_first = snapshot(examples_copy)
    _parse_all(examples_copy)

    remaining = run_torchcopylint("--select", "TCL005", ".", cwd=examples_copy)
    assert remaining.returncode == 0, remaining.stdout
    assert "TCL005" not in remaining.stdout

    again = run_torchcopylint("--fix", ".", cwd=examples_copy)
    assert again.returncode == fixed.returncode, again
    assert snapshot(examples_copy) == after_first
    assert " fixed, " not in again.stdout  # "Found N errors (F fixed, R remaining)" only when F > 0

    diff_after_fix = run_torchcopylint("--diff", ".", cwd=examples_copy)
    assert diff_after_fix.returncode == 0 and diff_after_fix.stdout == "", diff_after_fix


def test_fix_changes_the_flagged_files_and_nothing_else(examples_copy: Path):
    original = snapshot(examples_copy)
    run_torchcopylint("--fix", ".", cwd=examples_copy)
    changed = {path for path, data in snapshot(examples_copy).items() if original[path] != data}
    assert "utils/tensor_utils.py" in changed
    assert "clean/train_classifier.py" not in changed
    assert "train/dcgan_correct.py" not in changed
    assert "README.md" not in changed


def test_diff_writes_nothing_and_prints_a_diff(examples_copy: Path):
    original = snapshot(examples_copy)
    completed = run_torchcopylint("--diff", ".", cwd=examples_copy)
    assert completed.returncode == 1, completed
    assert snapshot(examples_copy) == original
    out = completed.stdout
    assert "--- a/utils/tensor_utils.py" in out and "+++ b/utils/tensor_utils.py" in out, out
    assert re.search(r"^@@ -\d+(,\d+)? \+\d+(,\d+)? @@", out, re.M)
    assert re.search(r"^-.*\.clone\(\)\.detach\(\)", out, re.M)
    assert re.search(r"^\+.*\.detach\(\)\.clone\(\)", out, re.M)


def test_fix_of_a_single_file(tmp_path: Path, monkeypatch, cli):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "m.py", CLONE_DETACH)
    result = cli("--fix", "m.py")
    assert result.exit_code == 0, result
    assert (tmp_path / "m.py").read_text() == CLONE_DETACH_FIXED
    assert "1 fixed, 0 remaining" in result.stdout


def test_unsafe_fixes_are_applied_only_when_asked(examples_copy: Path):
    # The examples carry findings whose fixes are unsafe (TCL002 adds a `.clone()`).
    original = snapshot(examples_copy)
    safe = run_torchcopylint("--diff", ".", cwd=examples_copy)
    unsafe = run_torchcopylint("--diff", "--unsafe-fixes", ".", cwd=examples_copy)
    added = lambda diff: [line for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert len(added(unsafe.stdout)) > len(added(safe.stdout)), unsafe.stdout
    assert snapshot(examples_copy) == original


# --- output formats on the examples ------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def _examples_in(output_format: str) -> str:
    completed = run_torchcopylint("--output-format", output_format, "examples/")
    assert completed.returncode == 1, completed
    assert completed.stderr == ""
    return completed.stdout


def test_github_format_lines_are_workflow_commands():
    lines = _examples_in("github").splitlines()
    assert lines
    for line in lines:
        assert GITHUB_LINE.match(line), line
    titles = " ".join(lines)
    assert "title=TCL005 clone-detach-order::" in titles and "title=TCL008 tensor-copy-construct::" in titles


def test_sarif_format_validates_against_the_schema():
    document = json.loads(_examples_in("sarif"))
    schema = json.loads(sarif_schema_path().read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(schema).validate(document)
    results = document["runs"][0]["results"]
    rule_ids = {result["ruleId"] for result in results}
    assert {"TCL005", "TCL008"} <= rule_ids
    for result in results:
        location = result["locations"][0]["physicalLocation"]
        assert (REPO_ROOT / location["artifactLocation"]["uri"]).is_file()
        assert location["region"]["startLine"] >= 1


def test_json_format_carries_path_line_column_code():
    findings = json.loads(_examples_in("json"))
    assert isinstance(findings, list) and findings
    for finding in findings:
        assert isinstance(finding["path"], str) and (REPO_ROOT / finding["path"]).is_file()
        assert isinstance(finding["line"], int) and finding["line"] >= 1
        assert isinstance(finding["column"], int) and finding["column"] >= 1
        assert re.fullmatch(r"TCL\d{3}", finding["code"])
    codes = {finding["code"] for finding in findings}
    assert {"TCL005", "TCL008"} <= codes


def test_gitlab_format_carries_path_and_line():
    issues = json.loads(_examples_in("gitlab"))
    assert isinstance(issues, list) and issues
    for issue in issues:
        assert (REPO_ROOT / issue["location"]["path"]).is_file()
        assert isinstance(issue["location"]["lines"]["begin"], int) and issue["location"]["lines"]["begin"] >= 1
        assert re.fullmatch(r"TCL\d{3}", issue["check_name"])
        assert issue["fingerprint"]
    assert {"TCL005", "TCL008"} <= {issue["check_name"] for issue in issues}


def test_every_format_reports_the_same_findings():
    text = FINDING_LINE.findall(_examples_in("text"))
    as_json = json.loads(_examples_in("json"))
    assert [(f["path"], f["line"], f["column"], f["code"]) for f in as_json] == [
        (path, int(line), int(column), code) for path, line, column, code in text
    ]
    assert len(_examples_in("github").splitlines()) == len(text)
    assert len(json.loads(_examples_in("sarif"))["runs"][0]["results"]) == len(text)
    assert len(json.loads(_examples_in("gitlab"))) == len(text)


@pytest.mark.parametrize("output_format", ["json", "sarif", "gitlab"])
def test_machine_formats_are_valid_json_when_clean(tmp_path: Path, monkeypatch, cli, output_format):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "ok.py", CLEAN)
    result = cli("--output-format", output_format, "--quiet", ".")
    assert result.exit_code == 0
    json.loads(result.stdout)


def test_unknown_output_format_exits_2(tmp_path: Path, monkeypatch, cli):
    monkeypatch.chdir(tmp_path)
    result = cli("--output-format", "xml", ".")
    assert result.exit_code == 2
    assert "xml" in result.stderr


# --- the options -------------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path, monkeypatch) -> Path:
    """A directory with one TCL005 finding, one TCL008 finding and a clean file; cwd is there."""
    write(tmp_path / "a.py", CLONE_DETACH)
    write(tmp_path / "b.py", "import torch\n\n\ndef g(t: torch.Tensor):\n    return torch.tensor(t)\n")
    write(tmp_path / "clean.py", CLEAN)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_default_path_is_the_current_directory(project: Path, cli):
    result = cli()
    assert result.exit_code == 1
    assert sorted(codes_in(result.stdout)) == ["TCL005", "TCL008"]
    assert "a.py:5:12: TCL005" in result.stdout


def test_version(cli):
    result = cli("--version")
    assert result.exit_code == 0
    assert torchcopylint.__version__ in result.stdout
    assert "torchcopylint" in result.stdout


def test_version_in_a_subprocess():
    completed = run_torchcopylint("--version")
    assert completed.returncode == 0
    assert completed.stdout.strip() == f"torchcopylint, version {torchcopylint.__version__}"


def test_help_lists_the_options(cli):
    result = cli("check", "--help")
    assert result.exit_code == 0
    for option in ("--select", "--ignore", "--extend-select", "--fix", "--unsafe-fixes", "--diff",
                   "--output-format", "--exit-zero", "--statistics", "--config", "--quiet", "--force-exclude"):
        assert option in result.stdout, option


def test_select(project: Path, cli):
    result = cli("--select", "TCL005", ".")
    assert result.exit_code == 1
    assert codes_in(result.stdout) == ["TCL005"]


def test_select_by_prefix(project: Path, cli):
    assert sorted(codes_in(cli("--select", "TCL00", ".").stdout)) == ["TCL005", "TCL008"]
    assert codes_in(cli("--select", "tcl008", ".").stdout) == ["TCL008"]


def test_ignore(project: Path, cli):
    result = cli("--ignore", "TCL005,TCL001", ".")
    assert codes_in(result.stdout) == ["TCL008"]
    result = cli("--ignore", "TCL", ".")
    assert result.exit_code == 0 and "All checks passed!" in result.stdout


def test_extend_select_adds_to_select(project: Path, cli):
    result = cli("--select", "TCL005", "--extend-select", "TCL008", ".")
    assert sorted(codes_in(result.stdout)) == ["TCL005", "TCL008"]


def test_ignore_wins_over_select(project: Path, cli):
    result = cli("--select", "TCL005,TCL008", "--ignore", "TCL008", ".")
    assert codes_in(result.stdout) == ["TCL005"]


@pytest.mark.parametrize("option", ["--select", "--ignore", "--extend-select"])
def test_unknown_rule_selector_exits_2(project: Path, cli, option):
    result = cli(option, "NOPE123", ".")
    assert result.exit_code == 2
    assert "unknown rule selector 'NOPE123'" in result.stderr
    assert result.stdout == ""


def test_exit_zero(project: Path, cli):
    result = cli("--exit-zero", ".")
    assert result.exit_code == 0
    assert "TCL005" in result.stdout


def test_statistics(project: Path, cli):
    write(project / "c.py", CLONE_DETACH)
    result = cli("--statistics", ".")
    assert result.exit_code == 1
    rows = [line.split("\t") for line in result.stdout.splitlines() if "\t" in line]
    assert rows[0][0].strip() == "2" and rows[0][1].strip() == "TCL005" and rows[0][-1].endswith("clone-detach-order")
    assert rows[1][0].strip() == "1" and rows[1][1].strip() == "TCL008"
    assert not FINDING_LINE.search(result.stdout)  # counts instead of each finding


def test_quiet_prints_findings_only(project: Path, cli):
    result = cli("--quiet", ".")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 2 and all(FINDING_LINE.match(line) for line in lines), lines
    clean = cli("-q", "clean.py")
    assert clean.exit_code == 0 and clean.stdout == ""


def test_summary_without_quiet(project: Path, cli):
    result = cli(".")
    assert "Found 2 errors." in result.stdout
    assert cli("clean.py").stdout == "All checks passed!\n"


def test_missing_path_exits_2_with_a_message(project: Path, cli):
    result = cli("a.py", "does/not/exist.py")
    assert result.exit_code == 2
    assert "does/not/exist.py" in result.stderr and "does not exist" in result.stderr


def test_missing_path_in_a_subprocess(tmp_path: Path):
    completed = run_torchcopylint("nope/", cwd=tmp_path)
    assert completed.returncode == 2
    assert completed.stderr.strip() == "error: path does not exist: nope/"
    assert "Traceback" not in completed.stderr


def test_config_option_names_the_file(project: Path, cli):
    write(project / "settings" / "lint.toml", '[tool.torchcopylint]\nignore = ["TCL005"]\n')
    result = cli("--config", "settings/lint.toml", ".")
    assert codes_in(result.stdout) == ["TCL008"]


def test_config_option_accepts_a_plain_torchcopylint_toml(project: Path, cli):
    write(project / "torchcopylint.toml", 'select = ["TCL008"]\n')
    result = cli("--config", "torchcopylint.toml", ".")
    assert codes_in(result.stdout) == ["TCL008"]


def test_config_option_with_a_missing_file_exits_2(project: Path, cli):
    result = cli("--config", "missing.toml", ".")
    assert result.exit_code == 2
    assert "missing.toml" in result.stderr


def test_show_fixes(project: Path, cli):
    result = cli("--show-fixes", "a.py")
    assert "help:" in result.stdout and "(safe fix)" in result.stdout


def test_no_colour_when_not_a_terminal(project: Path):
    completed = run_torchcopylint(".", cwd=project)
    assert "\x1b[" not in completed.stdout


# --- the subcommands ---------------------------------------------------------------------------


def test_rules_lists_every_rule(cli):
    result = cli("rules")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == [rule.code for rule in ALL_RULES]
    listed = {line.split()[0]: line for line in lines}
    assert "clone-detach-order" in listed["TCL005"]
    assert "tensor-copy-construct" in listed["TCL008"]


def test_rule_prints_the_page(cli):
    result = cli("rule", "TCL005")
    assert result.exit_code == 0
    assert result.stdout == (REPO_ROOT / "rules" / "TCL005.md").read_text(encoding="utf-8")
    assert cli("rule", "tcl008").stdout.startswith("# TCL008 tensor-copy-construct")


@pytest.mark.parametrize("code", ["NOPE", "TCL999", "TCL900"])
def test_rule_with_an_unknown_code_exits_2(cli, code):
    result = cli("rule", code)
    assert result.exit_code == 2
    assert f"unknown rule {code!r}" in result.stderr
    assert result.stdout == ""


def test_python_dash_m_and_console_script_agree():
    completed = run_torchcopylint("rules")
    assert completed.returncode == 0
    assert "TCL005" in completed.stdout and "TCL008" in completed.stdout


def test_a_directory_named_like_a_subcommand_via_check(tmp_path: Path, monkeypatch, cli):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "rules" / "x.py", CLONE_DETACH)
    result = cli("check", "rules")
    assert result.exit_code == 1 and codes_in(result.stdout) == ["TCL005"]


# --- verdicts in the summary, through the command line (verify replaced: nothing runs) -----------


def test_summary_and_statistics_count_the_verdicts(tmp_path: Path, monkeypatch, cli):
    import dataclasses

    import torchcopylint.verify.runner as runner
    from torchcopylint.diagnostic import Verdict

    (tmp_path / "m.py").write_text("import torch\n\n\ndef f(net, y):\n    a = net(y).clone().detach()\n"
                                   "    b = (y * 2).clone().detach()\n    w = torch.zeros(3, requires_grad=True)\n"
                                   "    w.add_(1)\n    return a, b, w\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(runner, "resolve_device", lambda requested, python=sys.executable: "cpu")
    statuses = iter(["confirmed", "refuted", "not reached"])
    monkeypatch.setattr(runner, "verify", lambda diagnostics, sources, options, tree=(): [
        dataclasses.replace(d, verdict=Verdict(next(statuses), "made up for the test")) for d in diagnostics])
    listed = cli("--verify", "m.py")
    assert "Found 3 errors (1 confirmed, 1 refuted, 1 not reached)." in listed.stdout, listed.stdout
    statuses = iter(["confirmed", "refuted", "unverified"])
    counted = cli("--verify", "--statistics", "m.py")
    rows = [line.split("\t") for line in counted.stdout.splitlines()]
    assert rows[0][1] == "TCL005" and rows[0][-1] == "1 confirmed, 1 refuted", rows
    assert rows[1][1] == "TCL004" and rows[1][-1] == "1 unverified", rows
