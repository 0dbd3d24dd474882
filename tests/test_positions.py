"""Positions computed per top-level statement equal libcst's PositionProvider on the whole module."""

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from torchcopylint.analysis.positions import Positions
from torchcopylint.analysis.syntax import walk

REPO = Path(__file__).resolve().parent.parent

CASES = {
    "repeated statements": "import torch\nx = torch.ones(3)\nx = torch.ones(3)\n\n\ndef f(a):\n    return a.clone()\n",
    "no trailing newline": "# header comment\n\nimport torch\n\n\ndef f(a):\n    b = a.clone()\n    return b",
    "crlf": "import torch\r\n\r\ndef f(a):\r\n    b = a.clone().detach()\r\n    return b\r\n",
    # lone "\r" line breaks in a "\n" file (a notebook cell saved on an old Mac; found by bench/fuzz.py)
    "mixed line breaks": "import torch\nx = 1\ry = 2\rz = 3\n\n\ndef f(a):\n    return a.clone().detach()\n",
    "semicolons and decorators": "import torch; y = 1\n@torch.no_grad()\n# between\ndef f(a):\n    a.add_(1); return a\n",
    "comment-only lines": "\n\n# a\n# b\nclass C:\n    '''doc\n    string'''\n    def g(self, x):\n        return x.t()\n# trailing comment\n",
}


def _sources():
    yield from CASES.items()
    for path in sorted((REPO / "examples").rglob("*.py")) + sorted((REPO / "torchcopylint" / "rules").glob("*.py")):
        yield path.relative_to(REPO).as_posix(), path.read_text(encoding="utf-8")


@pytest.mark.parametrize("name,source", list(_sources()), ids=lambda value: value if "\n" not in value else "")
def test_positions_equal_the_whole_module_provider(name, source):
    module = cst.parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    positions = Positions(module, source)
    nodes = list(walk(module))[1:]  # the module itself has no statement to hold it
    assert len(nodes) > 5
    for node in nodes:
        assert positions.of(node) == expected[node], f"{name}: {type(node).__name__} {module.code_for_node(node)!r}"


def test_a_statement_that_occurs_twice_falls_back_to_the_whole_module():
    source = CASES["repeated statements"]
    module = cst.parse_module(source)
    positions = Positions(module, source)
    second = module.body[2]
    assert positions.of(second).start.line == 3
    assert second not in positions._by_statement


def test_without_source_text_the_whole_module_provider_answers():
    module = cst.parse_module("import torch\n\n\ndef f(a):\n    return a.clone()\n")
    call = next(node for node in walk(module) if isinstance(node, cst.Call))
    assert Positions(module, None).of(call).start.line == 5
