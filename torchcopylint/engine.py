"""Lint files: read, prefilter, parse once, build facts once, run every selected rule, apply noqa."""

from __future__ import annotations

import ast
import gc
import os
import re
import stat
import sys
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import Iterable, Iterator, Optional, Sequence, Union

import libcst as cst

from torchcopylint import normalise, notebook, noqa, parallel, source_encoding, syntax_errors
from torchcopylint.analysis.facts import ModuleFacts
from torchcopylint.cache import Cache, config_key, content_digest, default_cache_dir, with_path
from torchcopylint.config import Settings
from torchcopylint.diagnostic import Diagnostic, Edit, Fix, Location, Severity
from torchcopylint.discovery import discover
from torchcopylint.fix import split_lines
from torchcopylint.parsing import parse_for_analysis
from torchcopylint.rules import ALL_RULES, Finding, Rule

FILE_ERROR_CODE = "TCL900"
FILE_ERROR_NAME = "file-error"
# Past this size a file is reported and skipped: generated code, not something to lint.
MAX_FILE_BYTES = 10 * 1024 * 1024
# A notebook's outputs (plots, images) make it large; the limit above applies to its code.
MAX_NOTEBOOK_BYTES = 200 * 1024 * 1024


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
    # Every file linted, as shown (--verify looks in them for the callers of a flagged file's functions).
    files: list[str] = field(default_factory=list)
    # Of files_checked: answered from the cache; not parsed because the prefilter ruled every rule out.
    files_cached: int = 0
    files_skipped: int = 0


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


def _has_findings(diagnostics: Sequence[Diagnostic]) -> bool:
    """Whether any diagnostic is a rule's finding (the fixer then needs the text): a notebook can
    have them next to a TCL900 for a cell that does not parse."""
    return any(diagnostic.code != FILE_ERROR_CODE for diagnostic in diagnostics)


def file_error(path: str, message: str, line: int = 1, column: int = 1) -> Diagnostic:
    return Diagnostic(
        FILE_ERROR_CODE, FILE_ERROR_NAME, message, Location(path, line, column, line, column + 1), Severity.ERROR
    )


def could_match(source: bytes, rules: Sequence[Rule]) -> bool:
    """The prefilter: can any rule fire at all in this file? A plain byte scan, no parse.

    A trigger of several tokens matches token-wise: the source may have whitespace, a line
    continuation or a comment between them (b"step(" matches `opt.step ()`, b"] =" matches
    `x[0]=v` and `x[0]  = v`). The exact bytes are looked for first; only a file without
    them is searched again with its blanks squeezed out (linear time, whatever the input).
    A rule that declares no triggers cannot be ruled out: it always matches.
    """
    triggers = tuple(trigger for rule in rules for trigger in rule.triggers)
    if any(not rule.triggers for rule in rules) or any(trigger in source for trigger in triggers):
        return True
    squeezed_triggers = _squeezed_triggers(triggers)
    if not squeezed_triggers:
        return False
    # Blanks and continuations out; then comments too (a `#` in a string would hide the rest of
    # its line from the second search, but not from the first).
    squeezed = _BLANKS.sub(b"", source)
    if any(trigger in squeezed for trigger in squeezed_triggers):
        return True
    squeezed = _BLANKS.sub(b"", _COMMENT.sub(b"", source))
    return any(trigger in squeezed for trigger in squeezed_triggers)


_BLANKS = re.compile(rb"[\s\\]+")
_COMMENT = re.compile(rb"#[^\n]*")
_SQUEEZED: dict[tuple[bytes, ...], tuple[bytes, ...]] = {}


def _squeezed_triggers(triggers: tuple[bytes, ...]) -> tuple[bytes, ...]:
    """The triggers of more than one token, without their spaces."""
    if triggers not in _SQUEEZED:
        _SQUEEZED[triggers] = tuple(dict.fromkeys(
            _BLANKS.sub(b"", trigger) for trigger in triggers if len(re.findall(rb"\w+|[^\w\s]+", trigger)) > 1))
    return _SQUEEZED[triggers]


def lint_source(source: Union[str, bytes], path: str = "<string>", rules: Optional[Sequence[Rule]] = None,
                prefilter: bool = True, *, cells: Optional[notebook.Notebook] = None) -> list[Diagnostic]:
    """Lint one module's text; the core every entry point shares. `prefilter=False` parses every file.
    `cells`: the notebook whose code cells the text is (its cells that do not parse are reported
    one by one and the others linted)."""
    rules = list(ALL_RULES) if rules is None else list(rules)
    if isinstance(source, bytes):
        try:
            text = source_encoding.decode(source)
        except UnicodeDecodeError as error:
            return [file_error(path, f"file is not valid {_encoding_name(error.encoding)} ({error.reason} at byte "
                                     f"{error.start}); skipped")]
    else:
        text = source
    if noqa.file_is_exempt(text) or not rules:
        return []
    if prefilter and not could_match(source if isinstance(source, bytes) else text.encode("utf-8", "surrogatepass"),
                                     rules):
        return []
    too_deep = _nested_too_deeply(text)
    if too_deep is not None:
        return [file_error(path, f"file does not parse: {too_deep}; skipped")]
    with _cyclic_collector_paused():
        return _lint_text(text, path, rules, cells)


def lint_document(source: Union[str, bytes], path: str, rules: Optional[Sequence[Rule]] = None,
                  prefilter: bool = True) -> list[Diagnostic]:
    """Lint a file's content: a module, or a notebook (by its suffix) whose code cells make one."""
    if not notebook.is_notebook(path):
        return lint_source(source, path, rules, prefilter)
    try:
        text = source.decode("utf-8") if isinstance(source, bytes) else source
        document = notebook.read(text)
    except UnicodeDecodeError as error:
        return [file_error(path, f"file is not valid UTF-8 ({error.reason} at byte {error.start}); skipped")]
    except notebook.NotebookError as error:
        return [file_error(path, f"notebook cannot be read: {error}; skipped")]
    if not document.cells:
        return []
    if len(document.module) > MAX_FILE_BYTES:
        return [file_error(path, f"the notebook's code is too large ({_size(len(document.module))}, "
                                 f"limit {_size(MAX_FILE_BYTES)}); skipped")]
    return notebook.to_cells(lint_source(document.module, path, rules, prefilter, cells=document), document)


@contextmanager
def _cyclic_collector_paused() -> Iterator[None]:
    """Python's cycle collector off while one module is parsed and analysed.

    A parsed module is hundreds of thousands of objects that live until the file is done, and
    they hold no cycles (libcst's nodes point only to their children); with the collector on,
    each collection that the analysis's allocations set off walks all of them again, which
    cost a fifth of the whole run on timm. What cycles the analysis makes are collected after
    the file, once the collector is back on.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _lint_text(text: str, path: str, rules: list[Rule], cells: Optional[notebook.Notebook] = None) \
        -> list[Diagnostic]:
    try:
        module = parse_for_analysis(text)
    except cst.ParserSyntaxError as error:
        broken = notebook.broken_cells(cells) if cells is not None else []
        if broken:
            return _lint_around_cells(cells, broken, path, rules)
        return _lint_unparsed(text, path, rules, error)
    except (RecursionError, ValueError) as error:
        return [file_error(path, f"file does not parse: {type(error).__name__}: {error}")]
    return _lint_module(module, text, path, rules)


def _lint_module(module: cst.Module, text: str, path: str, rules: list[Rule]) -> list[Diagnostic]:
    facts = ModuleFacts(module, path, text)
    if facts.names.another_frameworks_code:
        facts.release()
        return []  # MXNet's `loss.backward()` and `.asscalar()` are no business of torch's rules
    try:
        findings = [finding for rule in rules for finding in rule.check(facts)]
        diagnostics = [_to_diagnostic(finding, facts, path) for finding in findings]
    except RecursionError:
        return [file_error(path, "file is nested too deeply to analyse; skipped")]
    except Exception as error:  # a bug of ours: keep the run going, report it
        raise InternalError(f"{path}: {type(error).__name__}: {error}\n{traceback.format_exc()}") from error
    finally:
        facts.release()
    if not diagnostics:
        return []
    lines = split_lines(text)
    kept = [d for d in diagnostics if not _suppressed(d, lines)]
    return sorted(_unique(kept), key=Diagnostic.sort_key)


def _lint_around_cells(document: notebook.Notebook, broken: list[notebook.BrokenCell], path: str,
                       rules: list[Rule]) -> list[Diagnostic]:
    """A notebook with cells that do not parse: one TCL900 at each (module positions, CPython's line
    and column), and the other cells linted as one module. What the broken cells would define is
    unknown to the analysis, like any name it cannot see."""
    errors = [file_error(path, item.problem.describe("cell"), item.problem.line, item.problem.column)
              for item in broken]
    return sorted([*errors, *_lint_text(notebook.blanked(document, broken), path, rules)], key=Diagnostic.sort_key)


def _lint_unparsed(text: str, path: str, rules: list[Rule], error: cst.ParserSyntaxError) -> list[Diagnostic]:
    """libcst refused the text (only now is anything more paid). CPython says where and what the
    error is; or CPython accepts the text, and a normalised text is linted, positions mapped back."""
    problem = syntax_errors.problem_in(text)
    if problem is not None:
        return [file_error(path, problem.describe("file"), problem.line, problem.column)]
    normalised = normalise.normalise(text)
    if normalised is not None:
        try:
            module = parse_for_analysis(normalised.text)
        except (cst.ParserSyntaxError, RecursionError, ValueError):
            pass
        else:
            return sorted((normalise.to_original(diagnostic, normalised)
                           for diagnostic in _lint_module(module, normalised.text, path, rules)),
                          key=Diagnostic.sort_key)
    message = str(error).splitlines()[0] if str(error) else "syntax error"
    return [file_error(path, f"file does not parse with libcst, though CPython compiles it ({message}); "
                             "this file is skipped", error.raw_line, error.raw_column + 1)]


# CPython refuses brackets nested deeper than this ("too many nested parentheses"); libcst's
# native parser overflows its stack (a segfault that would end the whole run) at about 1,200.
MAX_BRACKET_DEPTH = 200
_BRACKET_STEPS = [0] * 256
for _open, _close in (b"()", b"[]", b"{}"):
    _BRACKET_STEPS[_open], _BRACKET_STEPS[_close] = 1, -1
_NOT_BRACKETS = bytes(byte for byte in range(256) if not _BRACKET_STEPS[byte])


def _nested_too_deeply(text: str) -> Optional[str]:
    """Why the text must not reach libcst, or None; cheap unless brackets nest past the limit.

    The byte count also sees brackets in strings and comments, so only a text it flags is
    parsed again by CPython's own parser, which knows and reports (never crashes on) the limit.
    """
    brackets = text.encode("utf-8", "surrogatepass").translate(None, _NOT_BRACKETS)
    if len(brackets) <= MAX_BRACKET_DEPTH or max(accumulate(map(_BRACKET_STEPS.__getitem__, brackets))) \
            <= MAX_BRACKET_DEPTH:
        return None
    try:
        compile(text, "<torchcopylint>", "exec", ast.PyCF_ONLY_AST)
    except SyntaxError as error:
        if "nested" in str(error.msg):
            return f"{error.msg} (line {error.lineno})"
    except (RecursionError, MemoryError):
        return "nested too deeply"
    except ValueError:  # null bytes: libcst reports those itself
        pass
    return None


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
    location = diagnostic.location
    return noqa.is_suppressed_at(diagnostic.code, lines, location.line, location.column)


def _to_diagnostic(finding: Finding, facts: ModuleFacts, path: str) -> Diagnostic:
    position = facts.position(finding.node)
    location = Location(path, position.start.line, position.start.column + 1,
                        position.end.line, position.end.column + 1)
    fix = None
    if finding.fix is not None:
        edits = []
        for old, new in finding.fix.replacements:
            old_position = facts.position(old)
            content = new if isinstance(new, str) else facts.module.code_for_node(_without_kept_parentheses(old, new))
            edits.append(Edit(old_position.start.line, old_position.start.column + 1,
                              old_position.end.line, old_position.end.column + 1, content))
        fix = Fix(finding.fix.applicability, finding.fix.description, tuple(edits))
    return Diagnostic(finding.code, finding.name, finding.message, location, finding.severity, fix,
                      context=dict(finding.context))


def _without_kept_parentheses(old: cst.CSTNode, new: cst.CSTNode) -> cst.CSTNode:
    """A node's position leaves out its own parentheses, so they stay in the text when it is
    replaced: as many of the new node's are dropped (`(step, loss)` made `(step, loss.detach())`
    would read `((step, loss.detach()))`)."""
    kept = min(len(getattr(old, "lpar", ())), len(getattr(new, "lpar", ())))
    if not kept:
        return new
    return new.with_changes(lpar=new.lpar[kept:], rpar=new.rpar[:len(new.rpar) - kept])


def _encoding_name(encoding: str) -> str:
    return "UTF-8" if encoding == source_encoding.UTF8 else encoding


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
    limit = MAX_NOTEBOOK_BYTES if notebook.is_notebook(shown) else MAX_FILE_BYTES
    if size > limit:
        return file_error(shown, f"file is too large ({_size(size)}, limit {_size(limit)}); skipped")
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
    diagnostics = lint_document(source, str(path), rules)
    if _has_findings(diagnostics):
        return diagnostics, source_encoding.decode(source)
    return diagnostics, None


# ---------------------------------------------------------------- the run loop over many files

_RULES_BY_CODE = {rule.code: rule for rule in ALL_RULES}
# Below this much work a pool costs more than it saves: lint in this process.
POOL_MIN_FILES = 2
POOL_MIN_BYTES = 32 * 1024
# A progress bar (stderr, a terminal only) when this many files are to be linted, or this many bytes.
PROGRESS_MIN_FILES = 200
PROGRESS_MIN_BYTES = 1024 * 1024


def lint_task(path: str, codes: Sequence[str], prefilter: bool = True) -> dict:
    """Lint one file for `lint_paths`; plain data in and out, as it runs in worker processes.

    The result: path; digest, size, mtime and read_at (None digest: not to be cached);
    diagnostics (Diagnostic.to_dict()); text (when there are diagnostics other than a file
    error: the fixer needs it); error (an internal error's report); skipped (the prefilter
    ruled every rule out, nothing was parsed).
    """
    result: dict = {"path": path, "digest": None, "size": -1, "mtime": -1, "read_at": time.time_ns(),
                    "diagnostics": [], "text": None, "error": None, "skipped": False}
    try:
        status: Optional[os.stat_result] = os.stat(path)
    except OSError:
        status = None
    source = read_source(Path(path))
    if isinstance(source, Diagnostic):  # unreadable: reported, never cached
        result["diagnostics"] = [source.to_dict()]
        return result
    rules = [_RULES_BY_CODE[code] for code in codes if code in _RULES_BY_CODE]
    try:
        diagnostics = lint_document(source, path, rules, prefilter=prefilter)
    except InternalError as error:
        result["error"] = str(error)
        return result
    except Exception as error:  # a bug outside the rules (facts, positions): keep the run going
        result["error"] = f"{path}: {type(error).__name__}: {error}\n{traceback.format_exc()}"
        return result
    if status is not None:
        result.update(digest=content_digest(source), size=status.st_size, mtime=status.st_mtime_ns)
    result["diagnostics"] = [diagnostic.to_dict() for diagnostic in diagnostics]
    if _has_findings(diagnostics):
        result["text"] = source_encoding.decode(source)
    elif not diagnostics and prefilter and rules and not could_match(source, rules):
        result["skipped"] = True
    return result


def _lint_chunk(chunk: list[tuple], prefilter: bool) -> list[dict]:
    """A worker's share: (path, size, codes) tasks."""
    results = []
    for path, _size, codes in chunk:
        parallel.starting(path)
        results.append(lint_task(path, codes, prefilter))
    return results


def _crashed(task: tuple) -> dict:
    return {"path": task[0], "digest": None, "diagnostics": [], "text": None, "skipped": False,
            "error": f"{task[0]}: the process linting this file died (a crash in the parser, or out of memory)"}


def _file_codes(settings: Settings, path: str, codes: tuple[str, ...]) -> tuple[str, ...]:
    if not settings.per_file_ignores:
        return codes
    ignored = _per_file_ignored(path, settings)
    return tuple(code for code in codes if code not in ignored)


def _cache_namespace(codes: Sequence[str], prefilter: bool) -> str:
    """Which index: one per selection (a run with --select X leaves the usual one warm). Not the
    per-file-ignores: a change there changes the key of the files it names, and only theirs."""
    return config_key(codes, prefilter)


def lint_paths(paths: Sequence[str], settings: Settings, force_exclude: bool = False, *, jobs: Optional[int] = 1,
               cache: bool = False, cache_dir: Optional[Path] = None, prefilter: bool = True,
               progress: bool = False) -> LintRun:
    """Discover and lint `paths`.

    jobs: worker processes (None or 0: one per CPU; 1: in this process, no pool).
    cache: answer unchanged files from `cache_dir` (default: .torchcopylint_cache at settings.root)
    and record the others. progress: show a bar on stderr if it is a terminal and the run is long.
    The diagnostics come out sorted by path, line, column and code, whatever the scheduling.
    """
    run = LintRun()
    found = discover(paths, settings, force_exclude=force_exclude)
    run.missing_paths = found.missing
    for problem_path, reason in found.problems:
        run.diagnostics.append(file_error(str(problem_path), f"{reason}; skipped"))
    jobs = parallel.default_jobs() if not jobs or jobs < 0 else jobs
    selected = tuple(rule.code for rule in select_rules(settings))
    store = None
    if cache:
        store = Cache(cache_dir if cache_dir is not None else default_cache_dir(settings.root), settings.root,
                      _cache_namespace(selected, prefilter))
    tasks: list[tuple] = []
    keys: dict[str, tuple[str, str]] = {}  # shown path -> (absolute path, cache key)
    for path in found.files:
        shown = str(path)
        run.files_checked += 1
        run.files.append(shown)
        codes = _file_codes(settings, shown, selected)
        try:
            status: Optional[os.stat_result] = os.stat(shown)
        except OSError:
            status = None
        size = status.st_size if status is not None else 0
        if store is not None and status is not None and stat.S_ISREG(status.st_mode):
            absolute, key = os.path.abspath(shown), config_key(codes, prefilter)
            keys[shown] = (absolute, key)
            entry, data = store.lookup(absolute, key, status)
            if entry is not None:
                run.files_cached += 1
                run.files_skipped += bool(entry[6])
                diagnostics = [with_path(item, shown) for item in entry[5]]
                run.diagnostics.extend(diagnostics)
                if _has_findings(diagnostics):
                    text = _text(path, data)
                    if text is not None:
                        run.sources[shown] = text
                continue
        tasks.append((shown, size, codes))

    with _progress_bar(progress, tasks) as advance:
        total_bytes = sum(task[1] for task in tasks)
        if jobs > 1 and len(tasks) >= POOL_MIN_FILES and total_bytes >= POOL_MIN_BYTES:
            results = parallel.run(tasks, _lint_chunk, jobs, prefilter, crashed=_crashed, on_done=advance)
        else:
            results = _in_process(tasks, prefilter, advance)
        for result in results:
            _collect(run, result, store, keys)
    if store is not None:
        if store.changed:
            store.prune(absolute for absolute, _key in keys.values())
        store.save()
    run.diagnostics.sort(key=Diagnostic.sort_key)
    return run


def _in_process(tasks: list[tuple], prefilter: bool, advance) -> Iterable[dict]:
    for path, _size, codes in tasks:
        yield lint_task(path, codes, prefilter)
        advance(1)


def _collect(run: LintRun, result: dict, store: Optional[Cache], keys: dict[str, tuple[str, str]]) -> None:
    shown = result["path"]
    if result["error"] is not None:
        run.internal_errors.append(result["error"])
        return
    run.files_skipped += result["skipped"]
    items = result["diagnostics"]
    run.diagnostics.extend(Diagnostic.from_dict(item) for item in items)
    if result["text"] is not None:
        run.sources[shown] = result["text"]
    if store is not None and result["digest"] is not None and shown in keys:
        absolute, key = keys[shown]
        store.store(absolute, key, result["digest"], result["size"], result["mtime"], result["read_at"],
                    [_without_path(item) for item in items], result["skipped"])


def _without_path(item: dict) -> dict:
    return {**item, "location": {**item["location"], "path": ""}}


def _text(path: Path, data: Optional[bytes]) -> Optional[str]:
    try:
        return source_encoding.decode(data if data is not None else path.read_bytes())
    except (OSError, UnicodeDecodeError):
        return None


class _progress_bar:
    """A click progress bar on stderr for long runs on a terminal; otherwise a no-op `advance(n)`."""

    def __init__(self, enabled: bool, tasks: list[tuple]) -> None:
        long_run = len(tasks) >= PROGRESS_MIN_FILES or sum(task[1] for task in tasks) >= PROGRESS_MIN_BYTES
        self.enabled = enabled and long_run and _is_terminal(sys.stderr)
        self.count = len(tasks)
        self.bar = None

    def __enter__(self):
        if not self.enabled:
            return lambda n: None
        import click

        self.bar = click.progressbar(length=self.count, label="Linting", file=sys.stderr, show_pos=True,
                                     show_eta=True)
        self.bar.__enter__()
        return self.bar.update

    def __exit__(self, *exc_info) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc_info)


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
