"""parse_for_analysis builds the tree libcst.parse_module builds, and leaves validation on afterwards."""

import sys
from pathlib import Path

import libcst as cst
import pytest

from torchcopylint import parsing
from torchcopylint.parsing import parse_for_analysis

REPO = Path(__file__).resolve().parent.parent
SOURCES = sorted((REPO / "examples").rglob("*.py")) + sorted((REPO / "torchcopylint" / "analysis").glob("*.py"))


def _validation_is_on() -> bool:
    try:
        cst.Name("not a name")  # Name validates its value: this must raise
    except cst.CSTValidationError:
        return True
    return False


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: path.name)
def test_same_tree_as_libcst(path):
    source = path.read_text(encoding="utf-8")
    fast = parse_for_analysis(source)
    assert fast.deep_equals(cst.parse_module(source))
    assert fast.code == source
    assert _validation_is_on()


def test_validation_is_back_after_a_syntax_error():
    with pytest.raises(cst.ParserSyntaxError):
        parse_for_analysis("def f(:\n    pass\n")
    assert _validation_is_on()
    assert all(node_type.__init__ is original for node_type, (original, _) in parsing._constructors().items())


def test_constructors_are_libcst_own_after_the_parse():
    constructors = {node_type: node_type.__init__ for node_type in parsing._node_classes()}
    parse_for_analysis("import torch\nx = torch.ones(2)\nx.add_(1)\n")
    assert {node_type: node_type.__init__ for node_type in parsing._node_classes()} == constructors


def test_fast_constructor_sets_what_libcst_own_sets():
    # A field with a default object (lpar=()), one with a default factory (whitespace), one passed.
    builders = (
        lambda: cst.Name("x"),
        lambda: cst.Call(cst.Name("f")),
        lambda: cst.Integer("1", lpar=[cst.LeftParen()], rpar=[cst.RightParen()]),
    )
    for build in builders:
        expected = build()
        node_type = type(expected)
        original, fast = parsing._constructors()[node_type]
        node_type.__init__ = fast
        try:
            made = build()
        finally:
            node_type.__init__ = original
        assert made.deep_equals(expected)


def test_every_node_class_has_a_fast_constructor():
    # If this fails, a libcst upgrade changed how its node classes are built: those classes keep
    # their own constructor (slower, still right), and parsing.py needs a look.
    assert set(parsing._constructors()) == set(parsing._node_classes())


def test_an_unknown_libcst_gets_the_plain_parse(monkeypatch):
    monkeypatch.setattr(parsing, "_SKIPPABLE", False)
    seen = []
    monkeypatch.setattr(cst, "parse_module", lambda text: seen.append(text) or "plain")
    assert parse_for_analysis("x = 1\n") == "plain" and seen == ["x = 1\n"]


def test_this_libcst_is_known():
    # If this fails, a libcst upgrade changed CSTNode.__post_init__: the parse still works,
    # with validation, and parsing.py needs a look.
    assert parsing._SKIPPABLE


def test_free_memory_is_released_after_each_parse(monkeypatch):
    calls = []
    monkeypatch.setattr(parsing, "_release_free_memory", lambda: calls.append(1))
    parse_for_analysis("x = 1\n")
    with pytest.raises(cst.ParserSyntaxError):
        parse_for_analysis("def f(:\n")
    assert calls == [1]  # after the parse that succeeded (a failed one returns no tree to analyse)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_the_releaser_trims_only_past_the_peak(monkeypatch):
    if parsing._free_memory_releaser() is None:
        pytest.skip("no malloc_trim in this C library")
    trims = []

    def malloc_trim(pad):
        trims.append(pad)

    monkeypatch.setattr("ctypes.CDLL", lambda _: type("C", (), {"malloc_trim": staticmethod(malloc_trim)})())
    # The process's peak, as getrusage reports it: set here, since the suite's earlier tests
    # (torch, models) leave a peak that no allocation of this test could raise.
    peak = [1000]
    monkeypatch.setattr("resource.getrusage", lambda _: type("U", (), {"ru_maxrss": peak[0]})())
    release = parsing._free_memory_releaser()
    release()  # the peak has not moved since the releaser was made
    assert trims == []
    peak[0] = 1500  # a parse raised the peak
    release()
    assert trims == [0]
    release()  # no higher since
    assert trims == [0]
