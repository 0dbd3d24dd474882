"""The engine: lint_source / lint_paths, noqa, positions, and what it hands the fixer."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import CLEAN, CLONE_DETACH, write

from torchcopylint import noqa
from torchcopylint.config import Settings
from torchcopylint.diagnostic import Diagnostic
from torchcopylint.engine import FILE_ERROR_CODE, lint_paths, lint_source, select_rules
from torchcopylint.rules import rule_by_code

BOTH = """import torch
x = torch.ones(2, requires_grad=True)

def f(t: torch.Tensor):
    a = x.clone().detach(){noqa5}
    b = torch.tensor(t){noqa8}
    return a, b
"""


def codes(diagnostics: list[Diagnostic]) -> list[str]:
    return [d.code for d in diagnostics]


def both(noqa5: str = "", noqa8: str = "") -> str:
    return BOTH.format(noqa5=noqa5, noqa8=noqa8)


def test_lint_source_reports_each_rule():
    diagnostics = lint_source(both(), "m.py")
    assert codes(diagnostics) == ["TCL005", "TCL008"]
    first = diagnostics[0]
    assert (first.path, first.location.line, first.location.column) == ("m.py", 5, 9)
    assert first.name == "clone-detach-order" and first.fix is not None


def test_lint_source_accepts_bytes_and_str_alike():
    assert lint_source(both().encode("utf-8"), "m.py") == lint_source(both(), "m.py")


def test_clean_source():
    assert lint_source(CLEAN, "m.py") == []
    assert lint_source("", "m.py") == []


def test_positions_with_crlf_and_a_bom():
    crlf = "\ufeff" + both().replace("\n", "\r\n")
    assert [(d.location.line, d.location.column) for d in lint_source(crlf.encode("utf-8"), "m.py")] == [(5, 9), (6, 9)]


def test_columns_count_characters_not_bytes():
    source = "import torch\nx = torch.ones(2, requires_grad=True)\n\ndef f():\n    é = 'ü'; return x.clone().detach()\n"
    [diagnostic] = lint_source(source, "m.py")
    assert diagnostic.location.column == source.splitlines()[4].index("x.clone") + 1


def test_rules_can_be_chosen():
    assert codes(lint_source(both(), "m.py", [rule_by_code("TCL008")])) == ["TCL008"]
    assert lint_source(both(), "m.py", []) == []


# --- noqa -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "comment, expected",
    [
        ("  # noqa", ["TCL008"]),
        ("  # noqa: TCL005", ["TCL008"]),
        ("  # NOQA:TCL005", ["TCL008"]),
        ("  # noqa: tcl005", ["TCL008"]),
        ("  # noqa: TCL008", ["TCL005", "TCL008"]),  # another code: not suppressed
        ("  # noqa: E501, TCL005", ["TCL008"]),
        ("  # noqa: TCL001 TCL005", ["TCL008"]),
        ("  # some words  # noqa: TCL005", ["TCL008"]),
        ("  # noqa: TCL005 (the copy is intended)", ["TCL008"]),
        ("  # no qa", ["TCL005", "TCL008"]),
    ],
)
def test_line_noqa(comment: str, expected: list[str]):
    assert codes(lint_source(both(noqa5=comment), "m.py")) == expected


def test_noqa_only_on_its_own_line():
    assert codes(lint_source(both(noqa8="  # noqa: TCL005"), "m.py")) == ["TCL005", "TCL008"]
    assert codes(lint_source(both(noqa8="  # noqa: TCL008"), "m.py")) == ["TCL005"]


def test_noqa_on_the_first_line_of_a_multiline_finding():
    source = "import torch\nx = torch.ones(2, requires_grad=True)\n\ndef f():\n    return x.clone(  # noqa: TCL005\n    ).detach()\n"
    assert lint_source(source, "m.py") == []
    moved = "import torch\nx = torch.ones(2, requires_grad=True)\n\ndef f():\n    return x.clone(\n    ).detach()  # noqa: TCL005\n"
    assert codes(lint_source(moved, "m.py")) == ["TCL005"]


@pytest.mark.parametrize("header", ["# torchcopylint: noqa\n", "#torchcopylint:NOQA\n", "  # torchcopylint: noqa  (generated)\n"])
def test_file_level_noqa(header: str):
    assert lint_source(header + both(), "m.py") == []
    assert lint_source(both() + header, "m.py") == []


def test_file_level_noqa_must_be_a_comment_line():
    source = both() + 'NOTE = "# torchcopylint: noqa"\n'
    assert codes(lint_source(source, "m.py")) == ["TCL005", "TCL008"]


def test_noqa_parsing_unit():
    assert noqa.suppressed_codes("x = 1") is None
    assert noqa.suppressed_codes("x = 1  # noqa") == set()
    assert noqa.suppressed_codes("x = 1  # noqa: TCL005,TCL008") == {"TCL005", "TCL008"}


def test_noqa_through_the_command_line_and_fix_leaves_suppressed_code(tmp_path: Path, monkeypatch, cli):
    monkeypatch.chdir(tmp_path)
    source = both(noqa5="  # noqa: TCL005")
    write(tmp_path / "m.py", source)
    result = cli("--select", "TCL005", ".")
    assert result.exit_code == 0, result
    cli("--fix", "--select", "TCL005", ".")
    assert (tmp_path / "m.py").read_text() == source


# --- lint_paths ------------------------------------------------------------------------------------


def test_lint_paths_counts_files_and_keeps_sources_for_the_fixer(tmp_path: Path):
    write(tmp_path / "a.py", CLONE_DETACH)
    write(tmp_path / "b.py", CLEAN)
    write(tmp_path / "c.py", "import torch\nx.clone(\n")
    run = lint_paths([str(tmp_path)], Settings(root=tmp_path))
    assert run.files_checked == 3
    assert codes(run.diagnostics) == ["TCL005", FILE_ERROR_CODE]
    assert list(run.sources) == [str(tmp_path / "a.py")]  # not the clean file, not the broken one
    assert run.sources[str(tmp_path / "a.py")] == CLONE_DETACH
    assert run.missing_paths == [] and run.internal_errors == []


def test_lint_paths_reports_missing_paths(tmp_path: Path):
    run = lint_paths([str(tmp_path / "nope.py")], Settings(root=tmp_path))
    assert run.missing_paths == [str(tmp_path / "nope.py")]


def test_select_rules_applies_per_file_ignores(tmp_path: Path):
    settings = Settings(root=tmp_path, per_file_ignores={"gen/*.py": ["TCL0"]})
    assert [r.code for r in select_rules(settings, str(tmp_path / "gen" / "x.py"))] == []
    assert "TCL005" in [r.code for r in select_rules(settings, str(tmp_path / "src" / "x.py"))]


def test_diagnostics_are_sorted_by_path_then_position(tmp_path: Path):
    write(tmp_path / "b.py", both())
    write(tmp_path / "a.py", both())
    run = lint_paths([str(tmp_path / "b.py"), str(tmp_path / "a.py")], Settings(root=tmp_path))
    keys = [(Path(d.path).name, d.location.line, d.location.column) for d in run.diagnostics]
    assert keys == sorted(keys) and len(keys) == 4


MXNET_TRAINING = """\
import mxnet as mx
from mxnet import autograd, gluon

losses = []
for data, label in loader:
    with autograd.record():
        loss = loss_fn(net(data), label)
    loss.backward()
    trainer.step(data.shape[0])
    losses.append(loss)
{tail}"""


def test_another_frameworks_code_is_not_linted_as_torch():
    # fresh33: eight TCL007s on a Gluon few-shot learner, whose `loss.backward()` is MXNet's.
    assert lint_source(MXNET_TRAINING.format(tail=""), "gluon_train.py") == []
    # With torch imported too, the file is torch's code as well: the rules run.
    mixed = "import torch\n" + MXNET_TRAINING.format(tail="")
    assert [d.code for d in lint_source(mixed, "mixed.py")] == ["TCL007"]
    # A file that does not parse is still reported.
    assert [d.code for d in lint_source(MXNET_TRAINING.format(tail="print 'done'\n"), "py2.py")] == [FILE_ERROR_CODE]
