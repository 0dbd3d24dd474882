"""How a Python file's bytes become text, and back: the encoding it declares (PEP 263), else UTF-8.

A file that starts `# -*- coding: gbk -*-` is valid Python in that encoding (Python reads it so),
and many course repositories are written that way; read as UTF-8 it would be skipped as broken.
A fix writes such a file back in its own encoding, read off the text's declaration, so a `--fix`
never changes the bytes of lines it did not touch.
"""

from __future__ import annotations

import io
import tokenize

UTF8 = "utf-8"
# What some editors (Windows Notepad) start a UTF-8 file with. Python skips it when it reads bytes, but
# refuses it in a str it compiles; libcst drops it and counts line 1's columns without it.
BYTE_ORDER_MARK = "\ufeff"


def without_byte_order_mark(text: str) -> str:
    """The text as Python and libcst read it: a leading byte order mark dropped."""
    return text[len(BYTE_ORDER_MARK):] if text.startswith(BYTE_ORDER_MARK) else text


def encoding_of(data: bytes) -> str:
    """The encoding Python reads these bytes with: the declared one, else UTF-8 (with or without a BOM,
    which decoding keeps as U+FEFF, where the linter expects it)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:  # an unknown or contradicting declaration: Python refuses the file; read as UTF-8
        return UTF8
    return UTF8 if encoding in ("utf-8", "utf-8-sig") else encoding


def decode(data: bytes) -> str:
    """The file's text (raises UnicodeDecodeError when its bytes are not valid in its encoding)."""
    return data.decode(encoding_of(data))


def declared_by(text: str) -> str:
    """The encoding to write a file's text back in: the one its first two lines declare, else UTF-8."""
    head = "".join(text.splitlines(keepends=True)[:2])
    return encoding_of(head.encode(UTF8, "surrogatepass"))
