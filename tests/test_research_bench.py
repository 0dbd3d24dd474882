"""bench/research.py: how it reads the list of repositories and checks them out, names unverified
reasons, follows a repository's imports, diffs two runs, and one real (static) run of the tool over a small repository."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

RESEARCH = Path(__file__).resolve().parent.parent / "bench" / "research.py"


@pytest.fixture(scope="module")
def research():
    spec = importlib.util.spec_from_file_location("bench_research", RESEARCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def test_the_list_names_folders_under_the_root(research, tmp_path, monkeypatch):
    write(tmp_path, {"repos.toml": """\
        [[repo]]
        name = "a/b"
        commit = "123"
        category = "gan-scripts"

        [[repo]]
        name = "c/d.e"
        commit = "456"
        """})
    repos = research.listed_repositories(tmp_path / "repos.toml")
    assert [research.folder_name(repo) for repo in repos] == ["a__b", "c__d.e"]
    assert repos[0]["category"] == "gan-scripts"
    monkeypatch.delenv(research.ROOT_VARIABLE, raising=False)
    with pytest.raises(SystemExit):
        research.research_root(None)
    monkeypatch.setenv(research.ROOT_VARIABLE, str(tmp_path / "env"))
    assert research.research_root(None) == tmp_path / "env"
    assert research.research_root(tmp_path / "given") == tmp_path / "given"
    with pytest.raises(SystemExit, match="not checked out"):
        research.main(["--list", str(tmp_path / "repos.toml"), "--root", str(tmp_path)])


def test_the_committed_lists_are_well_formed_and_disjoint(research):
    held_out = research.listed_repositories(research.DEFAULT_LIST)
    fresh = research.listed_repositories(research.DEFAULT_LIST.with_name("fresh-repos.toml"))
    verify = research.listed_repositories(research.DEFAULT_LIST.with_name("verify-repos.toml"))
    for repos in (held_out, fresh, verify):
        assert len(repos) >= 12
        assert all(len(repo["commit"]) == 40 and repo.get("category") for repo in repos)
        assert len({repo["name"] for repo in repos}) == len(repos)
    # Each later list measures on code the earlier ones did not show (owners included).
    owners = [{repo["name"].split("/")[0].lower() for repo in repos} for repos in (held_out, fresh, verify)]
    assert not owners[0] & owners[1] and not owners[0] & owners[2] and not owners[1] & owners[2]


def git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})


def test_checkout_brings_each_repository_to_its_commit(research, tmp_path):
    origin = tmp_path / "remotes" / "own" / "proj"
    write(origin, {"train.py": "x = 1\n"})
    git("init", "-q", cwd=origin)
    git("add", ".", cwd=origin)
    git("commit", "-q", "-m", "one", cwd=origin)
    first = subprocess.run(["git", "rev-parse", "HEAD"], cwd=origin, capture_output=True, text=True).stdout.strip()
    (origin / "train.py").write_text("x = 2\n")
    git("commit", "-q", "-am", "two", cwd=origin)
    remote = str(tmp_path / "remotes") + "/{name}"
    repos = [{"name": "own/proj", "commit": first}]
    assert research.checkout(repos, tmp_path / "root", remote) == []
    assert (tmp_path / "root" / "own__proj" / "train.py").read_text() == "x = 1\n"
    assert research.checkout(repos, tmp_path / "root", remote) == []  # already there: nothing to do
    problems = research.checkout([{"name": "own/absent", "commit": first}], tmp_path / "root", remote)
    assert len(problems) == 1 and problems[0].startswith("own/absent")


@pytest.mark.parametrize("evidence, reason", [
    ("could not import what the code needs: No module named 'scipy'", "No module named scipy"),
    ("could not import what the code needs: attempted relative import with no known parent package",
     "relative import with no known parent package"),
    ("train() needs an argument `loader` it could not make", "needs an argument it could not make"),
    ("timed out after 20 s", "timeout"),
    ("no input shape fits Net.forward (tried (2, 16): RuntimeError)", "no input shape fits"),
    ("the experiment failed: TypeError: conv2d() received an invalid combination", "experiment failed: TypeError"),
    ("something new: with detail (1, 2)", "something new"),
])
def test_unverified_evidence_gets_a_short_reason(research, evidence, reason):
    assert research.short_reason(evidence) == reason


def test_third_party_imports_follow_siblings_packages_and_relative_imports(research, tmp_path):
    write(tmp_path, {
        "train.py": "import torch\nimport utils\nfrom pkg.sub import mod\n",
        "utils.py": "import scipy.misc\nimport os\ntry:\n    import wandb\nexcept ImportError:\n    wandb = None\n",
        "pkg/__init__.py": "import einops\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/mod.py": "from ..helpers import f\n\ndef g():\n    import lazy_only_in_a_function\n",
        "pkg/helpers.py": "import gymnasium as gym\n",
    })
    assert research.third_party_imports(tmp_path / "train.py", tmp_path) == {"torch", "scipy", "einops", "gymnasium"}
    # importing a module of a package runs the package's __init__ first
    assert research.third_party_imports(tmp_path / "pkg/helpers.py", tmp_path) == {"einops", "gymnasium"}


def run_record(findings):
    return {"verify": True, "runs": [{"dir": "r", "problem": None, "findings": findings}]}


def finding(line, code, status, evidence=""):
    return {"path": "a.py", "line": line, "code": code, "message": f"m{line}", "status": status, "evidence": evidence}


def test_diff_lists_gained_lost_and_changed_verdicts(research):
    old = run_record([finding(1, "TCL001", "unverified", "timed out"), finding(2, "TCL003", "refuted")])
    new = run_record([finding(1, "TCL001", "confirmed", "same values"), finding(3, "TCL002", "confirmed")])
    text = research.render_diff(old, new)
    assert "| TCL002 | 1 | 0 |" in text and "| TCL003 | 0 | 1 |" in text
    assert "`r/a.py:3` TCL002 m3" in text and "`r/a.py:2` TCL003 m2" in text
    assert "| unverified | confirmed | 1 |" in text
    assert research.render_diff(old, old) == "no difference"


def test_a_static_run_over_a_small_repository(research, tmp_path):
    repo = tmp_path / "owner+gan"
    write(repo, {"train.py": """\
        import torch
        from torch import nn

        def step(gen: nn.Module, disc: nn.Module, z):
            opt_d = torch.optim.SGD(disc.parameters(), lr=0.1)
            fake = gen(z)
            loss = disc(fake).mean()
            opt_d.zero_grad()
            loss.backward()
            opt_d.step()
        """})
    saved = tmp_path / "run.json"
    research.main([str(repo), "--python", sys.executable, "-j", "1", "--json", str(saved)])
    run = json.loads(saved.read_text())["runs"][0]
    assert run["dir"] == "owner+gan" and run["problem"] is None
    assert [(f["path"], f["code"]) for f in run["findings"]] == [("train.py", "TCL003")]
    table = research.render_tables([run], verify=False)
    assert "| owner+gan | 1 | 0 |" in table
