"""Jupyter notebooks: code cells linted as one module, `cell N` locations, fixes written back into the cells."""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import pytest

from conftest import write
from torchcopylint import notebook
from torchcopylint.config import Settings
from torchcopylint.engine import lint_document, lint_paths
from torchcopylint.magics import neutralised_lines

nbformat = pytest.importorskip("nbformat")

# A DCGAN notebook as Jupyter writes it: a markdown cell first, models in cell 2, the optimizers in
# cell 3 (a %%time cell), the discriminator step in cell 4 (fake not detached), magics and shell
# escapes throughout, outputs with an image, tags and a kernel spec.
CELL_SOURCES = [
    ("markdown", "# DCGAN on toy data ✓\nThe generator and the discriminator, trained in turn."),
    ("code", "%matplotlib inline\n!pip install -q torchvision\nimport torch\nfrom torch import nn\n\n"
             "netG = nn.Sequential(nn.Linear(8, 16), nn.Tanh())\nnetD = nn.Sequential(nn.Linear(16, 1))\n"
             "criterion = nn.BCEWithLogitsLoss()\nnetG?"),
    ("code", "%%time\noptimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4)\n"
             "optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4)\n"
             "loader = [torch.randn(32, 16) for _ in range(4)]"),
    ("code", "for real in loader:\n"
             "    netD.zero_grad()\n"
             "    out_real = netD(real).view(-1)\n"
             "    err_real = criterion(out_real, torch.ones_like(out_real))\n"
             "    fake = netG(torch.randn(real.size(0), 8))\n"
             "    out_fake = netD(fake).view(-1)\n"
             "    err_fake = criterion(out_fake, torch.zeros_like(out_fake))\n"
             "    errD = err_real + err_fake\n"
             "    errD.backward()\n"
             "    optimizerD.step()\n"
             "\n"
             "    netG.zero_grad()\n"
             "    out = netD(fake).view(-1)\n"
             "    errG = criterion(out, torch.ones_like(out))\n"
             "    errG.backward()\n"
             "    optimizerG.step()"),
    ("code", "files = !ls\n%timeit netG(torch.randn(1, 8))\nsummary = '''\n!not a shell escape\n'''\n"
             "sample = netG(torch.randn(4, 8)).clone().detach()"),
    ("code", "%%bash\necho 'not python: x.clone().detach()'"),
]
FLAGGED_LINE = "    out_fake = netD(fake).view(-1)"


def gan_notebook(*, source_as_string: bool = False, indent: int = 1) -> str:
    cells = []
    for index, (kind, source) in enumerate(CELL_SOURCES):
        value = source if source_as_string else source.splitlines(True)
        cell = {"cell_type": kind, "id": f"cell-{index}", "metadata": {"tags": ["train"]} if index == 3 else {},
                "source": value}
        if kind == "code":
            cell["execution_count"] = index
            cell["outputs"] = [{"data": {"image/png": "iVBORw0KGgoAAAANSUhEUg==\n", "text/plain": ["<Figure>"]},
                                "metadata": {}, "output_type": "display_data"}] if index == 3 else []
        cells.append(cell)
    document = {"cells": cells,
                "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                             "language_info": {"name": "python", "version": "3.11.7"}},
                "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(document, indent=indent, ensure_ascii=False) + "\n"


def validate(path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a missing cell id would be a warning today, an error tomorrow
        nbformat.validate(nbformat.read(str(path), as_version=nbformat.NO_CONVERT))


@pytest.fixture
def project(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "pyproject.toml", "[tool.torchcopylint]\n")
    write(tmp_path / "gan.ipynb", gan_notebook())
    return tmp_path


def test_the_fixture_is_a_valid_notebook(project):
    validate(project / "gan.ipynb")


def test_the_discriminator_step_is_found_across_cells_and_reported_in_cell_4(cli, project):
    result = cli("--no-cache", "gan.ipynb")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    tcl003 = [line for line in lines if " TCL003 " in line]
    assert len(tcl003) == 1
    # cell 4 is the fourth cell of the notebook (the markdown cell counts), line 6 of it, column of `fake`
    assert tcl003[0].startswith(f"gan.ipynb:cell 4:6:{FLAGGED_LINE.index('fake)') + 1}: TCL003")
    # the lines the message names are in the cell too
    assert "(cell 4, line 5)" in tcl003[0] and "backward at cell 4, line 9" in tcl003[0]
    # the last code cell is found as well (line 6 of cell 5, below a neutralised shell escape and a string)
    assert any(line.startswith("gan.ipynb:cell 5:6:") and " TCL005 " in line for line in lines)
    # nothing from the %%bash cell, no parse error from the magics
    assert not any("cell 6" in line or "TCL900" in line for line in lines)


def test_json_carries_the_cell_and_the_line_in_it(cli, project):
    records = json.loads(cli("--no-cache", "--output-format", "json", "gan.ipynb").stdout)
    tcl003 = next(record for record in records if record["code"] == "TCL003")
    assert (tcl003["path"], tcl003["cell"], tcl003["line"]) == ("gan.ipynb", 4, 6)
    assert tcl003["fix"]["edits"][0]["line"] == 6


@pytest.mark.parametrize("source_as_string", [False, True])
def test_github_annotations_point_at_the_line_of_the_notebook_file(cli, project, source_as_string):
    write(project / "gan.ipynb", gan_notebook(source_as_string=source_as_string))
    output = cli("--no-cache", "--output-format", "github", "gan.ipynb").stdout
    annotation = next(line for line in output.splitlines() if "TCL003" in line)
    properties = dict(part.split("=", 1) for part in annotation.split("::")[1].split(" ", 1)[1].split(","))
    file_line = (project / "gan.ipynb").read_text(encoding="utf-8").splitlines()[int(properties["line"]) - 1]
    # the annotated line of the file holds the flagged source line, and the column is that of `fake`
    assert json.dumps(FLAGGED_LINE)[1:-1] in file_line
    assert file_line[int(properties["col"]) - 1:].startswith("fake).view")


def test_sarif_and_gitlab_use_the_file_line_too(cli, project):
    sarif = json.loads(cli("--no-cache", "--output-format", "sarif", "gan.ipynb").stdout)
    result = next(r for r in sarif["runs"][0]["results"] if r["ruleId"] == "TCL003")
    line = result["locations"][0]["physicalLocation"]["region"]["startLine"]
    text = (project / "gan.ipynb").read_text(encoding="utf-8").splitlines()
    assert json.dumps(FLAGGED_LINE)[1:-1] in text[line - 1]
    assert "fixes" not in result  # cell edits are not regions of the JSON file
    gitlab = json.loads(cli("--no-cache", "--output-format", "gitlab", "gan.ipynb").stdout)
    issue = next(i for i in gitlab if i["check_name"] == "TCL003")
    assert issue["location"]["lines"]["begin"] == line


@pytest.mark.parametrize("source_as_string", [False, True])
@pytest.mark.parametrize("indent", [1, 2])
def test_fix_edits_the_cells_and_keeps_every_other_byte(cli, project, source_as_string, indent):
    original = gan_notebook(source_as_string=source_as_string, indent=indent)
    write(project / "gan.ipynb", original)
    result = cli("--no-cache", "--fix", "gan.ipynb")
    assert "2 fixed" in result.stdout
    fixed = (project / "gan.ipynb").read_text(encoding="utf-8")
    validate(project / "gan.ipynb")
    before, after = json.loads(original), json.loads(fixed)
    # every cell's fields but the two changed sources are unchanged, and so is the notebook's metadata
    changed = [index for index, (old, new) in enumerate(zip(before["cells"], after["cells"])) if old != new]
    assert changed == [3, 4]
    for index in changed:
        old, new = before["cells"][index], after["cells"][index]
        assert {key: value for key, value in old.items() if key != "source"} == \
               {key: value for key, value in new.items() if key != "source"}
        assert isinstance(new["source"], str) == source_as_string
    assert before["metadata"] == after["metadata"]
    assert "".join(after["cells"][3]["source"]).splitlines()[5] == "    out_fake = netD(fake.detach()).view(-1)"
    # byte for byte: putting the old sources back gives the original file
    document = notebook.read(fixed)
    restored = notebook.with_sources(document, {index + 1: "".join(before["cells"][index]["source"])
                                                for index in changed})
    assert restored == original
    # and the only lines of the file that differ are lines of those sources
    differing = [new for old, new in zip(original.splitlines(), fixed.splitlines()) if old != new]
    assert len(original.splitlines()) == len(fixed.splitlines())
    assert all("detach()" in line for line in differing)
    assert cli("--no-cache", "gan.ipynb").exit_code == 0


def test_a_notebook_starting_with_a_byte_order_mark_is_linted_and_fixed_keeping_it(cli, project):
    # Some editors write one; Jupyter reads past it (before: "not valid JSON: Unexpected UTF-8 BOM").
    original = "\ufeff" + gan_notebook()
    write(project / "gan.ipynb", original)
    assert "TCL003" in cli("--no-cache", "gan.ipynb").stdout
    assert "2 fixed" in cli("--no-cache", "--fix", "gan.ipynb").stdout
    fixed = (project / "gan.ipynb").read_text(encoding="utf-8")
    assert fixed.startswith("\ufeff") and "netD(fake.detach())" in fixed
    json.loads(fixed[1:])
    assert cli("--no-cache", "gan.ipynb").exit_code == 0


def test_diff_shows_cell_diffs_and_writes_nothing(cli, project):
    path = project / "gan.ipynb"
    before, mtime = path.read_bytes(), path.stat().st_mtime_ns
    result = cli("--no-cache", "--diff", "gan.ipynb")
    assert result.exit_code == 1
    assert "--- a/gan.ipynb:cell 4\n+++ b/gan.ipynb:cell 4\n" in result.stdout
    assert "+    out_fake = netD(fake.detach()).view(-1)\n" in result.stdout
    assert path.read_bytes() == before and path.stat().st_mtime_ns == mtime


@pytest.mark.parametrize("content, reason", [
    ("{\"cells\": [", "not valid JSON"),
    (json.dumps({"cells": [], "metadata": {}, "nbformat": 3, "nbformat_minor": 0}), "nbformat 3 is not supported"),
    (json.dumps({"worksheets": []}), "no `cells` list"),
    (json.dumps({"cells": [{"cell_type": "code", "source": 3}], "metadata": {}, "nbformat": 4,
                 "nbformat_minor": 5}), "neither a string nor a list"),
])
def test_a_broken_notebook_is_tcl900_and_the_run_goes_on(cli, project, content, reason):
    write(project / "broken.ipynb", content)
    result = cli("--no-cache", ".")
    assert result.exit_code == 1
    [error] = [line for line in result.stdout.splitlines() if "TCL900" in line]
    assert error.startswith("broken.ipynb:1:1: TCL900") and reason in error
    assert any(line.startswith("gan.ipynb:cell 4:") for line in result.stdout.splitlines())


def test_a_cell_that_does_not_parse_is_a_file_error_in_its_cell_and_the_others_are_linted(project):
    write(project / "bad.ipynb", gan_notebook().replace('errD = err_real + err_fake', 'errD = err_real err_fake'))
    found = lint_document((project / "bad.ipynb").read_bytes(), "bad.ipynb")
    [error] = [d for d in found if d.code == "TCL900"]
    # CPython's position: line 8 of cell 4, at `err_fake`
    assert (error.location.cell, error.location.line, error.location.column) == (4, 8, 21)
    assert error.message.startswith("cell does not parse: invalid syntax;")
    assert "the other cells are linted" in error.message
    # cell 5's finding is still reported; the discriminator step was in the broken cell, so is gone
    assert [(d.code, d.location.cell) for d in found if d.code != "TCL900"] == [("TCL005", 5)]


def test_noqa_works_in_a_cell_and_a_file_comment_in_any_cell_skips_the_notebook(project):
    path = "gan.ipynb"
    text = gan_notebook()
    silenced = text.replace(json.dumps(FLAGGED_LINE + "\n"), json.dumps(FLAGGED_LINE + "  # noqa: TCL003\n"))
    assert "TCL003" not in {d.code for d in lint_document(silenced, path)}
    assert "TCL005" in {d.code for d in lint_document(silenced, path)}
    exempt = text.replace('"files = !ls\\n"', '"# torchcopylint: noqa\\n", "files = !ls\\n"')
    assert exempt != text and lint_document(exempt, path) == []


def test_directory_walks_find_notebooks_and_extend_exclude_drops_them(project):
    write(project / "src" / "train.ipynb", gan_notebook())
    write(project / "src" / "model.py", "import torch\n\n\ndef f():\n    return x.clone().detach()\n")
    settings = Settings(root=project)
    found = {d.path for d in lint_paths(["."], settings, jobs=1).diagnostics}
    assert found == {"gan.ipynb", os.path.join("src", "train.ipynb"), os.path.join("src", "model.py")}
    settings.extend_exclude = ["*.ipynb"]
    assert {d.path for d in lint_paths(["."], settings, jobs=1).diagnostics} == {os.path.join("src", "model.py")}


def test_a_notebook_in_another_language_is_not_linted(project):
    document = json.loads(gan_notebook())
    document["metadata"]["language_info"]["name"] = "R"
    assert lint_document(json.dumps(document), "r.ipynb") == []


def test_cache_and_parallel_runs_give_the_same_findings(project):
    for index in range(4):
        write(project / f"nb{index}.ipynb", gan_notebook() + " " * 9000)  # big enough for the pool
    settings = Settings(root=project)
    cold = lint_paths(["."], settings, jobs=2, cache=True)
    warm = lint_paths(["."], settings, jobs=2, cache=True)
    serial = lint_paths(["."], settings, jobs=1)
    assert warm.files_cached == 5 and cold.files_cached == 0
    assert cold.diagnostics == warm.diagnostics == serial.diagnostics
    assert {d.location.cell for d in warm.diagnostics} == {4, 5}
    assert set(warm.sources) == {d.path for d in warm.diagnostics}  # the fixer gets the notebooks' text


# ------------------------------------------------------------------------- IPython syntax, line for line

@pytest.mark.parametrize("line, replacement", [
    ("%matplotlib inline", "pass"),
    ("!pip install torch", "pass"),
    ("  !ls \\", "  pass"),
    ("files = !ls", "files = None"),
    ("t = %timeit -o f()", "t = None"),
    ("torch.zeros?", "pass"),
    ("??torch.zeros", "pass"),
    ("x = 1  # why?", None),
    ("model.fc[0].weight?", "pass"),
    ("a = b?", "pass"),  # IPython: help on `b`
    ("batch_size = ?", None),  # an exercise blank: IPython leaves it to Python, which refuses it
    ("f(x)?", None),
    ("ok = a != b", None),
    ("# %matplotlib", None),
    # Automagics (IPython runs `%cd ..`), only where the line is not Python.
    ("cd ..", "pass"),
    ("  pip install timm", "  pass"),
    ("ls = [1, 2]", None),
    ("ls -la", None),  # Python: `ls - la`
    ("pwd", None),
    ("run(model,", None),  # a call that goes on, not `%run`
    ('prompt = """Can it talk?', None),  # a `?` in a string the line opens is text, not help
])
def test_escapes_are_neutralised_in_place(line, replacement):
    [result] = neutralised_lines([line + "\n"])[:1]
    assert result == (replacement if replacement is not None else line) + "\n"


def source_lines(source: str) -> list[str]:
    return [line + "\n" for line in source.split("\n")]


def test_neutralising_keeps_every_line_and_reads_strings_and_brackets():
    source = ("x = (a\n     != b)\ns = '''\n!echo inside a string\n%not magic\n'''\n"
              "!echo a \\\n  continued\ny = x")
    lines = neutralised_lines(source_lines(source))
    assert len(lines) == len(source.splitlines())
    assert lines[1] == "     != b)\n" and lines[3] == "!echo inside a string\n" and lines[4] == "%not magic\n"
    assert lines[6:] == ["pass\n", "\n", "y = x\n"]


@pytest.mark.parametrize("magic, body_kept", [("%%time", True), ("%%capture out", True), ("%%bash", False),
                                              ("%%writefile model.py", False)])
def test_cell_magics(magic, body_kept):
    lines = neutralised_lines([f"{magic}\n", "x = 1\n"])
    assert lines == (["pass\n", "x = 1\n"] if body_kept else ["\n", "\n"])


def test_a_python_cell_magic_over_another_cell_magic_keeps_what_that_one_says():
    # IPython runs `%%capture`'s body as a cell: here a `%%bash` one, shell code, never Python.
    lines = neutralised_lines(["%%capture\n", "\n", "%%bash\n", "pip install -q x\n", "if [ -d y ]; then rm -r y; fi\n"])
    assert lines == ["pass\n", "\n", "\n", "\n", "\n"]
    assert neutralised_lines(["%%capture\n", "%%time\n", "x = 1\n"]) == ["pass\n", "pass\n", "x = 1\n"]


@pytest.mark.slow
def test_verify_runs_the_cells_module_and_maps_the_verdict_back(cli, project):
    pytest.importorskip("torch")
    cells = [("code", "%matplotlib inline\nimport torch\n"), ("markdown", "Helpers."),
             ("code", "def snapshot(x):\n    return x.clone().detach()\n"),
             ("code", "kept = snapshot(torch.nn.Linear(2, 2)(torch.ones(1, 2)))\n")]
    document = json.loads(gan_notebook())
    document["cells"] = [{"cell_type": kind, "id": f"c{i}", "metadata": {}, "source": source.splitlines(True),
                          **({"execution_count": None, "outputs": []} if kind == "code" else {})}
                         for i, (kind, source) in enumerate(cells)]
    write(project / "helpers.ipynb", json.dumps(document, indent=1))
    result = cli("--no-cache", "--verify", "helpers.ipynb")
    [line] = [line for line in result.stdout.splitlines() if "TCL005" in line]
    assert line.startswith("helpers.ipynb:cell 3:2:12: TCL005") and "[confirmed:" in line


def test_file_positions_when_list_elements_are_not_one_per_line():
    document = json.loads(gan_notebook())
    source = "".join(document["cells"][3]["source"])
    document["cells"][3]["source"] = [source[:50], source[50:140], source[140:]]  # split anywhere
    raw = json.dumps(document, indent=1)
    parsed = notebook.read(raw)
    line, column = notebook.file_position(parsed, 4, 6, FLAGGED_LINE.index("fake)") + 1)
    text_line = raw.splitlines()[line - 1]
    assert text_line[column - 1:].startswith("fake).view")


def test_large_outputs_do_not_make_a_notebook_too_large(project, monkeypatch):
    from torchcopylint import engine

    monkeypatch.setattr(engine, "MAX_FILE_BYTES", 4096)
    document = json.loads(gan_notebook())
    document["cells"][3]["outputs"][0]["data"]["image/png"] = "A" * 20000
    write(project / "big.ipynb", json.dumps(document, indent=1))
    found = lint_paths(["big.ipynb"], Settings(root=project), jobs=1).diagnostics
    assert "TCL003" in {d.code for d in found} and "TCL900" not in {d.code for d in found}
    document["cells"][3]["source"] += ["\n# padding" * 500]
    write(project / "big.ipynb", json.dumps(document, indent=1))
    [error] = lint_paths(["big.ipynb"], Settings(root=project), jobs=1).diagnostics
    assert error.code == "TCL900" and "the notebook's code is too large" in error.message


def test_a_cell_written_indented_runs_at_the_top_level_as_ipython_runs_it(cli, project):
    # IPython strips the indentation every line of a cell starts with (code pasted from a function).
    # Joined as it is written, this cell would continue the class of the cell before it.
    cells = [
        ("code", "import torch\nfrom torch import nn\n\n\nclass Tracker:\n    def __init__(self, net):\n"
                 "        self.net = net\n"),
        ("code", "    net = nn.Linear(4, 4)\n    tracker = Tracker(net)\n\n"
                 "    sample = net(torch.randn(2, 4)).clone().detach()\n"),
    ]
    document = json.loads(gan_notebook())
    document["cells"] = [{"cell_type": kind, "id": f"c{index}", "metadata": {}, "execution_count": None,
                          "outputs": [], "source": source.splitlines(True)} for index, (kind, source) in enumerate(cells)]
    write(project / "pasted.ipynb", json.dumps(document, indent=1) + "\n")
    parsed = notebook.read((project / "pasted.ipynb").read_text(encoding="utf-8"))
    assert "\nnet = nn.Linear(4, 4)\n" in parsed.module and parsed.cells[1].indent == 4
    [found] = lint_document((project / "pasted.ipynb").read_bytes(), "pasted.ipynb")
    assert (found.code, found.location.cell, found.location.line) == ("TCL005", 2, 4)
    written = cells[1][1].splitlines()[3]
    assert written[found.location.column - 1:].startswith("net(torch.randn(2, 4)).clone().detach()")
    assert cli("--no-cache", "--fix", "pasted.ipynb").exit_code == 0
    fixed = json.loads((project / "pasted.ipynb").read_text(encoding="utf-8"))
    assert "".join(fixed["cells"][1]["source"]).splitlines()[3] == \
        "    sample = net(torch.randn(2, 4)).detach().clone()"
    validate(project / "pasted.ipynb")


def test_a_cell_whose_first_line_only_is_indented_loses_that_indent_where_ipython_strips_it(cli, project):
    # IPython strips the first line's indentation off every line that starts with it, and leaves the
    # others (fresh65: a Colab cell `  from google.colab import drive` then `drive.mount(...)`, which ran).
    # (IPython first drops the blank lines a cell starts with: the indentation is the first code line's.)
    cells = [("code", "\n  import torch\nnet = torch.nn.Linear(4, 4)\n"
                      "  \nsample = net(torch.randn(2, 4)).clone().detach()\n")]
    document = json.loads(gan_notebook())
    document["cells"] = [{"cell_type": kind, "id": f"c{index}", "metadata": {}, "execution_count": None,
                          "outputs": [], "source": source.splitlines(True)} for index, (kind, source) in enumerate(cells)]
    write(project / "colab.ipynb", json.dumps(document, indent=1) + "\n")
    parsed = notebook.read((project / "colab.ipynb").read_text(encoding="utf-8"))
    assert parsed.module.startswith("\nimport torch\nnet = torch.nn.Linear(4, 4)\n")
    assert parsed.cells[0].unindented == frozenset({2, 4})
    [found] = lint_document((project / "colab.ipynb").read_bytes(), "colab.ipynb")
    assert (found.code, found.location.cell, found.location.line) == ("TCL005", 1, 5)
    written = cells[0][1].splitlines()[4]
    assert written[found.location.column - 1:].startswith("net(torch.randn(2, 4)).clone().detach()")
    assert cli("--no-cache", "--fix", "colab.ipynb").exit_code == 0
    fixed = json.loads((project / "colab.ipynb").read_text(encoding="utf-8"))
    assert "".join(fixed["cells"][0]["source"]).splitlines()[4] == "sample = net(torch.randn(2, 4)).detach().clone()"
    validate(project / "colab.ipynb")


def test_a_cell_pasted_from_a_console_runs_without_its_prompts_as_ipython_runs_it(cli, project):
    # fresh111's study notebooks: cells pasted from a Python console, `>>> ` and `... ` before each line. IPython
    # strips the prompts (its `classic_prompt`); before, the cell was a TCL900 and none of it was read.
    cells = [
        ("code", ">>> import torch\n>>> from torch import nn\n>>> def snapshot(net, x):\n"
                 "...     return net(x).clone().detach()\n...\n>>> snapshot(nn.Linear(2, 2), torch.ones(1, 2))\n"),
        ("code", "x = 1\n>>> y = 2\n"),  # a prompt after the first line: Python, which IPython does not strip
    ]
    document = json.loads(gan_notebook())
    document["cells"] = [{"cell_type": kind, "id": f"c{index}", "metadata": {}, "execution_count": None,
                          "outputs": [], "source": source.splitlines(True)} for index, (kind, source) in enumerate(cells)]
    write(project / "console.ipynb", json.dumps(document, indent=1) + "\n")
    found = lint_document((project / "console.ipynb").read_bytes(), "console.ipynb")
    assert sorted((d.code, d.location.cell, d.location.line) for d in found) == [("TCL005", 1, 4), ("TCL900", 2, 2)]
    [clone] = [d for d in found if d.code == "TCL005"]
    written = cells[0][1].splitlines()[3]
    assert written[clone.location.column - 1:].startswith("net(x).clone().detach()")
