"""`--add-noqa`: a `# noqa: CODE` on every flagged line, where Python allows a comment; the lint reads it there."""

from __future__ import annotations

import ast
import shutil

import pytest

from conftest import EXAMPLES, write
from test_notebooks import gan_notebook, validate
from torchcopylint.diagnostic import Diagnostic, Location
from torchcopylint.engine import lint_source
from torchcopylint.noqa import add_noqa, directive_line


def at(code: str, line: int, column: int = 1) -> Diagnostic:
    return Diagnostic(code, "name", "message", Location("m.py", line, column, line, column + 1))


def test_a_comment_is_appended_with_two_spaces():
    text, changed = add_noqa("y = x.clone().detach()   \n", [at("TCL005", 1, 5)])
    assert (text, changed) == ("y = x.clone().detach()  # noqa: TCL005\n", 1)


def test_codes_are_merged_sorted_without_duplicates():
    text, changed = add_noqa("y = f(x)  # noqa: TCL008 keep this\n",
                             [at("TCL005", 1), at("TCL008", 1), at("TCL001", 1), at("TCL005", 1, 3)])
    assert text == "y = f(x)  # noqa: TCL001, TCL005, TCL008 keep this\n" and changed == 1
    assert add_noqa(text, [at("TCL005", 1)]) == (text, 0)


def test_another_tools_noqa_is_extended_and_a_bare_noqa_is_left_alone():
    assert add_noqa("y = f(x)  # noqa: E501\n", [at("TCL005", 1)])[0] == "y = f(x)  # noqa: E501, TCL005\n"
    assert add_noqa("y = f(x)  # noqa\n", [at("TCL005", 1)]) == ("y = f(x)  # noqa\n", 0)


def test_file_errors_get_no_comment():
    assert add_noqa("x = (\n", [at("TCL900", 1)]) == ("x = (\n", 0)


@pytest.mark.parametrize("source, line, column, expected", [
    # the statement's first line ends inside a string: the comment goes after the string
    ('y = (x.clone().detach(), """one\ntwo""")\n', 1, 6, 2),
    # ends with a backslash continuation: on the next line
    ("y = x.clone().detach() + \\\n    z\n", 1, 5, 2),
    # inside brackets a comment may end any line: the first one
    ("y = f(\n    x.clone().detach(),\n)\n", 2, 5, 2),
    # a string before the finding on its line does not count, one after it does
    ("s = 'a'; y = x.clone().detach(); t = '''\n'''\n", 1, 14, 2),
])
def test_the_comment_goes_where_python_allows_one(source, line, column, expected):
    from torchcopylint.fix import split_lines

    assert directive_line(split_lines(source), line, column) == expected


MULTILINE = '''import torch
x = torch.ones(2, requires_grad=True)

def f(z):
    a = (x.clone().detach(), """a docstring-like
    string that goes on""")
    b = x.clone().detach() + \\
        z
    c = torch.tensor(x.clone().detach())
    return a, b, c
'''


def test_after_add_noqa_the_lint_reports_nothing_and_a_second_run_adds_nothing():
    found = lint_source(MULTILINE, "m.py")
    assert {d.code for d in found} == {"TCL005", "TCL008"} and len(found) == 4
    text, changed = add_noqa(MULTILINE, found)
    assert changed == 3
    assert '    string that goes on""")  # noqa: TCL005\n' in text
    assert "        z  # noqa: TCL005\n" in text
    assert "torch.tensor(x.clone().detach())  # noqa: TCL005, TCL008\n" in text
    ast.parse(text)
    assert lint_source(text, "m.py") == []
    assert add_noqa(text, lint_source(text, "m.py")) == (text, 0)


def test_add_noqa_on_a_copy_of_the_examples_and_a_notebook(cli, tmp_path, monkeypatch):
    tree = tmp_path / "examples"
    shutil.copytree(EXAMPLES, tree)
    write(tree / "notebooks" / "gan.ipynb", gan_notebook())
    monkeypatch.chdir(tmp_path)
    assert cli("--no-cache", "examples").exit_code == 1
    first = cli("--no-cache", "--add-noqa", "examples")
    assert first.exit_code == 0
    count = int(first.stderr.split()[1])
    assert count > 10 and first.stderr.strip() == f"Added {count} noqa directives."
    after = cli("--no-cache", "examples")
    assert (after.exit_code, after.stdout.strip()) == (0, "All checks passed!")
    second = cli("--no-cache", "--add-noqa", "examples")
    assert (second.exit_code, second.stderr.strip()) == (0, "Added 0 noqa directives.")
    for path in tree.rglob("*.py"):
        ast.parse(path.read_text(encoding="utf-8"))
    validate(tree / "notebooks" / "gan.ipynb")
    assert "  # noqa: TCL003" in (tree / "notebooks" / "gan.ipynb").read_text(encoding="utf-8")


def test_add_noqa_refuses_fix(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "m.py", MULTILINE)
    result = cli("--add-noqa", "--fix", "m.py")
    assert result.exit_code == 2 and "--add-noqa" in result.stderr
