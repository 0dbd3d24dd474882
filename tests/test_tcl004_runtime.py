"""TCL004's page, executed: what the rule says fails does fail, and what it calls clean runs.

Every example on rules/TCL004.md is a runnable module: it defines its code and
ends with the module-level call that reaches the in-place write. Each one is
executed under torch in a fresh namespace:

- a `flagged` example raises RuntimeError with the leaf error (or its view
  variant), and the error is raised at one of the lines the example declares
  with `lines=`;
- a `clean` example runs to the end without any exception;
- a `fixed` example (the flagged one after the `with torch.no_grad():` fix)
  runs to the end without any exception.
"""

from __future__ import annotations

import traceback

import pytest

torch = pytest.importorskip("torch")

from torchcopylint.pages import Example, page_examples  # noqa: E402

LEAF_ERRORS = (
    "a leaf Variable that requires grad is being used in an in-place operation",
    "a view of a leaf Variable that requires grad is being used in an in-place operation",
)
EXAMPLES = page_examples("TCL004")


def _cases(kind: str) -> list:
    return [pytest.param(example, id=f"TCL004-{kind}-L{example.line}") for example in EXAMPLES if example.kind == kind]


def _filename(example: Example) -> str:
    return f"<TCL004 {example.kind} example, rules/TCL004.md line {example.line}>"


def _run(example: Example) -> None:
    """Execute the example as a module of its own (`__name__` is not "__main__")."""
    code = compile(example.source, _filename(example), "exec")
    namespace = {"__name__": f"tcl004_example_L{example.line}", "__builtins__": __builtins__}
    torch.manual_seed(0)
    with torch.enable_grad():
        exec(code, namespace)  # noqa: S102 - the project's own documentation examples


def _raising_lines(error: BaseException, example: Example) -> list:
    """The lines of the example on the way to the error, innermost last: where it was raised, and
    the calls that led there (a helper's write is reported at the call of the helper)."""
    return [frame.lineno for frame in traceback.extract_tb(error.__traceback__)
            if frame.filename == _filename(example)]


def test_page_has_runnable_examples():
    kinds = [example.kind for example in EXAMPLES]
    assert kinds.count("flagged") >= 6
    assert kinds.count("clean") >= 10


@pytest.mark.parametrize("example", _cases("flagged"))
def test_flagged_example_raises_the_leaf_error(example):
    with pytest.raises(RuntimeError) as raised:
        _run(example)
    message = str(raised.value)
    assert any(text in message for text in LEAF_ERRORS), f"not the leaf error: {message}"
    lines = _raising_lines(raised.value, example)
    # Raised at a flagged line, or inside a helper of the example called from one: the frame just
    # outside the helper's write is a flagged line.
    assert lines and (lines[-1] in example.lines or (len(lines) > 1 and lines[-2] in example.lines)), \
        f"raised at line {lines[-1:]} (called from {lines[:-1]}), the page flags lines {example.lines}"


@pytest.mark.parametrize("example", _cases("clean"))
def test_clean_example_runs(example):
    try:
        _run(example)
    except RuntimeError as error:
        if any(text in str(error) for text in LEAF_ERRORS):
            pytest.fail(f"a clean example hit the leaf error: {error}")
        raise


@pytest.mark.parametrize("example", _cases("fixed"))
def test_fixed_example_runs(example):
    _run(example)
