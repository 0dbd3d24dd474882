"""Rewrite flagged statements into probes, keeping every line number.

A probe is a call put on the statement's own line: `__tcl_probe__.before(7, locals()); <statement>`
or `<statement>; __tcl_probe__.after(7, locals())`. Only simple statements take probes; nothing
else in the file changes. Uses `ast` only: this runs inside the user's processes.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

PROBE_NAME = "__tcl_probe__"


@dataclass(frozen=True)
class ProbePoint:
    probe_id: int
    line: int
    when: str  # "before" or "after"


def rewrite(source: str, points: list[ProbePoint]) -> tuple[str, list[int]]:
    """(rewritten source, ids of the probes that could not be placed)."""
    tree = ast.parse(source)
    simple = [node for node in ast.walk(tree) if isinstance(node, ast.stmt) and not _is_compound(node)]
    starts: dict[int, ast.stmt] = {}
    for node in simple:
        starts.setdefault(node.lineno, node)
    for node in simple:
        # A line inside a multi-line statement is probed at the statement that holds it.
        for line in range(node.lineno + 1, (node.end_lineno or node.lineno) + 1):
            starts.setdefault(line, node)
    lines = source.encode("utf-8").splitlines(keepends=True)  # not str.splitlines: \f, \x1c... are no line ends
    insertions: list[tuple[int, int, bytes]] = []  # (line index, byte column, text)
    unplaced = []
    for point in points:
        statement = starts.get(point.line)
        if statement is None or (point.when == "after" and isinstance(statement, (ast.Return, ast.Raise,
                                                                                  ast.Continue, ast.Break))):
            unplaced.append(point.probe_id)
            continue
        if point.when == "before":
            text = f"{PROBE_NAME}.before({point.probe_id}, locals()); "
            insertions.append((statement.lineno - 1, statement.col_offset, text.encode()))
        else:
            text = f"; {PROBE_NAME}.after({point.probe_id}, locals())"
            insertions.append((statement.end_lineno - 1, statement.end_col_offset, text.encode()))
    # Right to left, so earlier columns stay valid.
    for index, column, text in sorted(insertions, key=lambda item: (item[0], item[1]), reverse=True):
        lines[index] = lines[index][:column] + text + lines[index][column:]
    return b"".join(lines).decode("utf-8"), unplaced


def _is_compound(node: ast.stmt) -> bool:
    return isinstance(node, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try,
                             ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Match)) or \
        type(node).__name__ == "TryStar"
