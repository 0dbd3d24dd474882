"""fix.py: applying edits, re-linting to a fixed point, writing files safely.

The relint functions here are tiny regex fakes, so these tests exercise only
the fixing machinery, not any real rule.
"""

from __future__ import annotations

import os
import re
import stat
import sys

import pytest

from torchcopylint.diagnostic import Diagnostic, Edit, Fix, Location
from torchcopylint.fix import (
    FixOutcome,
    apply_edits,
    fix_source,
    split_lines,
    unified_diff,
    write_atomically,
)


def diagnostic(*edits: Edit, unsafe: bool = False) -> Diagnostic:
    first = edits[0]
    make = Fix.unsafe if unsafe else Fix.safe
    return Diagnostic(
        code="TCL999",
        name="test-rule",
        message="test",
        location=Location("t.py", first.line, first.column, first.end_line, first.end_column),
        fix=make("test fix", *edits),
    )


def position(text: str, offset: int) -> tuple[int, int]:
    """(line, column) of a string offset, counting lines as fix.py does."""
    consumed = 0
    for number, line in enumerate(split_lines(text), start=1):
        if offset < consumed + len(line):
            return number, offset - consumed + 1
        consumed += len(line)
    return len(split_lines(text)) + 1, 1


def regex_relint(pattern: str, replacement: str, *, unsafe: bool = False):
    """A fake linter: every match of `pattern` is a finding whose fix replaces it."""

    def relint(text: str) -> list[Diagnostic]:
        found = []
        for match in re.finditer(pattern, text, re.MULTILINE):
            line, column = position(text, match.start())
            end_line, end_column = position(text, match.end())
            edit = Edit(line, column, end_line, end_column, match.expand(replacement))
            found.append(diagnostic(edit, unsafe=unsafe))
        return found

    return relint


# --- apply_edits ------------------------------------------------------------


def test_single_line_edit():
    source = "y = x.clone().detach()\n"
    edit = Edit(1, 5, 1, 23, "x.detach().clone()")
    assert apply_edits(source, [diagnostic(edit)], unsafe=False) == ("y = x.detach().clone()\n", 1)


def test_multi_line_edit():
    source = "a = f(\n    x,\n    y)\nb = 2\n"
    edit = Edit(1, 5, 3, 7, "g(x, y)")
    assert apply_edits(source, [diagnostic(edit)], unsafe=False) == ("a = g(x, y)\nb = 2\n", 1)


def test_edit_may_delete_a_whole_line():
    source = "a = 1\nb = 2\nc = 3\n"
    assert apply_edits(source, [diagnostic(Edit(2, 1, 3, 1, ""))], unsafe=False) == ("a = 1\nc = 3\n", 1)


def test_insertion_at_end_of_file():
    source = "a = 1\n"
    assert apply_edits(source, [diagnostic(Edit(2, 1, 2, 1, "b = 2\n"))], unsafe=False) == ("a = 1\nb = 2\n", 1)


def test_two_fixes_on_one_line_are_both_applied():
    source = "a, b = x.data, y.data\n"
    first = diagnostic(Edit(1, 8, 1, 14, "x.detach()"))
    second = diagnostic(Edit(1, 16, 1, 22, "y.detach()"))
    # Order of the diagnostics must not matter: offsets come from the original text.
    for diagnostics in ([first, second], [second, first]):
        assert apply_edits(source, diagnostics, unsafe=False) == ("a, b = x.detach(), y.detach()\n", 2)


def test_all_edits_of_one_fix_apply_together():
    source = "import torch\nx = foo(1)\n"
    fix = diagnostic(Edit(2, 5, 2, 8, "bar"), Edit(1, 1, 1, 1, "from m import bar\n"))
    assert apply_edits(source, [fix], unsafe=False) == ("from m import bar\nimport torch\nx = bar(1)\n", 1)


def test_edits_of_different_fixes_may_interleave():
    source = "a = 1\nb = 2\nc = 3\n"
    around = diagnostic(Edit(1, 5, 1, 6, "10"), Edit(3, 5, 3, 6, "30"))
    between = diagnostic(Edit(2, 5, 2, 6, "20"))
    assert apply_edits(source, [around, between], unsafe=False) == ("a = 10\nb = 20\nc = 30\n", 2)


def test_overlapping_fix_is_skipped_whole():
    source = "x = a + b\ny = c\n"
    winner = diagnostic(Edit(1, 5, 1, 10, "s"))
    # Its second edit is clear of the winner, but the first collides: neither applies.
    loser = diagnostic(Edit(2, 5, 2, 6, "C"), Edit(1, 9, 1, 10, "B"))
    assert apply_edits(source, [loser, winner], unsafe=False) == ("x = s\ny = c\n", 1)


def test_malformed_fix_is_ignored():
    source = "x = 1\n"
    outside = diagnostic(Edit(5, 1, 5, 2, "y"))
    past_line_end = diagnostic(Edit(1, 1, 1, 20, "y"))
    backwards = diagnostic(Edit(1, 4, 1, 2, "y"))
    assert apply_edits(source, [outside, past_line_end, backwards], unsafe=False) == (source, 0)


def test_unsafe_fix_needs_unsafe_flag():
    source = "x.add_(1)\n"
    fix = diagnostic(Edit(1, 1, 1, 10, "x = x.add(1)"), unsafe=True)
    assert apply_edits(source, [fix], unsafe=False) == (source, 0)
    assert apply_edits(source, [fix], unsafe=True) == ("x = x.add(1)\n", 1)


def test_diagnostic_without_fix_is_ignored():
    plain = Diagnostic("TCL999", "test-rule", "test", Location("t.py", 1, 1, 1, 2))
    assert apply_edits("x = 1\n", [plain], unsafe=True) == ("x = 1\n", 0)


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_windows_and_old_mac_line_endings_are_kept(newline):
    source = newline.join(["a = 1", "b = x.data", "c = 3", ""])
    edit = Edit(2, 5, 2, 11, "x.detach()")
    fixed, applied = apply_edits(source, [diagnostic(edit)], unsafe=False)
    assert applied == 1
    assert fixed == newline.join(["a = 1", "b = x.detach()", "c = 3", ""])


def test_columns_count_characters_not_bytes():
    source = 's = "héllo→wörld"; y = x.data\n'
    column = source.index("x.data") + 1  # characters; the UTF-8 byte offset is larger
    edit = Edit(1, column, 1, column + 6, "x.detach()")
    assert apply_edits(source, [diagnostic(edit)], unsafe=False) == ('s = "héllo→wörld"; y = x.detach()\n', 1)


def test_form_feed_is_not_a_line_break():
    # libcst (like Python) starts a new line only at \n, \r\n and \r; str.splitlines
    # would also split here and shift every line below by one.
    source = "a = 1\n\x0c\nb = x.data\n"
    edit = Edit(3, 5, 3, 11, "x.detach()")
    assert apply_edits(source, [diagnostic(edit)], unsafe=False) == ("a = 1\n\x0c\nb = x.detach()\n", 1)


# --- fix_source -------------------------------------------------------------


def test_fix_source_runs_passes_until_nothing_applies():
    source = "y = x.data\n"
    outcome = fix_source(source, "t.py", regex_relint(r"\.data\b", ".detach()"), unsafe=False)
    assert outcome == FixOutcome("t.py", source, "y = x.detach()\n", applied=1, passes=1, error=None)


def test_overlapping_fix_is_deferred_to_the_next_pass():
    # `neg(neg(x))`: the outer and the inner call both get a fix. The outer one
    # starts first and wins; the inner one is skipped, and relint offers it again.
    def relint(text: str) -> list[Diagnostic]:
        found = []
        for match in re.finditer(r"neg\(", text):
            depth, end = 1, match.end()
            while depth:
                depth += {"(": 1, ")": -1}.get(text[end], 0)
                end += 1
            inner = text[match.end() : end - 1]
            line, column = position(text, match.start())
            end_line, end_column = position(text, end)
            found.append(diagnostic(Edit(line, column, end_line, end_column, f"-({inner})")))
        return found

    source = "y = neg(neg(x))\n"
    assert len(relint(source)) == 2
    assert apply_edits(source, relint(source), unsafe=False) == ("y = -(neg(x))\n", 1)
    outcome = fix_source(source, "t.py", relint, unsafe=False)
    assert outcome.fixed == "y = -(-(x))\n"
    assert (outcome.applied, outcome.passes, outcome.error) == (2, 2, None)


def test_fixes_starting_at_the_same_point_keep_diagnostic_order():
    # `x.data.abs()`: one fix rewrites the whole chain, another just `x.data`.
    # Same start, so the one listed first wins; the loser is gone on re-lint.
    def relint(text: str) -> list[Diagnostic]:
        found = []
        if "x.data.abs()" in text:
            start = text.index("x.data.abs()") + 1
            found.append(diagnostic(Edit(1, start, 1, start + 12, "x.abs().detach()")))
        if "x.data" in text:
            start = text.index("x.data") + 1
            found.append(diagnostic(Edit(1, start, 1, start + 6, "x.detach()")))
        return found

    source = "y = x.data.abs()\n"
    assert apply_edits(source, relint(source), unsafe=False) == ("y = x.abs().detach()\n", 1)
    assert apply_edits(source, relint(source)[::-1], unsafe=False) == ("y = x.detach().abs()\n", 1)
    outcome = fix_source(source, "t.py", relint, unsafe=False)
    assert (outcome.fixed, outcome.applied, outcome.passes) == ("y = x.abs().detach()\n", 1, 1)


def test_unsafe_fixes_only_with_unsafe():
    source = "x.add_(1)\n"
    relint = regex_relint(r"^(\w+)\.add_\((.*)\)$", r"\1 = \1.add(\2)", unsafe=True)
    assert fix_source(source, "t.py", relint, unsafe=False).fixed == source
    assert fix_source(source, "t.py", relint, unsafe=True).fixed == "x = x.add(1)\n"


def test_fix_that_breaks_syntax_is_reverted():
    source = "y = x.data\nz = w.data\n"
    good_then_bad = iter(
        [
            [diagnostic(Edit(1, 5, 1, 11, "x.detach()"))],  # pass 1: fine
            [diagnostic(Edit(2, 5, 2, 11, "w.detach(("))],  # pass 2: unbalanced
        ]
    )
    outcome = fix_source(source, "t.py", lambda text: next(good_then_bad, []), unsafe=False)
    assert outcome.error is not None and "syntax" in outcome.error
    assert outcome.fixed == outcome.original == source
    assert outcome.applied == 0


def test_fixing_is_idempotent():
    source = "a = x.data\r\nb = [y.data, z.data]\r\n"
    relint = regex_relint(r"\.data\b", ".detach()")
    first = fix_source(source, "t.py", relint, unsafe=False)
    assert first.applied == 3
    second = fix_source(first.fixed, "t.py", relint, unsafe=False)
    assert (second.fixed, second.applied, second.passes) == (first.fixed, 0, 0)


def test_fixes_that_never_settle_stop_at_max_passes():
    source = "x = 1\n"
    flip = lambda text: [diagnostic(Edit(1, 5, 1, 6, "2" if "1" in text else "1"))]  # noqa: E731
    outcome = fix_source(source, "t.py", flip, unsafe=False, max_passes=3)
    assert (outcome.passes, outcome.converged, outcome.error) == (3, False, None)


def test_bom_is_kept_and_hidden_from_relint():
    source = "\ufeffy = x.data\n"
    seen = []

    def relint(text: str) -> list[Diagnostic]:
        seen.append(text)
        return regex_relint(r"\.data\b", ".detach()")(text)

    outcome = fix_source(source, "t.py", relint, unsafe=False)
    assert outcome.fixed == "\ufeffy = x.detach()\n"
    assert not any(text.startswith("\ufeff") for text in seen)


# --- write_atomically ---------------------------------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX mode bits")
def test_write_atomically_keeps_mode_and_leaves_no_temp_files(tmp_path):
    target = tmp_path / "script.py"
    target.write_text("old\n")
    os.chmod(target, 0o754)
    write_atomically(target, "new\r\nline\n")
    assert target.read_bytes() == b"new\r\nline\n"  # newlines written as given
    assert stat.S_IMODE(target.stat().st_mode) == 0o754
    assert sorted(p.name for p in tmp_path.iterdir()) == ["script.py"]


def test_write_atomically_encodes_non_ascii(tmp_path):
    target = tmp_path / "m.py"
    target.write_bytes(b"")
    write_atomically(target, "s = 'h\u00e9'\n")
    assert target.read_bytes() == "s = 'h\u00e9'\n".encode("utf-8")


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks")
def test_write_atomically_writes_through_a_symlink(tmp_path):
    real = tmp_path / "real.py"
    real.write_text("old\n")
    link = tmp_path / "link.py"
    link.symlink_to(real)
    write_atomically(link, "new\n")
    assert link.is_symlink()
    assert real.read_text() == "new\n"


def test_write_atomically_cleans_up_when_writing_fails(tmp_path):
    target = tmp_path / "m.py"
    target.write_text("old\n")
    with pytest.raises(UnicodeEncodeError):
        write_atomically(target, "s = '\u00e9'\n", encoding="ascii")
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.py"]


# --- unified_diff -------------------------------------------------------------


def test_unified_diff_format():
    diff = unified_diff("pkg/m.py", "a = 1\nb = x.data\n", "a = 1\nb = x.detach()\n")
    assert diff == (
        "--- a/pkg/m.py\n"
        "+++ b/pkg/m.py\n"
        "@@ -1,2 +1,2 @@\n"
        " a = 1\n"
        "-b = x.data\n"
        "+b = x.detach()\n"
    )


def test_unified_diff_empty_when_unchanged():
    assert unified_diff("m.py", "a = 1\n", "a = 1\n") == ""


def test_unified_diff_marks_missing_final_newline():
    diff = unified_diff("m.py", "y = x.data", "y = x.detach()")
    assert diff.endswith("-y = x.data\n\\ No newline at end of file\n+y = x.detach()\n\\ No newline at end of file\n")
