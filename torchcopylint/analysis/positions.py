"""Line and column of a node, computed on the top-level statement that holds it.

libcst's PositionProvider generates the code of the whole module to count lines; on a large
file with a single finding that cost twice the parse (1.3 MB of torch's test helpers: 35 s).
A top-level statement's code is a slice of the source text: when that slice occurs once in
the source, its place there is known, and positions inside it come from a module holding
that statement alone, shifted by the lines before it. Anything else (a slice that occurs
twice, a node outside the statements) falls back to the provider on the whole module.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from torchcopylint.analysis.syntax import walk


class Positions:
    def __init__(self, module: cst.Module, source: Optional[str]) -> None:
        self.module = module
        self.source = source
        self._by_statement: dict[cst.CSTNode, tuple[int, dict]] = {}  # statement -> (lines before, positions)
        self._statement_of: dict[cst.CSTNode, cst.CSTNode] = {}
        self._whole_module: Optional[dict] = None

    def of(self, node: cst.CSTNode) -> CodeRange:
        statement = self._top_level_statement(node) if self.source is not None else None
        located = self._locate(statement) if statement is not None else None
        if located is None:
            return self._whole()[node]
        lines_before, positions = located
        position = positions[node]
        return CodeRange(CodePosition(position.start.line + lines_before, position.start.column),
                         CodePosition(position.end.line + lines_before, position.end.column))

    def _top_level_statement(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        found = self._statement_of.get(node)
        if found is not None:
            return found
        for statement in self.module.body:
            # The nodes of a statement already located are in _statement_of.
            if statement not in self._by_statement and any(inner is node for inner in walk(statement)):
                return statement
        return None

    def _locate(self, statement: cst.CSTNode) -> Optional[tuple[int, dict]]:
        if statement in self._by_statement:
            return self._by_statement[statement]
        code = self.module.code_for_node(statement)
        start = self.source.find(code)
        if start < 0 or self.source.find(code, start + 1) >= 0:
            return None
        alone = self.module.with_changes(body=[statement], header=(), footer=())
        positions = MetadataWrapper(alone, unsafe_skip_copy=True).resolve(PositionProvider)
        located = (_line_breaks(self.source, start), positions)
        self._by_statement[statement] = located
        for inner in walk(statement):
            self._statement_of[inner] = statement
        return located

    def _whole(self) -> dict:
        if self._whole_module is None:
            self._whole_module = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        return self._whole_module


def _line_breaks(source: str, end: int) -> int:
    """Line breaks before `end`, counted as libcst counts them: "\n", "\r\n" and a lone "\r"."""
    return source.count("\n", 0, end) + source.count("\r", 0, end) - source.count("\r\n", 0, end)
