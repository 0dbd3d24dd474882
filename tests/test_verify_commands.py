"""Commands the user's code runs under `--verify` (verify/sandbox.py): installers and downloads never run.

Course helpers install what they miss (`subprocess.check_call(["pip", "install", name, "-q"])` in an
`except ImportError:`), notebooks exported to scripts fetch their data (`os.system("wget " + url)`).
Verification never changes the environment nor touches the network: such a command does not run and
reports success, said in the evidence, and a package still missing gets its stand-in.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import run_torchcopylint, subprocess_env

from torchcopylint.verify.sandbox import installs_or_fetches


@pytest.mark.parametrize("command, part", [
    ("pip install -q torchmetrics", "pip install -q torchmetrics"),
    (["pip", "install", "torchmetrics", "-q"], "pip install torchmetrics -q"),
    ([sys.executable, "-m", "pip", "install", "lpips"], "pip install lpips"),
    ("cd data && wget http://example.org/celeba.zip && unzip celeba.zip", "wget http://example.org/celeba.zip"),
    ("sudo apt-get install -y ffmpeg", "apt-get install -y ffmpeg"),
    ("git clone https://github.com/example/repo", "git clone https://github.com/example/repo"),
    (b"curl -O http://example.org/weights.pth", "curl -O http://example.org/weights.pth"),
])
def test_commands_that_install_or_fetch_are_recognised(command, part):
    assert installs_or_fetches(command) == part


@pytest.mark.parametrize("command", ["git rev-parse HEAD", "pip list", "nvidia-smi", "ls data | wc -l",
                                     ["python", "evaluate.py", "--install"], "echo 'pip install x'"])
def test_other_commands_are_not_taken_for_installs(command):
    # A commit hash for the log, the GPU's state, a count of files: they change nothing, and run.
    assert installs_or_fetches(command) is None


def _failing_pip(tmp_path: Path) -> tuple[dict, Path]:
    """An environment whose `pip` leaves a mark when it runs and fails, as with no network; and the mark."""
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    marker = tmp_path / "pip-ran"
    fake_pip = bin_folder / "pip"
    fake_pip.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n", encoding="utf-8")
    fake_pip.chmod(0o755)
    return {"PATH": f"{bin_folder}{os.pathsep}{os.environ['PATH']}"}, marker


def test_the_sandbox_runs_no_installer_and_lets_other_commands_run(tmp_path: Path):
    env, marker = _failing_pip(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    (project / "train.py").write_text("print('hi')\n", encoding="utf-8")
    code = textwrap.dedent(f"""\
        import os, subprocess
        from torchcopylint.verify import sandbox
        sandbox.install({str(project)!r}, {str(project / "train.py")!r})
        print("check_call:", subprocess.check_call(["pip", "install", "torchmetrics", "-q"]))
        print("run:", subprocess.run("pip install lpips", shell=True, capture_output=True, text=True).returncode)
        print("system:", os.system("wget http://example.org/celeba.zip -P data"))
        print("output:", repr(subprocess.check_output(["pip", "install", "x"], text=True)))
        print("echo:", subprocess.run(["echo", "hi"], capture_output=True, text=True).stdout.strip())
        print("events:", sandbox.events())
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=project,
                            env=subprocess_env(env), timeout=120)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for line in ("check_call: 0", "run: 0", "system: 0", "output: ''", "echo: hi"):
        assert line in out, out
    assert not marker.exists()
    assert "`pip install torchmetrics -q` was not run: verification never installs packages nor downloads" in out
    assert "`wget http://example.org/celeba.zip -P data` was not run" in out


HELPERS = '''\
import subprocess


def install_package(name):
    try:
        __import__(name)
    except ImportError:
        subprocess.check_call(["pip", "install", name, "-q"])


try:
    from torchmetrics.classification import MulticlassAccuracy
except Exception:
    install_package("torchmetrics")
    from torchmetrics.classification import MulticlassAccuracy


def accuracy(logits, labels):
    return (logits.argmax(dim=1) == labels).float().mean().item()
'''

SCRIPT = '''\
import torch
from torch import nn

from helpers import accuracy

model = nn.Linear(4, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
total_loss = 0
for step in range(3):
    x, labels = torch.randn(8, 4), torch.randint(0, 3, (8,))
    logits = model(x)
    loss = nn.functional.cross_entropy(logits, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    total_loss += loss
    print(step, accuracy(logits, labels))
'''


@pytest.mark.skipif(importlib.util.find_spec("torch") is None or importlib.util.find_spec("torchmetrics") is not None,
                    reason="needs torch, and torchmetrics missing (pip install torchcopylint[verify])")
def test_a_helper_that_installs_what_it_misses_is_verified_on_a_stand_in(tmp_path: Path):
    # fresh113's course notebooks: helper_functions.py installs torchmetrics when its import fails; the
    # experiment stopped at "CalledProcessError: Command '['pip', 'install', 'torchmetrics', '-q']'".
    env, marker = _failing_pip(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    (project / "helpers.py").write_text(HELPERS, encoding="utf-8")
    (project / "train.py").write_text(SCRIPT, encoding="utf-8")
    result = run_torchcopylint("--verify", "--output-format", "json", "--no-cache", ".", cwd=project, env=env,
                               timeout=600)
    records = [r for r in json.loads(result.stdout) if r["code"] == "TCL007"]
    assert len(records) == 1, (result.stdout, result.stderr[-2000:])
    verdict = records[0]["verdict"]
    assert verdict["status"] == "confirmed", verdict
    assert not marker.exists()
    for part in ("`pip install torchmetrics -q` was not run", "`torchmetrics` is not installed: no-ops stood in"):
        assert part in verdict["evidence"], verdict
