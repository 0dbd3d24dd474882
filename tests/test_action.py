"""The GitHub Action (action.yml): its structure, and its steps run as the runner runs them.

The runner evaluates `${{ inputs.* }}` and `${{ github.action_path }}` in each step's `env`
and `run`, writes the script to a file and runs `bash --noprofile --norc -eo pipefail FILE`
with GITHUB_OUTPUT naming a file for step outputs. That is what `run_step` does. The install
step runs against a stand-in `python` that records its arguments (no network in tests); the
lint step runs the real interpreter, with this checkout importable (as the install would make it).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest

from conftest import REPO_ROOT, subprocess_env, write

yaml = pytest.importorskip("yaml")

ACTION = yaml.safe_load((REPO_ROOT / "action.yml").read_text(encoding="utf-8"))
EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")
FLAGGED = "import torch\nx = torch.ones(2, requires_grad=True)\n\ndef snapshot():\n    return x.clone().detach()\n"


def step(name: str) -> dict:
    return next(step for step in ACTION["runs"]["steps"] if step.get("name") == name)


def evaluate(text: str, inputs: dict[str, str]) -> str:
    """The runner's expression substitution for the two contexts a composite action's scripts use."""
    def value(match: re.Match) -> str:
        expression = match.group(1)
        if expression.startswith("inputs."):
            name = expression[len("inputs."):]
            assert name in ACTION["inputs"], f"{name} is not an input of the action"
            return inputs.get(name, ACTION["inputs"][name].get("default", ""))
        if expression == "github.action_path":
            return str(REPO_ROOT)
        raise AssertionError(f"the test does not evaluate ${{{{ {expression} }}}}")

    return EXPRESSION.sub(value, text)


def run_step(name: str, inputs: dict[str, str], cwd: Path, python: Optional[Path] = None) -> tuple[int, str, dict]:
    """(exit status, stdout, outputs) of one step, run the runner's way."""
    definition = step(name)
    assert definition["shell"] == "bash"
    script = cwd / f".step-{definition.get('id', 'x')}.sh"
    script.write_text(evaluate(definition["run"], inputs), encoding="utf-8")
    outputs_file = cwd / ".github_output"
    outputs_file.write_text("", encoding="utf-8")
    env = subprocess_env({key: evaluate(str(value), inputs) for key, value in definition.get("env", {}).items()})
    env["GITHUB_OUTPUT"] = str(outputs_file)
    if python is not None:
        env["PATH"] = os.pathsep.join([str(python.parent), env["PATH"]])
    result = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=cwd, env=env,
                            capture_output=True, text=True, timeout=120)
    script.unlink()
    outputs = dict(line.split("=", 1) for line in outputs_file.read_text(encoding="utf-8").splitlines() if line)
    return result.returncode, result.stdout, outputs


@pytest.fixture
def real_python(tmp_path: Path) -> Path:
    """A `python` on PATH that is this interpreter (the runner's Python with the package installed)."""
    directory = tmp_path / "runner-bin"
    directory.mkdir()
    link = directory / "python"
    link.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    link.chmod(0o755)
    return link


@pytest.fixture
def recording_python(tmp_path: Path) -> Path:
    """A `python` that records its arguments and succeeds: the install step without a network."""
    directory = tmp_path / "recording-bin"
    directory.mkdir()
    link = directory / "python"
    link.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{directory}/args"\n', encoding="utf-8")
    link.chmod(0o755)
    return link


# ----------------------------------------------------------------------------------- structure


def test_action_yml_has_the_structure_github_requires():
    assert isinstance(ACTION["name"], str) and ACTION["name"]
    assert isinstance(ACTION["description"], str) and ACTION["description"]
    assert set(ACTION["inputs"]) == {"paths", "args", "version", "sarif"}
    for name, spec in ACTION["inputs"].items():
        assert isinstance(spec["description"], str) and spec["description"], name
        assert set(spec) <= {"description", "required", "default", "deprecationMessage"}, name
    assert ACTION["runs"]["using"] == "composite"
    steps = ACTION["runs"]["steps"]
    assert steps
    for definition in steps:
        assert ("run" in definition) != ("uses" in definition)
        if "run" in definition:
            assert definition["shell"] in {"bash", "sh", "pwsh", "python", "cmd", "powershell"}
            # inputs go through env: spliced into the script they could inject shell code
            assert "${{" not in definition["run"]
    step_ids = {definition.get("id") for definition in steps}
    for name, spec in ACTION["outputs"].items():
        assert spec["description"], name
        referenced = re.fullmatch(r"\$\{\{ steps\.(\w+)\.outputs\.(\w+) \}\}", spec["value"])
        assert referenced is not None and referenced.group(1) in step_ids
    assert "--output-format github" in step("Run torchcopylint")["run"]


# --------------------------------------------------------------------------------- the steps


def test_install_step_installs_the_actions_own_ref_by_default(tmp_path, recording_python):
    status, _, _ = run_step("Install torchcopylint", {}, tmp_path, python=recording_python)
    assert status == 0
    args = (recording_python.parent / "args").read_text(encoding="utf-8").splitlines()
    assert args[:3] == ["-m", "pip", "install"] and args[-1] == str(REPO_ROOT)


def test_install_step_installs_a_release_when_a_version_is_given(tmp_path, recording_python):
    status, _, _ = run_step("Install torchcopylint", {"version": "0.1.0"}, tmp_path, python=recording_python)
    assert status == 0
    args = (recording_python.parent / "args").read_text(encoding="utf-8").splitlines()
    assert args[-1] == "torchcopylint==0.1.0"


def test_lint_step_on_a_tree_with_a_finding_annotates_it_and_fails(tmp_path, real_python):
    write(tmp_path / "src" / "model.py", FLAGGED)
    write(tmp_path / "src" / "clean.py", "x = 1\n")
    status, stdout, outputs = run_step("Run torchcopylint", {"paths": "src", "args": "--no-cache"}, tmp_path,
                                       python=real_python)
    assert status == 1
    assert stdout.splitlines() == [
        "::error file=src/model.py,line=5,col=12,endLine=5,endColumn=30,title=TCL005 clone-detach-order::"
        + stdout.split("clone-detach-order::", 1)[1].strip()
    ]
    assert outputs == {"sarif": ""}


def test_lint_step_on_a_clean_tree_passes_silently(tmp_path, real_python):
    write(tmp_path / "src" / "clean.py", "import torch\n\n\ndef f(x):\n    return x.detach().clone()\n")
    status, stdout, _ = run_step("Run torchcopylint", {"paths": "src"}, tmp_path, python=real_python)
    assert (status, stdout) == (0, "")


def test_lint_step_writes_the_sarif_report_and_names_it_as_an_output(tmp_path, real_python):
    write(tmp_path / "a model.py", FLAGGED)  # found by the walk of the default path "."
    write(tmp_path / "nb" / "train.py", FLAGGED)
    (tmp_path / "out").mkdir()
    status, stdout, outputs = run_step("Run torchcopylint", {"sarif": "out/report.sarif"}, tmp_path,
                                       python=real_python)
    assert status == 1 and stdout.count("::error ") == 2
    assert outputs == {"sarif": "out/report.sarif"}
    report = json.loads((tmp_path / "out" / "report.sarif").read_text(encoding="utf-8"))
    assert sorted(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                  for result in report["runs"][0]["results"]) == ["a%20model.py", "nb/train.py"]


# ---------------------------------------------------------------------- the README's workflows


def readme_workflows() -> list[dict]:
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## GitHub Actions", 1)[1].split("\n## ", 1)[0]
    return [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", section, re.S)]


def test_readme_workflows_use_only_inputs_and_outputs_the_action_defines():
    workflows = readme_workflows()
    assert len(workflows) >= 2
    uses_action = 0
    for workflow in workflows:
        for job in workflow["jobs"].values():
            ids = {}
            for definition in job["steps"]:
                if str(definition.get("uses", "")).startswith("torchcopylint/torchcopylint@"):
                    uses_action += 1
                    assert set(definition.get("with", {})) <= set(ACTION["inputs"])
                    ids[definition.get("id")] = definition
                for value in definition.get("with", {}).values():
                    for expression in EXPRESSION.findall(str(value)):
                        step_id, output = re.fullmatch(r"steps\.(\w+)\.outputs\.(\w+)", expression).groups()
                        assert step_id in ids and output in ACTION["outputs"]
    assert uses_action >= 2
    assert any("sarif" in d.get("with", {}) for w in workflows for j in w["jobs"].values() for d in j["steps"]
               if str(d.get("uses", "")).startswith("torchcopylint/"))
