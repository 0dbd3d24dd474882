"""Fixes indent as the file does: every fix of every rule page's flagged examples, applied to the
example re-indented with tabs, still compiles and applies as often as on the spaces original."""

from __future__ import annotations

import re

import pytest

from torchcopylint.engine import lint_source
from torchcopylint.fix import fix_source
from torchcopylint.pages import page_examples
from torchcopylint.rules import ALL_RULES

FLAGGED = [example for rule in ALL_RULES for example in page_examples(rule.code) if example.kind == "flagged"]


def _with_tabs(source: str) -> str:
    """Each leading run of four spaces becomes a tab (the example's indentation unit)."""
    return re.sub(r"^((?:    )+)", lambda match: "\t" * (len(match.group(1)) // 4), source, flags=re.M)


@pytest.mark.parametrize("example", FLAGGED, ids=[f"{e.code}-line{e.line}" for e in FLAGGED])
def test_fixes_of_a_tab_indented_file_compile(example):
    tabbed = _with_tabs(example.source)
    try:
        compile(tabbed, "example.py", "exec")
    except SyntaxError:
        pytest.skip("the example's continuation lines do not re-indent with tabs")
    spaces = fix_source(example.source, "example.py", lambda text: lint_source(text, "example.py"), unsafe=True)
    tabs = fix_source(tabbed, "example.py", lambda text: lint_source(text, "example.py"), unsafe=True)
    assert tabs.error is None, tabs.error
    assert tabs.applied == spaces.applied
    compile(tabs.fixed, "example.py", "exec")
