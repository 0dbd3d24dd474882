"""IPython syntax in a notebook cell, neutralised line for line so that every other line keeps its place.

A line magic or shell escape (`%matplotlib inline`, `!pip install x`) becomes `pass` at its
indentation, `x = !ls` becomes `x = None`, a help request (`obj?`, `??obj`) becomes `pass`;
an explicit auto-call becomes the call IPython runs (`/f x y` is `f(x, y)`, `,f a b` is
`f("a", "b")`, `;f a b` is `f("a b")`: the names it uses are then seen, and a line IPython
could not run either stays a syntax error of its cell);
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
# IPython's help at the end of a line: a name, dotted, maybe indexed, then `?` or `??` (its
# inputtransformer2's pattern). `batch_size = ?` or `f(x)?` are not help: IPython leaves them to
# Python, which refuses them.
_HELP_END = re.compile(r"%{0,2}(?!\d)[\w*]+(?:\.[\w*]+)*(?:\[[^\]]+\])?\?\??$")
_ASSIGNED_ESCAPE = re.compile(r"^(\s*[\w.\[\](), *]+?\s*(?<![=!<>])=\s*)[!%]")


# IPython's classic prompts (its inputtransformer2's `classic_prompt`): a cell whose first line starts with
# `>>>` has the `>>> ` and `... ` prompts of its lines stripped.
_CONSOLE_PROMPT_FIRST = re.compile(r">>>( |$)")
_CONSOLE_PROMPT = re.compile(r"^(>>>|\.\.\.)( |$)", re.MULTILINE)

# IPython's explicit auto-call escapes (its inputtransformer2): none can start a Python statement.
_AUTO_CALLS = "/,;"


def _auto_call(escape: str, content: str) -> str:
    """What IPython runs for `/f a b` (f(a, b)), `,f a b` (f("a", "b")) and `;f a b` (f("a b"))."""
    name, _, arguments = content.partition(" ")
    if escape == "/":
        return f"{name}({', '.join(arguments.split())})"
    if escape == ",":
        return name + "(" + ", ".join(f'"{argument}"' for argument in arguments.split()) + ")"
    return f'{name}("{arguments}")'


def neutralised_lines(lines: list[str]) -> list[str]:
    """A cell's lines (each ending with a line break), IPython syntax replaced by Python."""
    if not lines:
        return lines
    if _CONSOLE_PROMPT_FIRST.match(next((line for line in lines if line.strip()), "")):
        # A cell pasted from a console (`>>> x = torch.ones(3)`, `...     return x`): IPython strips the
        # prompts (its `classic_prompt`); blanked to their width, the cell's common indentation is then stripped
        # as IPython strips it, and every column stays where it was written.
        lines = [_CONSOLE_PROMPT.sub(lambda found: " " * len(found.group(0)), line, count=1) for line in lines]
    first = lines[0].lstrip()
    if first.startswith("%%"):
        name = first[2:].split(None, 1)[0] if first[2:].strip() else ""
        if name not in PYTHON_CELL_MAGICS:
            return [_ending(line) for line in lines]
        # The body is a cell of its own, which IPython runs as one (leading blank lines dropped):
        # `%%capture` over a `%%bash` cell is shell code too.
        body = lines[1:]
        blank = next((index for index, line in enumerate(body) if line.strip()), len(body))
        return ["pass" + _ending(lines[0]), *body[:blank], *neutralised_lines(body[blank:])]
    result: list[str] = []
    scanner = LineScanner()
    continued_escape = False
    for index in range(len(lines)):
        line = lines[index]
        body, ending = line[: len(line) - len(_ending(line))], _ending(line)
        if continued_escape:  # the rest of a `!cmd \` or `%magic \` line
            result.append(ending)
            continued_escape = body.endswith("\\")
            continue
        if scanner.at_statement_start:
            replacement = _escape_replacement(_joined(lines, index) if body.endswith("\\") else body, scanner)
            if replacement is not None:
                result.append(replacement + ending)
                continued_escape = body.endswith("\\")
                continue
        scanner.feed(body)
        result.append(line)
    return result


def _joined(lines: list[str], index: int) -> str:
    """A line ending with a backslash and the lines it continues, as IPython joins them for an escape."""
    parts = []
    for line in lines[index:]:
        body = line.rstrip("\r\n")
        if not body.endswith("\\"):
            parts.append(body.rstrip())
            break
        parts.append(body.rstrip()[:-1])
    return " ".join(parts)


def _ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")):]


def _escape_replacement(body: str, scanner: LineScanner) -> Optional[str]:
    stripped = body.lstrip()
    indent = body[: len(body) - len(stripped)]
    if not stripped or stripped.startswith("#"):
        return None
    if stripped[0] in "%!?" and not stripped.startswith("!="):
        return indent + "pass"
    if stripped[0] in _AUTO_CALLS and not stripped.startswith("//"):
        return indent + _auto_call(stripped[0], stripped[1:].rstrip())
    assigned = _ASSIGNED_ESCAPE.match(body)
    if assigned is not None:
        return assigned.group(1) + "None"
    code = scanner.code_of(body)
    # `obj?`, `x.y??`, `a = b?`: help, not Python; a `?` inside a string the line opens is text.
    # `cd ..`: an automagic.
    if scanner.leaves_open(body):
        return None
    if _HELP_END.search(code.rstrip()) or _is_automagic(stripped):
        return indent + "pass"
    return None


# Line magics IPython runs without their `%` (automagic, on by default) that code cells use as
# shell commands: `cd ..`, `pip install timm`. Only where the line is not Python: `ls = []` and
# `pwd` alone are names.
_AUTOMAGICS = frozenset({"cd", "ls", "pwd", "pip", "conda", "cat", "mkdir", "rm", "rmdir", "mv", "cp",
                         "env", "set_env", "load_ext", "matplotlib", "time", "timeit", "run", "history",
                         "who", "whos", "reset", "autoreload", "config", "bookmark", "dhist", "pushd", "popd"})


def _is_automagic(stripped: str) -> bool:
    word = stripped.split(None, 1)[0]
    if word not in _AUTOMAGICS or stripped == word:
        return False
    try:
        compile(stripped, "<cell line>", "exec")
    except SyntaxError:
        return True
    return False
