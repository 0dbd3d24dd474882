"""Lint files: read, prefilter, parse once, build facts once, run every selected rule, apply noqa."""

from __future__ import annotations

import os
import stat
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional, Sequence, Union

import libcst as cst

from torchcopylint import noqa
from torchcopylint.analysis.facts import ModuleFacts
from torchcopylint.config import Settings
from torchcopylint.diagnostic import Diagnostic, Edit, Fix, Location, Severity
from torchcopylint.discovery import discover
from torchcopylint.rules import ALL_RULES, Finding, Rule

FILE_ERROR_CODE = "TCL900"
FILE_ERROR_NAME = "file-error"
# Past this size a file is reported and skipped: generated code, not something to lint.
MAX_FILE_BYTES = 10 * 1024 * 1024


class InternalError(Exception):
    """A rule or the analysis failed on a file: a bug in torchcopylint, reported with exit 2."""


@dataclass
class LintRun:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files_checked: int = 0
    missing_paths: list[str] = field(default_factory=list)
    internal_errors: list[str] = field(default_factory=list)
    # path -> source text, for files that have diagnostics (the fixer needs it)
    sources: dict[str, str] = field(default_factory=dict)


def select_rules(settings: Optional[Settings] = None, path: Optional[str] = None) -> list[Rule]:
    if settings is None:
        return list(ALL_RULES)
    codes = set(settings.selected_codes([rule.code for rule in ALL_RULES]))
    if path is not None:
        codes -= _per_file_ignored(path, settings)
    return [rule for rule in ALL_RULES if rule.code in codes]


def _per_file_ignored(path: str, settings: Settings) -> set[str]:
    import fnmatch

    try:
        relative = Path(path).resolve().relative_to(settings.root).as_posix()
    except (ValueError, OSError, RuntimeError):
        relative = Path(path).as_posix()
    ignored: set[str] = set()
    for glob, codes in settings.per_file_ignores.items():
        if fnmatch.fnmatch(relative, glob) or fnmatch.fnmatch(Path(relative).name, glob):
            ignored |= {code.upper() for code in codes}
    all_codes = [rule.code for rule in ALL_RULES]
    return {code for code in all_codes if any(code.startswith(prefix) for prefix in ignored)}


def file_error(path: str, message: str, line: int = 1, column: int = 1) -> Diagnostic:
    return Diagnostic(
        FILE_ERROR_CODE, FILE_ERROR_NAME, message, Location(path, line, column, line, column + 1), Severity.ERROR
    )


def could_match(source: bytes, rules: Sequence[Rule]) -> bool:
    """The prefilter: can any rule fire at all in this file? A plain byte scan, no parse."""
    return any(trigger in source for rule in rules for trigger in rule.triggers)


def lint_source(source: Union[str, bytes], path: str = "<string>", rules: Optional[Sequence[Rule]] = None) -> list[Diagnostic]:
    """Lint one module's text; the core every entry point shares."""
    rules = list(ALL_RULES) if rules is None else list(rules)
    if isinstance(source, bytes):
        try:
            text = source.decode("utf-8")
        except UnicodeDecodeError as error:
            return [file_error(path, f"file is not valid UTF-8 ({error.reason} at byte {error.start}); skipped")]
    else:
        text = source
    if noqa.file_is_exempt(text) or not rules:
        return []
    if not could_match(text.encode("utf-8", "surrogatepass"), rules):
        return []
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        message = str(error).splitlines()[0] if str(error) else "syntax error"
        return [file_error(path, f"file does not parse: {message}", error.raw_line, error.raw_column + 1)]
    except (RecursionError, ValueError) as error:
        return [file_error(path, f"file does not parse: {type(error).__name__}: {error}")]
    facts = ModuleFacts(module, path)
    try:
        findings = [finding for rule in rules for finding in rule.check(facts)]
        diagnostics = [_to_diagnostic(finding, facts, path) for finding in findings]
    except RecursionError:
        return [file_error(path, "file is nested too deeply to analyse; skipped")]
    except Exception as error:  # a bug of ours: keep the run going, report it
        raise InternalError(f"{path}: {type(error).__name__}: {error}\n{traceback.format_exc()}") from error
    lines = text.splitlines()
    kept = [d for d in diagnostics if not _suppressed(d, lines)]
    return sorted(_unique(kept), key=Diagnostic.sort_key)


def _unique(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    seen = set()
    result = []
    for diagnostic in diagnostics:
        key = (diagnostic.code, diagnostic.location, diagnostic.message)
        if key not in seen:
            seen.add(key)
            result.append(diagnostic)
    return result


def _suppressed(diagnostic: Diagnostic, lines: list[str]) -> bool:
    index = diagnostic.location.line - 1
    return 0 <= index < len(lines) and noqa.is_suppressed(diagnostic.code, lines[index])


def _to_diagnostic(finding: Finding, facts: ModuleFacts, path: str) -> Diagnostic:
    position = facts.position(finding.node)
    location = Location(path, position.start.line, position.start.column + 1,
                        position.end.line, position.end.column + 1)
    fix = None
    if finding.fix is not None:
        edits = []
        for old, new in finding.fix.replacements:
            old_position = facts.position(old)
            content = new if isinstance(new, str) else facts.module.code_for_node(new)
            edits.append(Edit(old_position.start.line, old_position.start.column + 1,
                              old_position.end.line, old_position.end.column + 1, content))
        fix = Fix(finding.fix.applicability, finding.fix.description, tuple(edits))
    return Diagnostic(finding.code, finding.name, finding.message, location, finding.severity, fix,
                      context=dict(finding.context))


def read_source(path: Path) -> Union[bytes, Diagnostic]:
    """The file's bytes, or the TCL900 diagnostic saying why they cannot be had."""
    shown = str(path)
    try:
        status = os.stat(path)
    except FileNotFoundError:
        return file_error(shown, "file not found (a broken symbolic link?); skipped")
    except OSError as error:
        return file_error(shown, f"cannot read file: {error.strerror}; skipped")
    if stat.S_ISDIR(status.st_mode):
        return file_error(shown, "is a directory, not a file; skipped")
    if not stat.S_ISREG(status.st_mode):
        # A FIFO, socket or device: reading it could block forever.
        return file_error(shown, "not a regular file; skipped")
    size = status.st_size
    if size > MAX_FILE_BYTES:
        return file_error(shown, f"file is too large ({_size(size)}, limit {_size(MAX_FILE_BYTES)}); skipped")
    try:
        return path.read_bytes()
    except IsADirectoryError:
        return file_error(shown, "is a directory, not a file; skipped")
    except OSError as error:
        return file_error(shown, f"cannot read file: {error.strerror}; skipped")


def _size(count: int) -> str:
    return f"{count / (1024 * 1024):.1f} MiB" if count >= 1024 * 1024 else f"{count} bytes"


def lint_file(path: Path, settings: Optional[Settings] = None) -> tuple[list[Diagnostic], Optional[str]]:
    """(diagnostics, the decoded text when there are any)."""
    source = read_source(path)
    if isinstance(source, Diagnostic):
        return [source], None
    rules = select_rules(settings, str(path))
    diagnostics = lint_source(source, str(path), rules)
    if diagnostics and diagnostics[0].code != FILE_ERROR_CODE:
        return diagnostics, source.decode("utf-8")
    return diagnostics, None


def lint_paths(paths: Sequence[str], settings: Settings, force_exclude: bool = False) -> LintRun:
    run = LintRun()
    found = discover(paths, settings, force_exclude=force_exclude)
    run.missing_paths = found.missing
    for problem_path, reason in found.problems:
        run.diagnostics.append(file_error(str(problem_path), f"{reason}; skipped"))
    for path in found.files:
        run.files_checked += 1
        try:
            diagnostics, text = lint_file(path, settings)
        except InternalError as error:
            run.internal_errors.append(str(error))
            continue
        run.diagnostics.extend(diagnostics)
        if text is not None:
            run.sources[str(path)] = text
    run.diagnostics.sort(key=Diagnostic.sort_key)
    return run
