"""The scale benchmark's generated code is what it claims to be (no timings asserted here)."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

SCALE = Path(__file__).resolve().parent.parent / "bench" / "scale.py"


@pytest.fixture(scope="module")
def scale():
    spec = importlib.util.spec_from_file_location("bench_scale", SCALE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _forward(source: str) -> ast.FunctionDef:
    tree = ast.parse(source)
    return next(node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name == "forward")


def _depth(node: ast.AST, depth: int = 0) -> int:
    blocks = (ast.If, ast.For, ast.While, ast.Try, ast.With)
    children = [_depth(child, depth + isinstance(child, blocks)) for child in ast.iter_child_nodes(node)]
    return max(children, default=depth)


@pytest.mark.parametrize("size", [1, 7, 50, 500])
def test_generated_module_parses_with_about_size_statements(scale, size):
    source, count, _names = scale.generate(size)
    forward = _forward(source)
    statements = sum(isinstance(node, ast.stmt) for node in ast.walk(forward)) - 1  # less the def
    assert size <= count <= size + 5
    assert count <= statements <= count + 1  # + the return


def test_names_grow_with_size_and_code_is_varied(scale):
    small_source, _, small_names = scale.generate(500)
    large_source, _, large_names = scale.generate(5000)
    assert large_names > 5 * small_names > 5 * 100
    for needle in (".clone()", ".add_(1)", " += ", "self.conv", "if ", "for ", "while ", "try:", "with "):
        assert needle in small_source, needle
    assert 3 <= _depth(_forward(large_source)) <= scale.MAX_DEPTH


def test_deterministic(scale):
    assert scale.generate(300, seed=1) == scale.generate(300, seed=1)
    assert scale.generate(300, seed=1) != scale.generate(300, seed=2)
