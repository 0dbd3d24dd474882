"""The human format, modelled on ruff's concise output.

    path:line:col: CODE [*] message  [verdict: evidence]
    Found 3 errors.
    [*] 1 fixable with the `--fix` option (1 hidden fix can be enabled with the `--unsafe-fixes` option).
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence, TextIO

import click

from torchcopylint.diagnostic import Diagnostic
from torchcopylint.report.common import ReportOptions, relative_path, verdict_label, verdict_summary

FIX_MARKER = "[*]"

# How sure the run-time check is, in the colour a reader would expect for it.
# `not reached` (the code ran, but not the flagged line) is told apart from `unverified` (it could not run).
_VERDICT_COLORS = {"confirmed": "red", "refuted": "green", "not reached": "magenta"}


def render(diagnostics: Sequence[Diagnostic], stream: TextIO, options: ReportOptions) -> None:
    style = _Styler(options.color)
    if options.statistics:
        lines = statistics_lines(diagnostics, options, style)
    else:
        lines = []
        for diagnostic in diagnostics:
            lines.append(diagnostic_line(diagnostic, options, style))
            if options.show_fixes and diagnostic.fix is not None:
                lines.append(fix_line(diagnostic, style))
        if not options.quiet:
            lines.extend(summary_lines(diagnostics, options, style))
    for line in lines:
        stream.write(line + "\n")


class _Styler:
    """click.style when colour is on, the identity otherwise (so tests and pipes see plain text)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, **styles: object) -> str:
        return click.style(text, **styles) if self.enabled else text  # type: ignore[arg-type]


def diagnostic_line(diagnostic: Diagnostic, options: ReportOptions, style: _Styler) -> str:
    location = diagnostic.location
    colon = style(":", fg="cyan")
    path = style(relative_path(location.path, options.root), bold=True)
    code = style(diagnostic.code, fg="red", bold=True)
    marker = " " + style(FIX_MARKER, fg="cyan") if options.fix_is_applied_by_fix(diagnostic) else ""
    cell = f"cell {location.cell}{colon}" if location.cell is not None else ""  # ruff's notebook form
    line = f"{path}{colon}{cell}{location.line}{colon}{location.column}{colon} {code}{marker} {diagnostic.message}"
    if diagnostic.verdict is not None:
        color = _VERDICT_COLORS.get(diagnostic.verdict.status, "yellow")
        line += "  " + style(f"[{verdict_label(diagnostic.verdict)}]", fg=color)
    return line


def fix_line(diagnostic: Diagnostic, style: _Styler) -> str:
    assert diagnostic.fix is not None
    kind = diagnostic.fix.applicability.value
    return "    " + style(f"help: {diagnostic.fix.description} ({kind} fix)", fg="cyan")


def _plural(count: int, word: str, plural: str = "") -> str:
    return f"{count} {word if count == 1 else plural or word + 's'}"


def summary_lines(diagnostics: Sequence[Diagnostic], options: ReportOptions, style: _Styler) -> list[str]:
    remaining = len(diagnostics)
    if remaining == 0 and options.fixed == 0:
        return [style("All checks passed!", fg="green", bold=True)]
    # After --verify, what it found: `Found 5 errors (3 confirmed, 1 refuted, 1 unverified).`
    verified = verdict_summary(diagnostics)
    if options.fixed:
        total = options.fixed + remaining
        found = f"Found {_plural(total, 'error')} ({options.fixed} fixed, {remaining} remaining" \
                f"{'; ' + verified if verified else ''})."
    else:
        found = f"Found {_plural(remaining, 'error')}{f' ({verified})' if verified else ''}."
    lines = [found]
    fixable = sum(options.fix_is_applied_by_fix(d) for d in diagnostics)
    hidden = sum(options.fix_is_hidden(d) for d in diagnostics)
    hidden_fixes = _plural(hidden, "hidden fix", "hidden fixes")
    hidden_note = f"({hidden_fixes} can be enabled with the `--unsafe-fixes` option)"
    if fixable:
        fix_hint = f"{style(FIX_MARKER, fg='cyan')} {fixable} fixable with the `--fix` option"
        lines.append(f"{fix_hint} {hidden_note}." if hidden else f"{fix_hint}.")
    elif hidden:
        lines.append(f"No fixes available {hidden_note}.")
    return lines


def statistics_lines(diagnostics: Sequence[Diagnostic], options: ReportOptions, style: _Styler) -> list[str]:
    """One row per code, most frequent first: count, code, fix marker, name (as `ruff --statistics`);
    after --verify, a last column with the verdicts of that code's findings."""
    if not diagnostics:
        return summary_lines(diagnostics, options, style)
    counts = Counter(d.code for d in diagnostics)
    names = {d.code: d.name for d in diagnostics}
    fixable_codes = {d.code for d in diagnostics if options.fix_is_applied_by_fix(d)}
    verified = any(d.verdict is not None for d in diagnostics)
    count_width = max(len(str(n)) for n in counts.values())
    code_width = max(len(code) for code in counts)
    rows = []
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        # The marker column exists only when something is fixable, as in ruff.
        marker = (FIX_MARKER + " " if code in fixable_codes else "[ ] ") if fixable_codes else ""
        padded_code = style(code.ljust(code_width), fg="red", bold=True)
        row = f"{str(count).rjust(count_width)}\t{padded_code}\t{marker}{names[code]}"
        if verified:
            row += "\t" + (verdict_summary([d for d in diagnostics if d.code == code]) or "no verdict")
        rows.append(row)
    if fixable_codes:
        rows.append(f"{FIX_MARKER} fixable with `torchcopylint --fix`")
    return rows
