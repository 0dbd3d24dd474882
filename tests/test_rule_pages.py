"""The rule catalogue (rules/TCLnnn.md): every registered rule has a page in the
catalogue format, and the page's examples are test cases.

- a ```python flagged lines=N[,M]``` example yields diagnostics of the page's
  rule only, exactly at those lines (a line given twice: two diagnostics on it);
- a ```python clean``` example yields no diagnostic at all, from any rule;
- a ```python fixed``` example is exactly what the fixes (unsafe ones included)
  turn the nearest preceding flagged example into, and it no longer has the
  rule's diagnostics.

The tests are parametrized over ALL_RULES, so they grow as rules are registered.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from typing import Optional

import pytest

from torchcopylint.pages import Example, page_examples, page_text
from torchcopylint.engine import lint_source
from torchcopylint.fix import fix_source
from torchcopylint.rules import ALL_RULES

SECTIONS = (
    "What it flags",
    "Why it matters",
    "When it stays silent",
    "Flagged examples",
    "Clean examples",
    "Fix",
    "Verify",
)
MIN_FLAGGED = 6
MIN_CLEAN = 10
FIX_AVAILABILITY = ("safe", "unsafe", "sometimes", "none")

RULES = sorted(ALL_RULES, key=lambda rule: rule.code)
CODES = [rule.code for rule in RULES]


def _severity(rule) -> str:
    return getattr(rule.severity, "value", rule.severity)


def _example_cases(kind: str) -> list:
    cases = []
    for rule in RULES:
        for index, example in enumerate(page_examples(rule.code)):
            if example.kind == kind:
                cases.append(pytest.param(rule, index, id=f"{rule.code}-{kind}-L{example.line}"))
    return cases


def _example(rule, index: int) -> Example:
    return page_examples(rule.code)[index]


def _example_path(example: Example) -> str:
    return f"{example.code}_example_L{example.line}.py"


def _lint(source: str, path: str) -> list:
    return list(lint_source(source, path))


def _describe(diagnostics) -> str:
    return "\n".join(f"  {d.location.line}:{d.location.column} {d.code} {d.message}" for d in diagnostics) or "  (none)"


def _preceding_flagged(rule, index: int) -> Optional[Example]:
    for example in reversed(page_examples(rule.code)[:index]):
        if example.kind == "flagged":
            return example
    return None


# --- the page itself ------------------------------------------------------------


@pytest.mark.parametrize("rule", RULES, ids=CODES)
def test_page_exists(rule):
    assert page_text(rule.code) is not None, f"rules/{rule.code}.md is missing"


@pytest.mark.parametrize("rule", RULES, ids=CODES)
def test_page_title_and_metadata(rule):
    text = page_text(rule.code) or ""
    lines = text.splitlines()
    assert lines and lines[0] == f"# {rule.code} {rule.name}", "the first line must be '# CODE name'"
    meta = next((line for line in lines[1:] if line.strip()), "")
    match = re.fullmatch(r"\*\*Kind:\*\* (.+?) · \*\*Severity:\*\* (\w+) · \*\*Fix:\*\* (\w+)\s*", meta)
    assert match, f"the metadata line must read '**Kind:** … · **Severity:** … · **Fix:** …', got {meta!r}"
    kind, severity, fix = match.groups()
    assert kind.strip()
    assert severity == _severity(rule)
    assert fix in FIX_AVAILABILITY
    assert fix == rule.fix_availability


@pytest.mark.parametrize("rule", RULES, ids=CODES)
def test_page_sections_in_order(rule):
    text = page_text(rule.code) or ""
    headings = re.findall(r"^## +(.+?)\s*$", text, re.M)
    assert tuple(headings) == SECTIONS


@pytest.mark.parametrize("rule", RULES, ids=CODES)
def test_page_has_enough_examples(rule):
    kinds = Counter(example.kind for example in page_examples(rule.code))
    assert kinds["flagged"] >= MIN_FLAGGED, f"{kinds['flagged']} flagged examples, want {MIN_FLAGGED}"
    assert kinds["clean"] >= MIN_CLEAN, f"{kinds['clean']} clean examples, want {MIN_CLEAN}"
    if rule.fix_availability in ("safe", "sometimes"):
        assert kinds["fixed"] >= 1, "a rule with a fix shows at least one fixed example"


@pytest.mark.parametrize("rule", RULES, ids=CODES)
def test_examples_sit_in_their_sections(rule):
    text = page_text(rule.code) or ""

    def section_span(heading: str) -> tuple[int, int]:
        start = re.search(rf"^## +{re.escape(heading)}\s*$", text, re.M)
        assert start, heading
        following = re.search(r"^## ", text[start.end():], re.M)
        end = start.end() + following.start() if following else len(text)
        return text.count("\n", 0, start.start()) + 1, text.count("\n", 0, end) + 1

    flagged_span = section_span("Flagged examples")
    clean_span = section_span("Clean examples")
    fix_span = section_span("Fix")
    for example in page_examples(rule.code):
        where = {"flagged": (flagged_span,), "clean": (clean_span,), "fixed": (flagged_span, fix_span)}[example.kind]
        assert any(low <= example.line < high for low, high in where), (
            f"the {example.kind} example at line {example.line} is outside its section"
        )


# --- the examples ---------------------------------------------------------------


@pytest.mark.parametrize("rule, index", _example_cases("flagged") + _example_cases("clean") + _example_cases("fixed"))
def test_example_is_valid_python(rule, index):
    example = _example(rule, index)
    ast.parse(example.source, filename=_example_path(example))


@pytest.mark.parametrize("rule, index", _example_cases("flagged"))
def test_flagged_example(rule, index):
    example = _example(rule, index)
    assert example.lines, "a flagged example declares where the rule reports: ```python flagged lines=N"
    count = len(example.source.splitlines())
    assert all(1 <= line <= count for line in example.lines), f"lines={example.lines} outside the example"
    diagnostics = _lint(example.source, _example_path(example))
    others = [d for d in diagnostics if d.code != rule.code]
    assert not others, f"a flagged example must have only {rule.code} diagnostics:\n{_describe(others)}"
    reported = Counter(d.location.line for d in diagnostics)
    assert reported == Counter(example.lines), (
        f"{rule.code} should report at lines {sorted(example.lines)}; got:\n{_describe(diagnostics)}"
    )


@pytest.mark.parametrize("rule, index", _example_cases("clean"))
def test_clean_example(rule, index):
    example = _example(rule, index)
    diagnostics = _lint(example.source, _example_path(example))
    assert not diagnostics, f"a clean example must have no diagnostics:\n{_describe(diagnostics)}"


@pytest.mark.parametrize("rule, index", _example_cases("fixed"))
def test_fixed_example(rule, index):
    example = _example(rule, index)
    flagged = _preceding_flagged(rule, index)
    assert flagged is not None, "a fixed example follows the flagged example it fixes"
    path = _example_path(flagged)

    def relint(text: str) -> list:
        return [d for d in _lint(text, path) if d.code == rule.code]

    outcome = fix_source(flagged.source, path, relint, unsafe=True)
    assert outcome.error is None, outcome.error
    assert outcome.fixed == example.source
    remaining = relint(example.source)
    assert not remaining, f"the fixed example still has {rule.code} diagnostics:\n{_describe(remaining)}"
