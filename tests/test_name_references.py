"""ModuleFacts.name_references counts one name with str.find; it must answer what the two
regular expressions it replaced did, over the whole text, for every name."""

from __future__ import annotations

import random
import re

import libcst as cst

from torchcopylint.analysis.facts import ModuleFacts, _definition_count, _word_count


def _by_regex(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for word in re.findall(r"(?<![\w.])[A-Za-z_]\w*", text):
        counts[word] = counts.get(word, 0) + 1
    for defined, in_super in re.findall(r"\b(?:def|class)\s+(\w+)|\bsuper\(\s*(\w+)", text):
        word = defined or in_super
        counts[word] = counts.get(word, 0) - 1
    return counts


def _assert_same(text: str) -> None:
    expected = _by_regex(text)
    for name in set(expected) | set(re.findall(r"\w+", text)) | {"", "x.y", "def"}:
        assert _word_count(text, name) - _definition_count(text, name) == expected.get(name, 0), (text, name)


def test_module_code():
    text = (
        "import torch.nn as nn\n"
        "class Block(nn.Module):\n"
        "    def __init__(self, act=nn.ReLU):\n"
        "        super(Block, self).__init__()\n"
        "        self.Block = Block  # Block again\n"
        "def make(Block=Block): return Block()\n"
        "x = 'Block' + sub.Block + Blocks + _Block + Block_\n"
    )
    _assert_same(text)
    facts = ModuleFacts(cst.parse_module(text), "<string>", text)
    # Eight spellings as a word (in the comment and the string too; not the attributes `self.Block`
    # and `sub.Block`), less the class statement and super().
    assert facts.name_references("Block") == 6
    assert facts.name_references("make") == 0


def test_keywords_that_are_themselves_the_defined_word():
    # `def super(x`: the scan from the left takes `super` as the defined name, not `x` as super's argument.
    for text in ("def super(x): pass", "def  super( x", "class def x", "def def def x", "undef x", "super(\n  x",
                 "super (x", "def\u00a0x", "def\u2028x", "é def x", "9def x", "def x9", "class\tdef\tsuper(super(y"):
        _assert_same(text)


def test_random_texts():
    pieces = ["def", "class", "super(", "super", " ", "\n", "\t", "\u00a0", "x", "y1", "_", "é", "9", ".", "(", ")"]
    generator = random.Random(7)
    for _ in range(3000):
        _assert_same("".join(generator.choice(pieces) for _ in range(generator.randint(1, 20))))
