"""Why a text does not parse, as CPython's own parser says it, and what that means for the user.

libcst's errors point where it noticed the problem (often a few lines late, and for some inputs
at 1:1); CPython's parser points at the token, and knows what Python 2 code looks like. So
when libcst refuses a text, CPython is asked (`compile` to an AST only: the parse, nothing
run), and its line and column are the ones reported. Where the error is a well-known kind
(Python 2 syntax, `async` used as a name in pre-3.7 code, a notebook exercise left blank) the
message says what it is and what to do.

Only called after libcst has failed: a file that parses never pays for this.
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass
from typing import Optional

from torchcopylint.source_encoding import without_byte_order_mark


@dataclass(frozen=True)
class SyntaxProblem:
    """Where CPython's parser stops, what it says, and what that is in the user's terms."""

    line: int  # 1-based
    column: int  # 1-based, in characters
    message: str  # CPython's own words
    # What it is and what to do, when it is a known kind, with `{skipped}` where the consequence goes.
    explanation: Optional[str] = None

    def describe(self, subject: str = "file") -> str:
        """The TCL900 message: `subject` is "file" or "cell"."""
        skipped = f"this {subject} is skipped"
        if subject == "cell":
            skipped += ", the other cells are linted"
        if self.explanation is None:
            return f"{subject} does not parse: {self.message}; {skipped}"
        return f"{subject} does not parse: " + self.explanation.format(skipped=skipped)


def cpython_accepts(text: str) -> bool:
    return _compile(text) is None


def problem_in(text: str) -> Optional[SyntaxProblem]:
    """CPython's syntax error in `text`, described; None when CPython parses it."""
    error = _compile(text)
    text = without_byte_order_mark(text)
    if error is None:
        return None
    if isinstance(error, str) or "null bytes" in str(error.msg):  # null bytes, or nesting past the C stack
        return _null_byte(text) or SyntaxProblem(1, 1, str(error))
    lines = _LINE_BREAK.split(text) if error.lineno else []
    line = max(1, min(error.lineno or 1, max(1, len(lines))))
    source_line = lines[line - 1] if line <= len(lines) else ""
    column = max(1, min(error.offset or 1, len(source_line) + 1))
    message = str(error.msg or "invalid syntax")
    return SyntaxProblem(line, column, message, _explanation(message, source_line, column))


def _compile(text: str):
    """None, the SyntaxError, or a string saying why the parser could not run."""
    text = without_byte_order_mark(text)  # line 1's columns then count as libcst's do
    with warnings.catch_warnings():
        # `"\d"` and friends warn at parse time; under `-W error` a warning would be a SyntaxError.
        warnings.simplefilter("ignore")
        try:
            compile(text, "<torchcopylint>", "exec", ast.PyCF_ONLY_AST)
        except SyntaxError as error:
            return error
        except ValueError as error:  # null bytes, before Python 3.12
            return str(error)
        except (RecursionError, MemoryError):
            return "nested too deeply to parse"
    return None


def _null_byte(text: str) -> Optional[SyntaxProblem]:
    at = text.find("\0")
    if at < 0:
        return None
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    return SyntaxProblem(line, column, "source code cannot contain null bytes",
                         "a null byte (a binary or corrupted file, not Python source); {skipped}")


_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # where CPython breaks lines (not str.splitlines)

_PYTHON2 = "Python 2 syntax ({detail}): {{skipped}} (port it to Python 3, or exclude it)"
_KEYWORD = "`{word}` is a keyword since Python 3.7: this is pre-3.7 code ({advice}); {{skipped}}"
# Methods whose `async=` argument PyTorch renamed `non_blocking=` when `async` became a keyword.
_NON_BLOCKING_METHODS = re.compile(r"\.(cuda|to|type|copy_|pin_memory|_copy)\s*\([^()]*$")
_WORD_AT = re.compile(r"[A-Za-z_]\w*")
_WORD_BEFORE = re.compile(r"([A-Za-z_]\w*)\s*$")
_EXCEPT_COMMA = re.compile(r"^\s*except\s+[\w.]+\s*,\s*[A-Za-z_]\w*\s*:")
_RAISE_COMMA = re.compile(r"^\s*raise\s+[\w.]+(\([^()]*\))?\s*,")
_LONG_LITERAL = re.compile(r"(?<![\w.])(0[xX][0-9a-fA-F]+|0[oO]?[0-7]+|\d+)[lL]\b")
_BLANK_ASSIGNMENT = re.compile(r"^\s*[\w.\[\], ]+?\s*(?<![=!<>])=\s*(#.*)?$")
_IPYTHON_LINE = re.compile(r"^\s*(!|%{1,2}[A-Za-z])")
_PROSE = re.compile(r"^\s*[A-Za-z][A-Za-z']*(\s+[A-Za-z][\w'-]*[,;:.!?]?){2,}[.!?:]?\s*$")


def _explanation(message: str, line: str, column: int) -> Optional[str]:
    """What the error is and what to do, when it is a kind users meet; None otherwise."""
    at = column - 1
    if _IPYTHON_LINE.match(line):
        # Whatever CPython says of it (a `01` in a URL reads as an octal literal): the line is not Python.
        return ("an IPython shell or magic line (`!pip install ...`, `%matplotlib inline`), which only a notebook "
                "runs (a file exported from a notebook?); {skipped} (keep it a notebook, or remove the line)")
    python2 = None
    if message.startswith("Missing parentheses in call to 'print'"):
        python2 = "a `print` statement"
    elif message.startswith("Missing parentheses in call to 'exec'"):
        python2 = "an `exec` statement"
    elif message.startswith("multiple exception types must be parenthesized") and _EXCEPT_COMMA.match(line):
        python2 = "`except X, e`, which Python 3 writes `except X as e`"
    elif message.startswith("leading zeros in decimal integer literals"):
        python2 = "an octal literal such as `0777`, which Python 3 writes `0o777`"
    elif "parameters cannot be parenthesized" in message:
        python2 = "a tuple parameter such as `def f((a, b))`"
    elif message.startswith("invalid") and message.endswith("literal") and _LONG_LITERAL.search(line):
        python2 = "a long integer literal such as `10L`"
    if python2 is not None:
        return _PYTHON2.format(detail=python2)
    word = _word_at_or_before(line, at)
    if word in ("async", "await"):
        keyword_argument = re.match(rf"{word}\s*=(?!=)", line[at:]) is not None
        if word == "async" and keyword_argument and _NON_BLOCKING_METHODS.search(line[:at]):
            return _KEYWORD.format(word=word, advice="write `non_blocking=True`")
        return _KEYWORD.format(word=word, advice="rename it")
    if not message.startswith("invalid syntax"):
        return None
    if line[at:at + 1] == "`":
        python2 = "backticks, which Python 3 writes `repr(x)`"
    elif line[at:at + 2] == "<>" or line[max(0, at - 1):at + 1] == "<>":
        python2 = "`<>`, which Python 3 writes `!=`"
    elif re.search(r"(?<!\w)[uU][rR]$", line[:at]) and line[at:at + 1] in ("'", '"'):
        python2 = "a `ur\"...\"` string prefix"
    elif _RAISE_COMMA.match(line):
        python2 = "`raise E, \"message\"`, which Python 3 writes `raise E(\"message\")`"
    if python2 is not None:
        return _PYTHON2.format(detail=python2)
    if _BLANK_ASSIGNMENT.match(line):
        return "an assignment with nothing on its right (an exercise left to fill in?); {skipped}"
    if _PROSE.match(line) and not _looks_like_code(line):
        return "a line of prose, not code (text meant for a markdown cell, or a comment?); {skipped}"
    return None


def _word_at_or_before(line: str, at: int) -> Optional[str]:
    match = _WORD_AT.match(line, at)
    if match is not None and (at == 0 or not (line[at - 1].isalnum() or line[at - 1] == "_")):
        return match.group()
    before = _WORD_BEFORE.search(line[:at])
    return before.group(1) if before is not None else None


_KEYWORDS_STARTING_CODE = re.compile(r"^\s*(def|class|if|elif|else|for|while|with|try|except|finally|return|"
                                     r"import|from|raise|assert|del|global|nonlocal|lambda|yield|pass|break|"
                                     r"continue)\b")


def _looks_like_code(line: str) -> bool:
    return _KEYWORDS_STARTING_CODE.match(line) is not None or any(char in line for char in "()[]{}=")
