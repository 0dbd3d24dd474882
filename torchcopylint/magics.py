"""IPython syntax in a notebook cell, neutralised line for line so that every other line keeps its place.

A line magic or shell escape (`%matplotlib inline`, `!pip install x`) becomes `pass` at its
indentation, `x = !ls` becomes `x = None`, a help request (`obj?`, `??obj`) becomes `pass`;
a cell magic whose body is Python (`%%time`, `%%capture`) has its first line neutralised,
any other cell magic (`%%bash`, `%%writefile`, `%%html`) its whole cell, as ruff does. Only
the first thing of a statement can be an escape: lines inside strings and brackets, and
continuation lines, are left alone.
"""

from __future__ import annotations

import re
from typing import Optional

from torchcopylint.linescan import LineScanner

# Cell magics whose body is Python (ruff's list): only their first line is neutralised.
PYTHON_CELL_MAGICS = frozenset({"capture", "debug", "prun", "pypy", "python", "python3", "time", "timeit"})

# `files = !ls`, `t = %timeit -o f()`: a plain assignment (not `==`, `!=`, `<=`, `>=`) of an escape.
_ASSIGNED_ESCAPE = re.compile(r"^(\s*[\w.\[\](), *]+?\s*(?<![=!<>])=\s*)[!%]")


def neutralised_lines(lines: list[str]) -> list[str]:
    """A cell's lines (each ending with a line break), IPython syntax replaced by Python."""
    if not lines:
        return lines
    first = lines[0].lstrip()
    if first.startswith("%%"):
        name = first[2:].split(None, 1)[0] if first[2:].strip() else ""
        if name not in PYTHON_CELL_MAGICS:
            return [_ending(line) for line in lines]
        lines = ["pass" + _ending(lines[0]), *lines[1:]]
        start = 1
    else:
        start = 0
    result = lines[:start]
    scanner = LineScanner()
    continued_escape = False
    for line in lines[start:]:
        body, ending = line[: len(line) - len(_ending(line))], _ending(line)
        if continued_escape:  # the rest of a `!cmd \` or `%magic \` line
            result.append(ending)
            continued_escape = body.endswith("\\")
            continue
        if scanner.at_statement_start:
            replacement = _escape_replacement(body, scanner)
            if replacement is not None:
                result.append(replacement + ending)
                continued_escape = body.endswith("\\")
                continue
        scanner.feed(body)
        result.append(line)
    return result


def _ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")):]


def _escape_replacement(body: str, scanner: LineScanner) -> Optional[str]:
    stripped = body.lstrip()
    indent = body[: len(body) - len(stripped)]
    if not stripped or stripped.startswith("#"):
        return None
    if stripped[0] in "%!?" and not stripped.startswith("!="):
        return indent + "pass"
    assigned = _ASSIGNED_ESCAPE.match(body)
    if assigned is not None:
        return assigned.group(1) + "None"
    code = scanner.code_of(body)
    if code.rstrip().endswith("?"):  # `obj?`, `obj??`: help, not Python
        return indent + "pass"
    return None
