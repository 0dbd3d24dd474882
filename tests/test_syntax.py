"""child_nodes must give exactly libcst's children, trivia left out, in the same order."""

from pathlib import Path

import libcst as cst
import pytest

from torchcopylint.analysis.syntax import TRIVIA, child_nodes, sum_terms, walk

REPO = Path(__file__).resolve().parent.parent

# Every statement and expression form whose fields are declared out of source order, and the rest.
EVERY_FORM = '''
import a.b as c
from . import d
from e import (f as g, h)
@decorator(1)
async def f[T: int, *Ts, **P](a, /, b: int = 1, *c, d=2, **e) -> "R":
    global q
    async for x, *y in z:
        continue
    else:
        pass
    async with a as (b, c), d:
        await e
    result = [z async for z in w if z if not z]
    values = {k: v for k, v in items}, {*s}, (g for g in h), {**m, "k": 1}
    lam = lambda p, *, q=1: p if q else -p
    match subject:
        case [1, *rest] if rest:
            pass
        case {"key": value, **others}:
            pass
        case Point(x=0, y=yy) | None as alias:
            pass
    try:
        raise ValueError("v") from None
    except (TypeError, ValueError) as error:
        del error
    except KeyError:
        pass
    finally:
        assert q, "message"
    while n := next(it, None):
        break
    x[1:2, ::3] @= y ** -z
    return (yield x), f"{a!r:>{width}}" "tail", t"{b}", not a < b <= c is not d in e
class C[T](Base, metaclass=Meta):
    attribute: int = 0
type Alias[T] = list[T]
try:
    pass
except* OSError as group:
    pass
'''


def _trivia_free_children(node: cst.CSTNode) -> list:
    return [child for child in node.children if not isinstance(child, TRIVIA)]


def _sources():
    yield "every form", EVERY_FORM
    for path in sorted((REPO / "examples").rglob("*.py")) + sorted((REPO / "torchcopylint").rglob("*.py")):
        yield path.relative_to(REPO).as_posix(), path.read_text(encoding="utf-8")


@pytest.mark.parametrize("name,source", list(_sources()), ids=lambda value: value if "\n" not in value else "")
def test_child_nodes_are_libcst_children_without_trivia(name, source):
    module = cst.parse_module(source)
    stack = [module]
    visited = 0
    while stack:
        node = stack.pop()
        expected = _trivia_free_children(node)
        assert [id(child) for child in child_nodes(node)] == [id(child) for child in expected], \
            f"{name}: {type(node).__name__}"
        stack.extend(node.children)
        visited += 1
    assert visited > 3


def test_every_form_reaches_the_nodes_declared_out_of_order():
    kinds = {type(node) for node in walk(cst.parse_module(EVERY_FORM))}
    for declared_out_of_order in (cst.Arg, cst.IfExp, cst.ExceptHandler, cst.ExceptStarHandler, cst.FunctionDef,
                                  cst.ClassDef, cst.For, cst.With, cst.CompFor, cst.MatchCase, cst.Parameters,
                                  cst.TypeAlias):
        assert declared_out_of_order in kinds


def test_walk_is_in_source_order():
    module = cst.parse_module("def f(a):\n    return a.b(c) if d else e\n")
    names = [node.value for node in walk(module) if isinstance(node, cst.Name)]
    assert names == ["f", "a", "a", "b", "c", "d", "e"]


@pytest.mark.parametrize("source, terms", [
    ("a + b - c", ["a", "b", "c"]),
    ("0.5 * (real + fake)", ["real", "fake"]),
    ("F.mse_loss(x, y) + beta * kld", ["F.mse_loss(x, y)", "beta * kld"]),
    ("loss", ["loss"]),
])
def test_the_terms_of_a_sum_a_term_scaled_by_a_number_counting_as_that_term(source, terms):
    module = cst.parse_module("")
    assert [module.code_for_node(term) for term in sum_terms(cst.parse_expression(source))] == terms
