"""GitHub Actions workflow commands: one `::error` / `::warning` annotation per diagnostic.

    ::error file=src/a.py,line=3,col=5,endLine=3,endColumn=9,title=TCL005 clone-detach-order::message

Escaping follows @actions/core (toolkit/packages/core/src/command.ts): GitHub decodes the
message and each property value, so a `%`, line break, `:` or `,` in them must not end
or split the command.
"""

from __future__ import annotations

from typing import Sequence, TextIO

from torchcopylint.diagnostic import Diagnostic, Severity
from torchcopylint.report.common import ReportOptions, relative_path, verdict_label


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(diagnostic: Diagnostic, options: ReportOptions) -> str:
    command = "warning" if diagnostic.severity is Severity.WARNING else "error"
    region = options.file_region(diagnostic.location)
    properties = {
        "file": relative_path(diagnostic.path, options.root),
        "line": region.line,
        "col": region.column,
        "endLine": region.end_line,
        "endColumn": region.end_column,
        "title": f"{diagnostic.code} {diagnostic.name}",
    }
    rendered = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items())
    message = diagnostic.message
    if diagnostic.verdict is not None:
        message += f" [{verdict_label(diagnostic.verdict)}]"
    return f"::{command} {rendered}::{escape_data(message)}"


def render(diagnostics: Sequence[Diagnostic], stream: TextIO, options: ReportOptions) -> None:
    for diagnostic in diagnostics:
        stream.write(annotation(diagnostic, options) + "\n")
