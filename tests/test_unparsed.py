"""Everything a user has gets linted: notebooks around their unfinished cells, files CPython compiles
that libcst refuses (tabs and spaces), and a TCL900 that says where (CPython's position) and what
(Python 2, `async` as a name) when a file really does not parse."""

from __future__ import annotations

import ast
import json
import warnings
from pathlib import Path

import pytest

from conftest import write
from torchcopylint import normalise, notebook
from torchcopylint.diagnostic import Applicability, Diagnostic, Edit, Fix, Location
from torchcopylint.engine import lint_document, lint_source
from torchcopylint.parsing import parse_for_analysis

nbformat = pytest.importorskip("nbformat")

# ------------------------------------------------------------------ a course notebook with exercise cells

# (cell type, source). Cells 3, 4 and 6 do not parse; cell 5 is an auto-call IPython runs; cell 7's
# `___` is a name (valid Python: it runs, and raises NameError); cells 2 and 8 each have a finding.
EXERCISE_CELLS = [
    ("markdown", "# Exercise 3: training loop\nFill in the blanks."),
    ("code", "import torch\nfrom torch import nn\n\nmodel = nn.Linear(4, 2)\nx = torch.randn(8, 4)\n\n"
             "def snapshot():\n    return model(x).clone().detach()"),
    ("code", "# Exercise: choose a loss\ncriterion = # TODO"),
    ("code", "Now train the model for a few epochs\nepochs = 3"),
    ("code", "/print model\n,print done training"),
    ("code", "optimizer = torch.optim.SGD(model.parameters(),\n"
             "                            lr=0.1"),
    ("code", "weights = ___\nscale = 2"),
    ("code", "for epoch in range(3):\n    out = model(x)\n    kept = snapshot()\n\n\n"
             "def keep():\n    return t.clone().detach()"),
]


def make_notebook(cells, *, source_as_string: bool = False) -> str:
    document = {"cells": [], "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                                         "name": "python3"},
                                          "language_info": {"name": "python"}},
                "nbformat": 4, "nbformat_minor": 5}
    for index, (kind, source) in enumerate(cells):
        cell = {"cell_type": kind, "id": f"cell-{index}", "metadata": {},
                "source": source if source_as_string else source.splitlines(True)}
        if kind == "code":
            cell.update(execution_count=None, outputs=[])
        document["cells"].append(cell)
    return json.dumps(document, indent=1) + "\n"


def validate(path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nbformat.validate(nbformat.read(str(path), as_version=nbformat.NO_CONVERT))


def by_code(diagnostics: list[Diagnostic], code: str) -> list[Diagnostic]:
    return [d for d in diagnostics if d.code == code]


def test_each_kind_of_broken_cell_is_one_tcl900_at_its_cell_and_the_other_cells_are_linted():
    found = lint_document(make_notebook(EXERCISE_CELLS), "exercise.ipynb")
    errors = {d.location.cell: d for d in by_code(found, "TCL900")}
    assert sorted(errors) == [3, 4, 6]
    # a blank assignment: CPython stops at the comment, line 2 of cell 3
    blank = errors[3]
    assert (blank.location.line, blank.location.column) == (2, 13)
    assert blank.message.startswith("cell does not parse: an assignment with nothing on its right")
    assert blank.message.endswith("this cell is skipped, the other cells are linted")
    # prose: line 1 of cell 4
    assert errors[4].location.line == 1 and "a line of prose" in errors[4].message
    # an unclosed bracket: at the bracket itself (line 1, column of `(`), not in the cells it would swallow
    assert (errors[6].location.line, errors[6].location.column) == (1, EXERCISE_CELLS[5][1].index("(") + 1)
    assert "'(' was never closed" in errors[6].message
    # the cells around them are linted: cell 2 (before) and cell 8 (after all of them)
    assert [(d.location.cell, d.location.line) for d in by_code(found, "TCL005")] == [(2, 8), (8, 7)]
    assert {d.code for d in found} == {"TCL900", "TCL005"}


def test_the_auto_call_and_the_name_of_underscores_are_not_errors():
    # cell 5 (`/print model`) is what IPython runs as print(model); cell 7's `___` is a plain name
    found = lint_document(make_notebook([EXERCISE_CELLS[1], EXERCISE_CELLS[4], EXERCISE_CELLS[6]]), "ok.ipynb")
    assert not by_code(found, "TCL900")
    assert [d.location.cell for d in by_code(found, "TCL005")] == [1]


def test_an_auto_call_ipython_could_not_run_either_is_an_error_of_its_cell():
    cells = [("code", "import torch\n"), ("code", "x = 1\n/print (x\n"),
             ("code", "def f():\n    return t.clone().detach()\n")]
    found = lint_document(make_notebook(cells), "autocall.ipynb")
    assert [(d.code, d.location.cell, d.location.line) for d in found] == [("TCL900", 2, 2), ("TCL005", 3, 2)]


def test_which_broken_cell_a_statement_needs():
    cells = [("code", "import torch\n"), ("code", "scale = # TODO\nshift = 1\n"),
             ("code", "def scaled(x):\n    return helper(x) + shift\n"),
             ("code", "def helper(x):\n    return x * scale\n"),
             ("code", "def alone(x, scale=2):\n    return x * scale\n")]
    document = notebook.read(make_notebook(cells))
    broken = notebook.broken_cells(document)
    module = notebook.blanked(document, broken)
    line_of = {cell.number: cell.first_line for cell in document.cells}
    # `scaled` reads `shift` (only cell 2 has it) and, through `helper`, `scale`
    assert notebook.needed_broken_cell(document, broken, module, line_of[3] + 1) == (2, "scale")
    # a parameter named like the missing global is not a need
    assert notebook.needed_broken_cell(document, broken, module, line_of[5] + 1) is None


def test_before_this_change_the_whole_notebook_was_one_error_at_a_wrong_place():
    # What libcst alone says about the same module: an error at one position, and nothing else linted.
    document = notebook.read(make_notebook(EXERCISE_CELLS))
    with pytest.raises(Exception):
        parse_for_analysis(document.module)
    assert notebook.broken_cells(document) and parse_for_analysis(notebook.lintable_module(document))


def test_an_unclosed_bracket_that_swallows_the_following_cells_is_found_in_its_own_cell():
    cells = [("code", "import torch\nlayers = [torch.nn.Linear(2, 2),\n"),
             ("code", "def f():\n    return x.clone().detach()\n")]
    document = notebook.read(make_notebook(cells))
    [broken] = notebook.broken_cells(document)
    assert broken.cell.number == 1 and broken.problem.line == 2  # module line 2 is line 2 of cell 1
    found = lint_document(make_notebook(cells), "swallow.ipynb")
    assert [(d.code, d.location.cell, d.location.line) for d in found] == [("TCL900", 1, 2), ("TCL005", 2, 2)]
    assert found[1].location.column == 12


def test_a_cell_broken_only_in_context_is_found_too():
    # Each cell parses alone... except that the second is the first's `else` without its `if`:
    # IPython would refuse it, and so does CPython in context and alone.
    cells = [("code", "import torch\nx = torch.ones(2)\n"), ("code", "else:\n    pass\n"),
             ("code", "def f():\n    return w.clone().detach()\n")]
    found = lint_document(make_notebook(cells), "context.ipynb")
    assert [(d.code, d.location.cell) for d in found] == [("TCL900", 2), ("TCL005", 3)]


def test_cpython_line_references_in_messages_name_the_cell():
    cells = [("code", "import torch\n"), ("code", "for i in range(2):\nprint(i)\n"),
             ("code", "def f():\n    return x.clone().detach()\n")]
    [error, _] = lint_document(make_notebook(cells), "ref.ipynb")
    assert error.location.cell == 2 and error.location.line == 2
    assert "after 'for' statement on cell 2, line 1" in error.message


def test_fix_never_touches_a_broken_cell_and_the_notebook_stays_valid(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "pyproject.toml", "[tool.torchcopylint]\n")
    original = make_notebook(EXERCISE_CELLS)
    path = write(tmp_path / "exercise.ipynb", original)
    result = cli("--no-cache", "--fix", "exercise.ipynb")
    assert "2 fixed" in result.stdout and result.exit_code == 1  # the TCL900s remain
    validate(path)
    before, after = json.loads(original), json.loads(path.read_text(encoding="utf-8"))
    changed = [index for index, (old, new) in enumerate(zip(before["cells"], after["cells"])) if old != new]
    assert changed == [1, 7]
    assert "    return model(x).detach().clone()" in "".join(after["cells"][1]["source"])
    remaining = [line for line in result.stdout.splitlines() if ": TCL" in line]
    assert [line.split(":")[1] for line in remaining] == ["cell 3", "cell 4", "cell 6"]


def test_a_fix_that_would_make_another_cell_fail_is_undone():
    cells = [("code", "import torch\n\n\ndef f():\n    return x.clone().detach()\n"), ("code", "z = (\n")]
    raw = make_notebook(cells)

    def lint_module(text):
        found = lint_source(text, "t.ipynb")
        # a malicious fix: replaces the finding with code that opens a bracket never closed
        return [Diagnostic(d.code, d.name, d.message, d.location, fix=Fix.safe("bad", Edit(
            d.location.line, d.location.column, d.location.end_line, d.location.end_column, "(")))
            for d in found]

    outcome = notebook.fix(raw, "t.ipynb", lint_module, unsafe=False)
    assert outcome.fixed == raw and "no longer parses" in (outcome.error or "")


# -------------------------------------------------------------------------------- tabs and spaces

# Valid Python 3 (CPython compiles it, `python tabs.py` runs it): the method body is indented by a tab
# and four spaces inside a method indented by four spaces. libcst refuses it (it reads a block's
# indentation as text added to its parent's).
TABS = ("import torch\n\n\nclass Block(torch.nn.Module):\n    def forward(self, x):\n"
        "\t    y = x.clone().detach()\n"
        "\t    if y.sum() > 0:\n"
        "\t\t    return torch.relu(x).clone().detach()\n"
        "\t    return y\n\n\ndef g():\n    return x.clone().detach()\n")


def compiles(text: str) -> bool:
    try:
        compile(text, "<test>", "exec", ast.PyCF_ONLY_AST)
    except SyntaxError:
        return False
    return True


def test_the_tab_file_is_valid_python_that_libcst_refuses():
    assert compiles(TABS)
    with pytest.raises(Exception):
        parse_for_analysis(TABS)


def test_a_tab_file_is_linted_with_its_own_lines_and_columns():
    found = lint_source(TABS, "tabs.py")
    lines = TABS.splitlines()
    assert [(d.code, d.location.line) for d in found] == [("TCL005", 6), ("TCL005", 8), ("TCL005", 13)]
    for diagnostic in found:
        location = diagnostic.location
        line = lines[location.line - 1]
        # the column points at the flagged expression in the original line, tabs counted as one character
        assert line[location.column - 1:].startswith(("x.clone()", "torch.relu(x).clone()")), (line, location)
        assert line[location.end_column - 2] == ")"
        assert diagnostic.fix.applicability is Applicability.SAFE  # one-line edits map exactly


def test_fix_on_a_tab_file_keeps_its_tabs_and_compiles(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path / "tabs.py", TABS)
    result = cli("--no-cache", "--fix", "tabs.py")
    assert "3 fixed" in result.stdout and result.exit_code == 0
    fixed = path.read_text(encoding="utf-8")
    assert compiles(fixed)
    assert fixed == TABS.replace(".clone().detach()", ".detach().clone()")  # only the edits, tabs as they were


def test_a_fix_is_exact_only_where_its_positions_map_exactly():
    normalised = normalise.normalise(TABS)
    assert set(normalised.lines) == {6, 7, 8, 9}
    assert compiles(normalised.text) and parse_for_analysis(normalised.text)
    location = Location("tabs.py", 6, 17, 6, 35)  # `x.clone().detach()` after 12 spaces and `y = `

    def mapped(*edits: Edit) -> Fix:
        diagnostic = Diagnostic("TCL005", "n", "m", location, fix=Fix.safe("fix", *edits))
        return normalise.to_original(diagnostic, normalised).fix

    # an edit after the indentation: exact, safe, columns moved back by the width the tab took
    exact = mapped(Edit(6, 17, 6, 35, "x.detach().clone()"))
    assert exact.applicability is Applicability.SAFE and exact.edits[0].column == 10
    # an edit that starts inside the rewritten indentation: inexact, so unsafe
    inside = mapped(Edit(6, 3, 6, 35, "y = x"))
    assert inside.applicability is Applicability.UNSAFE and "mixes tabs and spaces" in inside.description
    # an edit that writes new lines over rewritten lines: unsafe, its new lines indented as the original
    wrapped = mapped(Edit(6, 17, 6, 35, "f(\n            x)"))
    assert wrapped.applicability is Applicability.UNSAFE and wrapped.edits[0].content == "f(\n\t    x)"
    # a line that was not rewritten maps as it is
    assert normalise.original_column(normalised, 13, 12) == (12, True)


def test_strings_and_bracketed_lines_are_not_touched():
    text = "if x:\n y = 1\n if x:\n\t y = ('''\n\tkept\t''',\n\t\t\t1)\n"
    normalised = normalise.normalise(text)
    assert set(normalised.lines) == {4}
    assert normalised.text.splitlines()[4:] == ["\tkept\t''',", "\t\t\t1)"]
    assert ast.dump(ast.parse(normalised.text)) == ast.dump(ast.parse(text))


# -------------------------------------------------------------------------- what TCL900 says

@pytest.mark.parametrize("source, line, column, fragment", [
    ("import torch\nprint 'loss', loss\n", 2, 1, "Python 2 syntax (a `print` statement): this file is skipped"),
    # (`except ValueError, e:` alone is valid for libcst, which reads Python 3.14's unparenthesized
    # `except A, B:`; the file is linted then. Here a later `print e` makes it fail, and CPython
    # names the first error.)
    ("try:\n    x = 1\nexcept ValueError, e:\n    print e\n", 3, 8, "Python 2 syntax (`except X, e`"),
    ("x = `y`\n", 1, 5, "Python 2 syntax (backticks"),
    ("s = ur'raw'\n", 1, 7, "Python 2 syntax (a `ur\"...\"` string prefix)"),
    ("mode = 0777\n", 1, 8, "Python 2 syntax (an octal literal"),
    ("if a <> b:\n    pass\n", 1, 6, "Python 2 syntax (`<>`"),
    ("exec 'x = 1'\n", 1, 1, "Python 2 syntax (an `exec` statement)"),
    ("import torch\n\ninputs = inputs.cuda(async=True)\n", 3, 22,
     "`async` is a keyword since Python 3.7: this is pre-3.7 code (write `non_blocking=True`); this file is skipped"),
    ("async = True\n", 1, 7, "`async` is a keyword since Python 3.7: this is pre-3.7 code (rename it)"),
    # A Colab export's shell line: CPython reads the `01` of its URL as an octal literal (fresh94).
    ("!curl -s https://example.org/99-Misc/01-Colab/setup.sh | bash\n", 1, 38,
     "an IPython shell or magic line (`!pip install ...`, `%matplotlib inline`), which only a notebook runs"),
    ("%matplotlib inline\n", 1, 1, "an IPython shell or magic line"),
])
def test_the_message_says_what_it_is_at_cpythons_position(source, line, column, fragment):
    [error] = lint_source("import torch\n" + source if "torch" not in source else source, "old.py",
                          prefilter=False)
    offset = 0 if "torch" in source else 1
    assert error.code == "TCL900"
    assert fragment in error.message
    assert ("port it to Python 3, or exclude it" in error.message) == ("Python 2" in fragment)
    assert (error.location.line, error.location.column) == (line + offset, column)


def test_the_position_is_cpythons_not_where_libcst_noticed():
    # libcst reports an unclosed bracket where the file ends; CPython at the bracket
    source = "import torch\nx = torch.cat([a,\n          b\ny = x.clone().detach()\nz = 1\n"
    [error] = lint_source(source, "bracket.py")
    assert (error.location.line, error.location.column) == (2, 15)
    assert "'[' was never closed" in error.message


def test_a_python2_notebook_cell_is_named_in_its_cell():
    cells = [("code", "import torch\nx = torch.ones(1)\n"), ("code", "print x.clone().detach()\n"),
             ("code", "x.cuda(async=True)\n"), ("code", "def f():\n    return t.clone().detach()\n")]
    found = lint_document(make_notebook(cells), "old.ipynb")
    assert [(d.code, d.location.cell) for d in found] == [("TCL900", 2), ("TCL900", 3), ("TCL005", 4)]
    assert found[0].message.startswith("cell does not parse: Python 2 syntax (a `print` statement): this cell is")
    assert "write `non_blocking=True`" in found[1].message


@pytest.mark.slow
def test_verify_says_which_broken_cell_a_diagnosis_needs(cli, tmp_path, monkeypatch):
    pytest.importorskip("torch")
    monkeypatch.chdir(tmp_path)
    cells = [("code", "import torch\n"), ("code", "scale = # TODO: pick a scale\n"),
             ("code", "def scaled(x):\n    return (x * scale).clone().detach()\n"),
             ("code", "def snapshot(x):\n    return x.clone().detach()\n"),
             ("code", "kept = snapshot(torch.nn.Linear(2, 2)(torch.ones(1, 2)))\n")]
    write(tmp_path / "verify.ipynb", make_notebook(cells))
    result = cli("--no-cache", "--verify", "verify.ipynb")
    lines = {line.split(":")[1]: line for line in result.stdout.splitlines() if ": TCL" in line}
    assert set(lines) == {"cell 2", "cell 3", "cell 4"}
    assert "[unverified: needs cell 2, which does not parse (`scale` is defined there only)]" in lines["cell 3"]
    assert "[confirmed:" in lines["cell 4"]  # the module without cell 2 still runs what does not need it


def test_a_byte_order_mark_is_not_the_error():
    # CPython refuses U+FEFF in a str; the file's own error (line 2) is the one to report
    [error] = lint_source("\ufeffimport torch\nx = torch.cat([a,\n", "bom.py", prefilter=False)
    assert (error.location.line, error.location.column) == (2, 15) and "'[' was never closed" in error.message
    found = lint_source("\ufeff" + TABS, "bom_tabs.py")
    assert [d.location.line for d in found] == [6, 8, 13]


def test_a_fix_that_writes_new_lines_in_a_tab_file_is_offered_with_the_files_own_indentation(cli, tmp_path,
                                                                                                monkeypatch):
    # TCL004's fix wraps the write in `with torch.no_grad():`, a new line over a rewritten one: not exact,
    # so unsafe (it is anyway) with a note, and its lines are indented as the file indents them.
    monkeypatch.chdir(tmp_path)
    source = ("import torch\n\n\nclass Init:\n    def apply(self, w: torch.Tensor):\n"
              "\t    w.requires_grad_(True)\n\t    w.mul_(0.5)\n\t    return w\n")
    assert compiles(source)
    [finding] = lint_source(source, "leaf.py")
    assert finding.code == "TCL004" and finding.fix.applicability is Applicability.UNSAFE
    assert finding.fix.description.endswith(normalise.INEXACT_NOTE)
    path = write(tmp_path / "leaf.py", source)
    assert cli("--no-cache", "--fix", "leaf.py").stdout.count("TCL004") == 1 and path.read_text() == source
    diff = cli("--no-cache", "--diff", "--unsafe-fixes", "leaf.py").stdout
    assert "-\t    w.mul_(0.5)\n+\t    with torch.no_grad():\n+\t        w.mul_(0.5)\n" in diff
    cli("--no-cache", "--fix", "--unsafe-fixes", "leaf.py")
    assert compiles(path.read_text()) and "\t        w.mul_(0.5)\n" in path.read_text()


def test_a_line_that_holds_only_a_backslash_before_a_block_is_read_as_cpython_reads_it():
    # CPython continues the indentation over the backslash line; libcst refuses the file
    source = "import torch\n\n\ndef snapshot():\n\\\n    return t.clone().detach()\n"
    assert compiles(source)
    with pytest.raises(Exception):
        parse_for_analysis(source)
    normalised = normalise.normalise(source)
    assert normalised.kind == normalise.CONTINUED and normalised.text.splitlines()[4] == ""
    [finding] = lint_source(source, "continued.py")
    assert (finding.code, finding.location.line, finding.location.column) == ("TCL005", 6, 12)
    assert finding.fix.applicability is Applicability.SAFE


def test_a_normalised_text_is_used_only_when_cpython_reads_the_same_program():
    # Same widths, different programs would be a bug; a text CPython refuses is never normalised
    assert normalise.normalise("if x:\n\ty = 1\n        z = 2\n") is None  # TabError in CPython
    assert normalise.normalise("x = 1\n") is None  # nothing to normalise


def test_a_cell_with_old_mac_line_breaks_does_not_shift_the_cells_after_it():
    # The case bench/fuzz.py found: a fix landed in the cell that does not parse, three lines early
    cells = [("code", "import torch\rx = 1\ry = 2\rz = 3"), ("code", "total = # TODO\n"),
             ("code", "def snapshot():\n    return t.clone().detach()\n")]
    raw = make_notebook(cells, source_as_string=True)
    [error, finding] = lint_document(raw, "cr.ipynb")
    assert (error.location.cell, finding.location.cell, finding.location.line) == (2, 3, 2)
    outcome = notebook.fix(raw, "cr.ipynb", lambda module: lint_source(module, "cr.ipynb"), unsafe=False)
    after = json.loads(outcome.fixed)["cells"]
    assert after[1]["source"] == "total = # TODO\n" and "t.detach().clone()" in after[2]["source"]
