"""Jupyter notebooks: their code cells as one module, positions mapped back to cells, edits written back.

A notebook (nbformat 4, read with plain `json`) is linted as the module a top-to-bottom
run executes: its code cells in order, each ending with a line break, with IPython syntax
neutralised line for line (magics.py), so every other line keeps its number and columns.

Cells are numbered from 1 over every cell of the notebook, markdown included (ruff's
`cell N`), and lines and columns inside a cell are those of its source.

A cell that does not parse (an exercise left blank, a line of prose, a bracket never closed)
is found by CPython's parser, alone and then in context; the module is the other cells with
that cell's lines left empty (every line keeps its number), and the cell is one TCL900.

Writing back changes only the text of the `source` values that changed: everything else
in the file (outputs, execution counts, metadata, indentation, key order, escapes, the
trailing newline) is copied byte for byte, and a source stays a list of lines or a string
as it was.
"""

from __future__ import annotations

import ast
import bisect
import builtins
import dataclasses
import difflib
import json
import re
import symtable
from dataclasses import dataclass, field
from json.decoder import scanstring
from typing import Callable, Iterable, Optional, Sequence

from torchcopylint import noqa
from torchcopylint.diagnostic import Diagnostic, Fix, Location
from torchcopylint.magics import neutralised_lines
from torchcopylint.source_encoding import BYTE_ORDER_MARK
from torchcopylint.fix import FixOutcome, apply_edits, fix_source, module_syntax_error, split_lines
from torchcopylint.syntax_errors import SyntaxProblem, cpython_accepts, problem_in

SUFFIX = ".ipynb"


def is_notebook(path: str) -> bool:
    return str(path).lower().endswith(SUFFIX)


class NotebookError(ValueError):
    """The file is not a notebook we can read (not JSON, not nbformat 4, malformed cells)."""


@dataclass
class CodeCell:
    number: int  # 1-based, over every cell of the notebook
    source: str  # the cell's text as written (magics included)
    first_line: int  # where it starts in the module (1-based)
    line_count: int  # lines it takes in the module
    neutralised: frozenset[int]  # its lines (1-based) rewritten because they are IPython syntax
    span: tuple[int, int]  # offsets of the `source` value (a list or a string) in the file's text
    element_spans: list[tuple[int, int]] = field(default_factory=list)  # list sources: each string's offsets
    # The JSON strings the source is made of: (offset of the opening quote, characters once decoded).
    strings: list[tuple[int, int]] = field(default_factory=list)
    # The indentation IPython strips from a cell whose first line starts with it, off every line that
    # starts with it (its `leading_indent` transform: a cell pasted from inside a function runs at the
    # top level); the module holds the cell without it, so on those lines (`unindented`, 1-based) a
    # module column is this many characters left of the cell's.
    indent: int = 0
    unindented: frozenset[int] = frozenset()

    def indent_at(self, line: int) -> int:
        """How many characters left of the cell's a module column is, on the cell's line `line`."""
        return self.indent if line in self.unindented else 0

    def lines(self) -> list[str]:
        """Its lines, without their endings."""
        return [line.rstrip("\r\n") for line in split_lines(self.source)]


@dataclass
class Notebook:
    raw: str  # the file's text
    cells: list[CodeCell]
    module: str  # the code cells as one module, magics neutralised

    def __post_init__(self) -> None:
        self._starts = [cell.first_line for cell in self.cells]
        self._by_number = {cell.number: cell for cell in self.cells}

    def cell_at(self, module_line: int) -> Optional[CodeCell]:
        """The code cell holding this line of the module."""
        index = bisect.bisect_right(self._starts, module_line) - 1
        if index < 0:
            return None
        cell = self.cells[index]
        return cell if module_line < cell.first_line + cell.line_count else None

    def cell_numbered(self, number: int) -> Optional[CodeCell]:
        return self._by_number.get(number)


# --------------------------------------------------------------------------------- reading


def read(raw: str) -> Notebook:
    """Parse a notebook's text; NotebookError says why it cannot be linted."""
    # Some editors start the file with a byte-order mark, which Jupyter reads past; the offsets into
    # the text (for fixes) start after it, and a fix keeps it.
    start = 1 if raw.startswith(BYTE_ORDER_MARK) else 0
    try:
        data = json.loads(raw[start:])
    except (json.JSONDecodeError, RecursionError) as error:
        raise NotebookError(f"not valid JSON: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise NotebookError("not a Jupyter notebook: no `cells` list")
    if data.get("nbformat") != 4:
        raise NotebookError(f"nbformat {data.get('nbformat')!r} is not supported (only nbformat 4)")
    spans = _source_spans(raw, start)
    cells: list[CodeCell] = []
    module_lines: list[str] = []
    python = _is_python(data.get("metadata"))
    for index, cell in enumerate(data["cells"]):
        if not isinstance(cell, dict):
            raise NotebookError(f"cell {index + 1} is not an object")
        if cell.get("cell_type") != "code" or not python:
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(part, str) for part in source):
            parts = source
        elif isinstance(source, str):
            parts = [source]
        else:
            raise NotebookError(f"cell {index + 1}: `source` is neither a string nor a list of strings")
        if index not in spans:
            raise NotebookError(f"cell {index + 1}: its `source` could not be located in the file")
        source = "".join(parts)
        lines = neutralised_lines(_lines(source))
        neutral = frozenset(number for number, (old, new) in enumerate(zip(_lines(source), lines), 1) if old != new)
        indent = _leading_indent(lines)
        unindented = frozenset(number for number, line in enumerate(lines, 1) if indent and line.startswith(indent))
        lines = [line[len(indent):] if number in unindented else line for number, line in enumerate(lines, 1)]
        span, element_spans = spans[index]
        quotes = [start for start, _end in element_spans] if element_spans else [span[0]]
        cells.append(CodeCell(index + 1, source, len(module_lines) + 1, len(lines), neutral, span, element_spans,
                              list(zip(quotes, map(len, parts))), len(indent), unindented))
        module_lines.extend(lines)
    return Notebook(raw, cells, "".join(module_lines))


def _leading_indent(lines: list[str]) -> str:
    """The indentation of the cell's first line that is not blank, which IPython strips off every line
    that starts with it before running the cell (IPython.core.inputtransformer2: `leading_empty_lines`,
    then `leading_indent`), or ""."""
    first = next((line for line in lines if line.strip()), "")
    return first[:len(first) - len(first.lstrip(" \t"))]


def _is_python(metadata: object) -> bool:
    """False only when the notebook says its language is another one (an R or Julia kernel)."""
    if not isinstance(metadata, dict):
        return True
    for key, inner in (("language_info", "name"), ("kernelspec", "language")):
        section = metadata.get(key)
        if isinstance(section, dict) and isinstance(section.get(inner), str):
            return section[inner].lower() == "python"
    return True


def _lines(source: str) -> list[str]:
    """The cell's lines with their endings; the last one is given a line break if it has none."""
    lines = split_lines(source)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n"
    return lines


_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()

# Where a code cell's `source` value is in the file: its offsets, and each string's when it is a list.
SourceSpans = tuple[tuple[int, int], list[tuple[int, int]]]


def _source_spans(raw: str, start: int = 0) -> dict[int, SourceSpans]:
    """Cell index -> where its `source` is in the text.

    A small walk over the JSON text: the top-level object, its `cells` array, each cell's
    `source`; every other value is skipped by the standard decoder, so nothing else is
    interpreted. Offsets are in characters of `raw`.
    """
    spans: dict[int, SourceSpans] = {}

    def source(index: int, at: int) -> int:
        end = _value_end(raw, at)
        spans[index] = ((at, end), _string_spans(raw, at))
        return end

    def cell(index: int, at: int) -> int:
        return _members(raw, at, "{}", lambda key, value_at: source(index, value_at) if key == "source"
                        else _value_end(raw, value_at))

    def top(key: str, at: int) -> int:
        return _members(raw, at, "[]", cell) if key == "cells" else _value_end(raw, at)

    try:
        _members(raw, start, "{}", top)
    except (IndexError, ValueError) as error:
        raise NotebookError(f"malformed JSON: {error}") from None
    return spans


def _members(raw: str, at: int, brackets: str, on_member: Callable) -> int:
    """Walk the object (brackets "{}") or array ("[]") at `at`: `on_member(key or index, value offset)`
    returns where that value ends. Returns where the container ends."""
    at = _WHITESPACE.match(raw, at).end()
    if raw[at] != brackets[0]:
        raise ValueError(f"expected {brackets[0]!r} at offset {at}")
    at = _WHITESPACE.match(raw, at + 1).end()
    index = 0
    while raw[at] != brackets[1]:
        if brackets == "{}":
            key, at = scanstring(raw, at + 1)
            at = _WHITESPACE.match(raw, at).end() + 1  # past ':'
            at = on_member(key, _WHITESPACE.match(raw, at).end())
        else:
            at = on_member(index, at)
        index += 1
        at = _WHITESPACE.match(raw, at).end()
        if raw[at] == ",":
            at = _WHITESPACE.match(raw, at + 1).end()
    return at + 1


def _value_end(raw: str, at: int) -> int:
    return _DECODER.raw_decode(raw, at)[1]


def _string_spans(raw: str, start: int) -> list[tuple[int, int]]:
    """Offsets of each string of the array at `start` (none when it is a string)."""
    if raw[start] != "[":
        return []
    spans: list[tuple[int, int]] = []

    def string(_index: int, at: int) -> int:
        end = _value_end(raw, at)
        spans.append((at, end))
        return end

    _members(raw, start, "[]", string)
    return spans


# ------------------------------------------------------------------------ cells that do not parse


@dataclass(frozen=True)
class BrokenCell:
    cell: CodeCell
    problem: SyntaxProblem  # CPython's error; its line counts in the module (cell.first_line is line 1)


def broken_cells(document: Notebook) -> list[BrokenCell]:
    """The code cells CPython's parser refuses; [] when the whole module parses (the usual case, one parse).

    Each cell is parsed alone (as Jupyter runs it: an unclosed bracket is the error of its own
    cell, not of the cells it would swallow), set at its lines of the module so that CPython's
    line numbers, in positions and messages ("after 'if' statement on line N"), are module
    lines. Then the module without those cells is parsed, and any cell still at fault in that
    context is added, until the rest parses or no cell can be blamed.
    """
    if cpython_accepts(document.module):
        return []
    lines = split_lines(document.module)
    broken: dict[int, BrokenCell] = {}
    for cell in document.cells:
        start = cell.first_line - 1
        problem = problem_in("\n" * start + "".join(lines[start : start + cell.line_count]))
        if problem is not None:
            broken[cell.number] = BrokenCell(cell, problem)
    for _ in range(len(document.cells)):
        problem = problem_in(blanked(document, broken))
        cell = document.cell_at(problem.line) if problem is not None else None
        if cell is None or cell.number in broken:
            break
        broken[cell.number] = BrokenCell(cell, problem)
    return sorted(broken.values(), key=lambda item: item.cell.number)


def blanked(document: Notebook, cells: Iterable) -> str:
    """The module with these cells' lines (by number) left empty, every line kept in its place."""
    numbers = {item.cell.number if isinstance(item, BrokenCell) else item for item in cells}
    if not numbers:
        return document.module
    lines = split_lines(document.module)
    for cell in document.cells:
        if cell.number in numbers:
            for index in range(cell.first_line - 1, cell.first_line - 1 + cell.line_count):
                lines[index] = lines[index][len(lines[index].rstrip("\r\n")):]
    return "".join(lines)


def lintable_module(document: Notebook) -> str:
    """The module to lint: the code cells, those that do not parse left empty."""
    return blanked(document, broken_cells(document))


def needed_broken_cell(document: Notebook, broken: list[BrokenCell], module: str, line: int) \
        -> Optional[tuple[int, str]]:
    """(cell number, name) when the top-level statement holding `line` of `module` (the cells that
    do not parse left empty) reads a global name, itself or through the notebook's functions and
    classes it uses, that no other cell defines and a broken cell mentions: running it (--verify)
    needs that cell. None otherwise."""
    if not broken:
        return None
    try:
        tree = ast.parse(module)
        defined = {symbol.get_name() for symbol in symtable.symtable(module, "<notebook>", "exec").get_symbols()
                   if symbol.is_assigned() or symbol.is_imported()}
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    lines = split_lines(module)
    statements = {}
    home = None
    for node in tree.body:
        first = min([node.lineno, *(decorator.lineno for decorator in getattr(node, "decorator_list", []))])
        statements[node] = "".join(lines[first - 1 : node.end_lineno or node.lineno])
        if first <= line <= (node.end_lineno or node.lineno):
            home = node
    if home is None:
        return None
    by_name = {node.name: node for node in tree.body
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    needed: set[str] = set()
    pending, seen = [home], set()
    while pending:
        node = pending.pop()
        if node in seen:
            continue
        seen.add(node)
        names = _global_reads(statements[node])
        needed |= names
        pending.extend(by_name[name] for name in names if name in by_name)
    needed -= defined | _BUILTINS
    for item in broken:
        mentioned = set(re.findall(r"[A-Za-z_]\w*", item.cell.source))
        for name in sorted(needed & mentioned):
            return item.cell.number, name
    return None


_BUILTINS = frozenset(dir(builtins))


def _global_reads(source: str) -> set[str]:
    """The global names a top-level statement reads (in any scope inside it)."""
    try:
        table = symtable.symtable(source, "<statement>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    names: set[str] = set()
    pending = [table]
    while pending:
        scope = pending.pop()
        for symbol in scope.get_symbols():
            if not symbol.is_referenced():
                continue
            if scope.get_type() == "module":
                if not (symbol.is_assigned() or symbol.is_imported()):
                    names.add(symbol.get_name())
            elif symbol.is_global():
                names.add(symbol.get_name())
        pending.extend(scope.get_children())
    return names


# ------------------------------------------------------------------ positions: module <-> cells

# How messages name a line of the module: rules write `line N`, parse errors `@ N:C`.
_LINE_REFERENCE = re.compile(r"\bline (\d+)\b")
_PARSER_POSITION = re.compile(r"@ (\d+):(\d+)")


def to_cells(diagnostics: Sequence[Diagnostic], notebook: Notebook) -> list[Diagnostic]:
    """Module positions -> cell positions. A fix that would touch another cell or a neutralised
    line is dropped (it cannot be written back), and `line N` in messages names the cell too."""
    return [_to_cell(diagnostic, notebook) for diagnostic in diagnostics]


def _to_cell(diagnostic: Diagnostic, notebook: Notebook) -> Diagnostic:
    location = diagnostic.location
    cell = notebook.cell_at(location.line) or (notebook.cells[-1] if notebook.cells else None)
    if cell is None:
        return diagnostic
    offset = cell.first_line - 1
    line = min(max(1, location.line - offset), cell.line_count)
    column = location.column + cell.indent_at(line)
    end_line = location.end_line - offset
    end_column = location.end_column + cell.indent_at(end_line)
    if end_line > cell.line_count or end_line < line:  # a node that runs past its cell
        end_line, end_column = line, column + 1
    fix = diagnostic.fix
    if fix is not None:
        fix = _fix_in_cell(fix, cell)
    message = _LINE_REFERENCE.sub(lambda match: _line_label(int(match.group(1)), notebook), diagnostic.message)
    message = _PARSER_POSITION.sub(
        lambda match: f"@ {_line_label(int(match.group(1)), notebook)}, column {match.group(2)}", message)
    return dataclasses.replace(diagnostic, location=Location(location.path, line, column, end_line,
                                                             end_column, cell=cell.number),
                               fix=fix, message=message)


def lines_in_cells(text: str, notebook: Notebook) -> str:
    """`line N` of the module, in a text (a --verify verdict's evidence), as the cell and line it is."""
    return _LINE_REFERENCE.sub(lambda match: _line_label(int(match.group(1)), notebook), text)


def _line_label(module_line: int, notebook: Notebook) -> str:
    cell = notebook.cell_at(module_line)
    if cell is None:
        return f"line {module_line}"
    return f"cell {cell.number}, line {module_line - cell.first_line + 1}"


def _fix_in_cell(fix: Fix, cell: CodeCell) -> Optional[Fix]:
    offset = cell.first_line - 1
    edits = []
    for edit in fix.edits:
        line, end_line = edit.line - offset, edit.end_line - offset
        # The end may be the start of the next line (a whole line removed), still in this cell's text.
        if not (1 <= line <= cell.line_count and 1 <= end_line <= cell.line_count + 1):
            return None
        if any(number in cell.neutralised for number in range(line, min(end_line, cell.line_count) + 1)):
            return None
        if cell.unindented and (edit.column == 1 or edit.end_column == 1 or "\n" in edit.content):
            return None  # whole lines, in a cell written indented: their indentation is not the module's
        edits.append(dataclasses.replace(edit, line=line, end_line=end_line, column=edit.column + cell.indent_at(line),
                                         end_column=edit.end_column + cell.indent_at(end_line)))
    return dataclasses.replace(fix, edits=tuple(edits))


def to_module(diagnostic: Diagnostic, notebook: Notebook) -> Diagnostic:
    """Cell positions -> module positions (for --verify, which runs the module)."""
    location = diagnostic.location
    cell = notebook.cell_numbered(location.cell) if location.cell is not None else None
    if cell is None:
        return diagnostic
    offset, indent_at = cell.first_line - 1, cell.indent_at
    fix = diagnostic.fix
    if fix is not None:
        fix = dataclasses.replace(fix, edits=tuple(
            dataclasses.replace(edit, line=edit.line + offset, end_line=edit.end_line + offset,
                                column=edit.column - indent_at(edit.line),
                                end_column=edit.end_column - indent_at(edit.end_line))
            for edit in fix.edits))
    return dataclasses.replace(diagnostic, fix=fix, location=Location(
        location.path, location.line + offset, location.column - indent_at(location.line),
        location.end_line + offset, location.end_column - indent_at(location.end_line)))


# ------------------------------------------------------------------------------- the file itself


def file_position(notebook: Notebook, cell_number: int, line: int, column: int) -> Optional[tuple[int, int]]:
    """(line, column) in the notebook file of a cell position: where the character sits in the
    JSON text, so that a viewer of the file (a GitHub annotation) shows the right source line."""
    cell = notebook.cell_numbered(cell_number)
    if cell is None:
        return None
    lines = _lines(cell.source)
    if not 1 <= line <= len(lines) or not cell.strings:
        return None
    index = sum(len(text) for text in lines[: line - 1]) + column - 1  # in the source
    for position, (string_start, length) in enumerate(cell.strings):
        if index < length or position == len(cell.strings) - 1:
            break
        index -= length
    offset = _raw_offset(notebook.raw, string_start, index)
    file_line = notebook.raw.count("\n", 0, offset) + 1
    return file_line, offset - (notebook.raw.rfind("\n", 0, offset) + 1) + 1


def _raw_offset(raw: str, string_start: int, index: int) -> int:
    """Offset in `raw` of the `index`-th character of the JSON string whose quote is at `string_start`."""
    at = string_start + 1
    for _ in range(max(0, index)):
        if raw[at] == '"':
            break
        if raw[at] == "\\":
            if raw[at + 1] == "u":
                high = int(raw[at + 2 : at + 6], 16)
                at += 12 if 0xD800 <= high < 0xDC00 and raw.startswith("\\u", at + 6) else 6
            else:
                at += 2
        else:
            at += 1
    return at


def with_sources(notebook: Notebook, sources: dict[int, str]) -> str:
    """The file's text with these cells' (by number) sources replaced; every other byte kept."""
    ascii_only = _writes_ascii(notebook.raw)
    pieces, cursor = [], 0
    for cell in notebook.cells:
        if cell.number not in sources or sources[cell.number] == cell.source:
            continue
        start, end = cell.span
        pieces.append(notebook.raw[cursor:start])
        pieces.append(_source_value(notebook.raw, cell, sources[cell.number], ascii_only))
        cursor = end
    pieces.append(notebook.raw[cursor:])
    return "".join(pieces)


def _writes_ascii(raw: str) -> bool:
    """Whether the file escapes non-ASCII characters (`json.dumps(ensure_ascii=True)`)."""
    return raw.isascii() and re.search(r"\\u(?!00[0-7])[0-9a-fA-F]{4}", raw) is not None


def _source_value(raw: str, cell: CodeCell, source: str, ascii_only: bool) -> str:
    start, end = cell.span
    if raw[start] != "[":
        return json.dumps(source, ensure_ascii=ascii_only)
    lines = [json.dumps(line, ensure_ascii=ascii_only) for line in split_lines(source)]
    spans = cell.element_spans
    if not spans:  # it was empty: one element per line, Jupyter's layout
        return "[" + ", ".join(lines) + "]"
    lead = raw[start + 1 : spans[0][0]]
    trail = raw[spans[-1][1] : end - 1]
    separator = raw[spans[0][1] : spans[1][0]] if len(spans) > 1 else "," + (lead if "\n" in lead else " ")
    if not lines:
        return "[]"
    return "[" + lead + separator.join(lines) + trail + "]"


def cell_sources(notebook: Notebook) -> dict[int, str]:
    return {cell.number: cell.source for cell in notebook.cells}


# ------------------------------------------------------------------------------- fixing and diffs


def fix(raw: str, path: str, lint_module: Callable[[str], list[Diagnostic]], *, unsafe: bool) -> FixOutcome:
    """`fix.fix_source` for a notebook: the module is linted (cells that do not parse left empty, and
    never edited), the fixes land in the cells. A pass that makes another cell fail to parse is undone."""
    already_broken = {item.cell.number for item in broken_cells(read(raw))}

    def syntax_error(text: str) -> Optional[str]:
        try:
            document = read(text)
        except NotebookError as error:
            return str(error)
        broken = broken_cells(document)
        newly = [item for item in broken if item.cell.number not in already_broken]
        if newly:
            return f"cell {newly[0].cell.number} no longer parses: {newly[0].problem.message}"
        return module_syntax_error(blanked(document, broken))

    return fix_source(raw, path, lambda text: lint_module(lintable_module(read(text))), unsafe=unsafe,
                      apply=apply_fixes, syntax_error=syntax_error)


def apply_fixes(raw: str, diagnostics: Sequence[Diagnostic], unsafe: bool) -> tuple[str, int]:
    """Apply module-position fixes in the cells they fall in; fixes that cross a cell boundary or
    touch a neutralised line are left out. Returns the new file text and the fixes applied."""
    notebook = read(raw)
    by_cell: dict[int, list[Diagnostic]] = {}
    for diagnostic in to_cells(diagnostics, notebook):
        if diagnostic.fix is not None and diagnostic.location.cell is not None:
            by_cell.setdefault(diagnostic.location.cell, []).append(diagnostic)
    sources, applied = {}, 0
    for number, cell_diagnostics in by_cell.items():
        cell = notebook.cell_numbered(number)
        text = "".join(_lines(cell.source))  # an edit may reach the line break the module adds
        new_text, count = apply_edits(text, cell_diagnostics, unsafe=unsafe)
        if count:
            if not cell.source.endswith(("\n", "\r")) and new_text.endswith("\n"):
                new_text = new_text[:-1]
            sources[number] = new_text
            applied += count
    return (with_sources(notebook, sources) if applied else raw), applied


def unified_diff(path: str, original: str, fixed: str) -> str:
    """One `diff -u` per changed cell, headed `--- a/path:cell N` (as ruff shows notebook fixes)."""
    before, after = read(original), read(fixed)
    new_sources = cell_sources(after)
    out = []
    for cell in before.cells:
        new = new_sources.get(cell.number, cell.source)
        if new == cell.source:
            continue
        name = f"{path}:cell {cell.number}"
        for line in difflib.unified_diff(split_lines(cell.source), split_lines(new), f"a/{name}", f"b/{name}"):
            out.append(line if line.endswith(("\n", "\r")) else line + "\n")
    return "".join(out)


def add_noqa(raw: str, diagnostics: Sequence[Diagnostic]) -> tuple[str, int]:
    """`noqa.add_noqa` in each cell, for diagnostics in cell positions; the file's text and lines changed."""
    document = read(raw)
    by_cell: dict[int, list[Diagnostic]] = {}
    for diagnostic in diagnostics:
        if diagnostic.location.cell is not None:
            by_cell.setdefault(diagnostic.location.cell, []).append(diagnostic)
    sources, changed = {}, 0
    for number, cell_diagnostics in by_cell.items():
        cell = document.cell_numbered(number)
        if cell is None:
            continue
        text, count = noqa.add_noqa(cell.source, cell_diagnostics)
        if count:
            sources[number] = text
            changed += count
    return (with_sources(document, sources) if changed else raw), changed
