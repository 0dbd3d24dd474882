"""Just enough of Python's tokenizer to follow lines: strings, brackets, comments, continuations.

Two questions need it without a parse: does a line start a statement (a notebook's IPython
escapes can only come first in one), and may a comment end it (where `--add-noqa` can put
its `# noqa`: not inside a string, not after a backslash continuation).
"""

from __future__ import annotations

import re
from typing import Optional

# What changes the state; everything in between is skipped at C speed.
_INTERESTING = re.compile(r"[#\"'\\()\[\]{}]")


class LineScanner:
    """Fed one line at a time (without its line break), from a point where code starts."""

    def __init__(self) -> None:
        self.depth = 0
        self.open_quote: Optional[str] = None  # the quote of a string that goes on to the next line
        self.continued = False  # the last line ended with a backslash outside a string

    @property
    def at_statement_start(self) -> bool:
        return self.depth == 0 and self.open_quote is None and not self.continued

    @property
    def comment_may_end_line(self) -> bool:
        """Whether the line just fed could have ended with a comment."""
        return self.open_quote is None and not self.continued

    def code_of(self, body: str) -> str:
        """The line without its comment, the state left as it was."""
        return body[: self._scan(body)[3]]

    def leaves_open(self, body: str) -> bool:
        """Does the statement go on past the line (an open bracket or string, a backslash)? The state
        is left as it was."""
        depth, quote, continued, _ = self._scan(body)
        return depth > 0 or quote is not None or continued

    def feed(self, body: str) -> None:
        self.depth, self.open_quote, self.continued, _ = self._scan(body)

    def _scan(self, body: str) -> tuple[int, Optional[str], bool, int]:
        depth, quote, at, size = self.depth, self.open_quote, 0, len(body)
        while at < size:
            if quote is not None:
                close = _string_end(body, at, quote)
                if close < 0:
                    if len(quote) == 1 and not body.endswith("\\"):
                        quote = None  # an unterminated string: a syntax error, not ours to report
                    return depth, quote, False, size
                at, quote = close, None
                continue
            match = _INTERESTING.search(body, at)
            if match is None:
                break
            at, char = match.start(), match.group()
            if char == "#":
                return depth, None, False, at
            if char == "\\":
                if at == size - 1:
                    return depth, None, True, size
                at += 2
                continue
            if char in "\"'":
                quote = char * 3 if body.startswith(char * 3, at) else char
                at += len(quote)
                continue
            depth = depth + 1 if char in "([{" else max(0, depth - 1)
            at += 1
        return depth, quote, False, size


def _string_end(body: str, at: int, quote: str) -> int:
    """Offset just past the closing `quote` from `at`, or -1 when the string goes on."""
    while at < len(body):
        next_stop = min((i for i in (body.find("\\", at), body.find(quote, at)) if i >= 0), default=-1)
        if next_stop < 0:
            return -1
        if body[next_stop] == "\\":
            at = next_stop + 2
            continue
        return next_stop + len(quote)
    return -1
