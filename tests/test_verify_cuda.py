"""`--verify --device cuda`: the residual fixtures on a GPU, and a clear error where there is none.

The GPU tests skip on a machine without CUDA (CI); the error test runs there, and
skips only where a GPU is present (it could not fail there).
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import TESTS_DATA, run_torchcopylint

from torchcopylint.diagnostic import Diagnostic, Edit, Fix, Location, Severity
from torchcopylint.engine import lint_source

FIXTURES = TESTS_DATA / "verify"


def _gpu_available() -> bool:
    if importlib.util.find_spec("torch") is None:
        return False
    import torch

    return torch.cuda.is_available()


HAS_GPU = _gpu_available()
needs_gpu = pytest.mark.skipif(not HAS_GPU, reason="needs a CUDA GPU")


# --- without a GPU ------------------------------------------------------------------------


@pytest.mark.skipif(HAS_GPU, reason="a GPU is present: --device cuda is valid here")
def test_device_cuda_without_a_gpu_exits_2_with_a_clear_message(tmp_path: Path, monkeypatch, cli):
    shutil.copy(FIXTURES / "residual.py", tmp_path / "residual.py")
    monkeypatch.chdir(tmp_path)
    result = cli("--verify", "--device", "cuda", "residual.py")
    assert result.exit_code == 2, result
    assert "--device cuda" in result.stderr and "no GPU" in result.stderr, result
    assert result.stderr.startswith("error: "), result
    # Nothing was reported or run: the error replaces the report.
    assert "TCL001" not in result.stdout, result


def test_device_auto_picks_what_is_there():
    from torchcopylint.verify.runner import resolve_device

    if importlib.util.find_spec("torch") is None:
        assert resolve_device("auto") == "cpu"
    else:
        assert resolve_device("auto") == ("cuda" if HAS_GPU else "cpu")
    assert resolve_device("cpu") == "cpu"


# --- on a GPU -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def residual_on_cuda(tmp_path_factory):
    """residual.py's diagnoses (the linter's, and a false TCL001 on the clone that is needed) verified on CUDA."""
    pytest.importorskip("torch")
    from torchcopylint.verify.runner import VerifyOptions, verify

    directory = tmp_path_factory.mktemp("verify-cuda")
    path = directory / "residual.py"
    shutil.copy(FIXTURES / "residual.py", path)
    source = path.read_text(encoding="utf-8")
    diagnostics = lint_source(source, str(path))
    needed = [n for n, text in enumerate(source.splitlines(), 1) if "identity = x.clone()" in text][1]
    text = source.splitlines()[needed - 1]
    start = text.index("x.clone()") + 1
    end = start + len("x.clone()")
    diagnostics.append(Diagnostic(
        "TCL001", "redundant-clone", "`x.clone()` is never written to", Location(str(path), needed, start, needed, end),
        Severity.ERROR, fix=Fix.unsafe("Remove `.clone()`", Edit(needed, start, needed, end, "x")),
    ))
    verified = verify(diagnostics, {str(path): source}, VerifyOptions(device="cuda"))
    return source, {(d.location.line, d.code): d.verdict for d in verified}


@needs_gpu
def test_cuda_redundant_clone_is_confirmed(residual_on_cuda):
    source, verdicts = residual_on_cuda
    line = next(n for n, text in enumerate(source.splitlines(), 1) if "identity = x.clone()" in text)
    verdict = verdicts[(line, "TCL001")]
    assert verdict.status == "confirmed", verdict
    assert "bitwise equal" in verdict.evidence and re.search(r"allocated [\d,]+ bytes", verdict.evidence), verdict


@needs_gpu
def test_cuda_alias_is_confirmed(residual_on_cuda):
    source, verdicts = residual_on_cuda
    line = next(n for n, text in enumerate(source.splitlines(), 1) if text.strip() == "identity = x")
    verdict = verdicts[(line, "TCL002")]
    assert verdict.status == "confirmed", verdict
    difference = re.search(r"largest output difference ([0-9.eE+-]+|inf)", verdict.evidence)
    assert difference and float(difference.group(1)) > 0, verdict


@needs_gpu
def test_cuda_needed_clone_is_refuted(residual_on_cuda):
    source, verdicts = residual_on_cuda
    line = [n for n, text in enumerate(source.splitlines(), 1) if "identity = x.clone()" in text][1]
    assert verdicts[(line, "TCL001")].status == "refuted", verdicts[(line, "TCL001")]


@needs_gpu
def test_cli_device_cuda_confirms(tmp_path: Path):
    shutil.copy(FIXTURES / "residual.py", tmp_path / "residual.py")
    result = run_torchcopylint("--verify", "--device", "cuda", "--output-format", "json", "residual.py",
                               cwd=tmp_path, timeout=300)
    records = json.loads(result.stdout)
    assert {r["code"] for r in records} == {"TCL001", "TCL002"}, result.stderr
    assert all(r["verdict"]["status"] == "confirmed" for r in records), records
    assert result.returncode == 1
