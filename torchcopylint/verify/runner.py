"""The parent side of --verify: one child process per file, with a time limit, results read back."""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from torchcopylint import notebook, parallel, source_encoding
from torchcopylint.diagnostic import Diagnostic, Verdict
from torchcopylint.fix import apply_edits
from torchcopylint.verify.importing import module_names

# Seconds a child may take to start and import torch, on top of the per-diagnosis limit.
STARTUP_SECONDS = 60.0
# Seconds one diagnosis may take. Most take well under one; a 256-pixel U-Net or discriminator, run as
# written and as fixed on a laptop's CPU, takes 10 to 30 (and more on a busy machine): a verdict, not a
# timeout, is what a user verifying their own GAN wants.
DEFAULT_TIMEOUT = 60.0


class VerifyError(Exception):
    """A --verify setting that cannot be honoured (e.g. --device cuda without a GPU): exit 2."""


@dataclass
class VerifyOptions:
    device: str = "cpu"  # "cpu" or "cuda", resolved
    timeout: float = DEFAULT_TIMEOUT  # seconds per diagnosis
    factories: dict = field(default_factory=dict)
    # Extra import folders (absolute), after the file's own import context: `verify.pythonpath`.
    pythonpath: list = field(default_factory=list)
    python: str = sys.executable
    jobs: int = max(1, min(2, parallel.default_jobs()))  # files verified at once, one child each
    # Filled in by verify(): seconds each experiment took inside its child (torch import excluded).
    timings: dict = field(default_factory=dict)


def resolve_device(requested: str, python: str = sys.executable) -> str:
    """cpu stays cpu; cuda must exist; auto picks cuda when a GPU is there. Asks a child (no torch here)."""
    if requested == "cpu":
        return "cpu"
    probe = subprocess.run([python, "-c", "import torch; print(torch.cuda.is_available())"],
                           capture_output=True, text=True, timeout=STARTUP_SECONDS)
    available = probe.returncode == 0 and probe.stdout.strip() == "True"
    if requested == "cuda" and not available:
        reason = "torch is not installed" if probe.returncode else "torch.cuda.is_available() is False"
        raise VerifyError(f"--device cuda was asked for, but no GPU can be used here ({reason})")
    return "cuda" if available else "cpu"


def verify(diagnostics: list[Diagnostic], sources: dict[str, str], options: VerifyOptions,
           tree: Sequence[str] = ()) -> list[Diagnostic]:
    """The diagnostics with a verdict attached to each one --verify can consider; `tree`: every file
    linted (the callers of a flagged file's functions are looked for in it, and in `sources`)."""
    by_path: dict[str, list[int]] = {}
    for index, diagnostic in enumerate(diagnostics):
        if diagnostic.path in sources and not diagnostic.code.startswith("TCL9"):
            by_path.setdefault(diagnostic.path, []).append(index)
    verdicts: dict[int, Verdict] = {}
    candidates = _possible_importers(sorted(by_path), sources, tree)
    # One flagged file (an editor's, a notebook's) gets all the threads one child may use.
    threads = torch_threads(min(options.jobs, max(1, len(by_path))))
    with ThreadPoolExecutor(max_workers=options.jobs) as pool:
        futures = [pool.submit(_verify_file, path, sources[path], [(i, diagnostics[i]) for i in indexes], options,
                               threads, importers(path, candidates))
                   for path, indexes in sorted(by_path.items())]
        for future in futures:
            verdicts.update(future.result())
    return [dataclasses.replace(d, verdict=verdicts[i]) if i in verdicts else d for i, d in enumerate(diagnostics)]


# Other files of the linted tree that import a flagged file's module, sent with its job (their
# top-level calls of its functions show what those are given): at most this many, this large.
MAX_IMPORTERS = 8
MAX_IMPORTER_CHARS = 200_000


def _imports_of(stem: str) -> re.Pattern:
    # (Also a module imported from its package, relatively: `from . import blocks`.)
    return re.compile(rf"^\s*(from\s+[\w.]*\b{stem}\s+import\b|import\s+[\w.]*\b{stem}\b|"
                      rf"from\s+\.+[\w.]*\s+import\s+[^\n]*\b{stem}\b)", re.MULTILINE)


def _possible_importers(flagged: list[str], sources: dict[str, str], tree: Sequence[str]) -> dict[str, "Importer"]:
    """The Python files and notebooks of `sources` and `tree` (read once each, up to MAX_IMPORTER_CHARS)
    that may import a flagged file's module: they spell an import of one of their names."""
    stems = sorted({name for path in flagged for name in module_names(path) if name.isidentifier()})
    if not stems:
        return {}
    pattern = _imports_of("(?:" + "|".join(map(re.escape, stems)) + ")")
    found = {}
    for path in dict.fromkeys([*sources, *tree]):
        is_notebook = notebook.is_notebook(path)
        if not (path.endswith(".py") or is_notebook):
            continue
        text = None if is_notebook else sources.get(path)  # (a notebook's source here is its module)
        if text is None:
            try:
                if os.path.getsize(path) > MAX_IMPORTER_CHARS:
                    continue
                text = source_encoding.without_byte_order_mark(source_encoding.decode(Path(path).read_bytes()))
            except (OSError, UnicodeDecodeError):
                continue  # the lint reported it
        cells: list = []
        if is_notebook:
            try:
                document = notebook.read(text)
            except notebook.NotebookError:
                continue
            text = notebook.lintable_module(document)
            cells = [(cell.first_line, cell.line_count, cell.number) for cell in document.cells]
        if len(text) <= MAX_IMPORTER_CHARS and pattern.search(text):
            found[path] = Importer(text, cells)
    return found


@dataclass(frozen=True)
class Importer:
    """A linted file that may import a flagged one: its Python text (a notebook's code cells as one
    module) and, for a notebook, (first line, line count, number) of each code cell."""

    text: str
    cells: list = field(default_factory=list)


def importers(path: str, candidates: dict[str, Importer]) -> list[list]:
    """The files of `candidates`, other than `path`, that import its module by its name (`from train
    import fit`, `import train`, `from .train import fit`), nearest first: [path, text, cells] each."""
    names = sorted(name for name in module_names(path) if name.isidentifier())
    if not names:
        return []
    imports = _imports_of("(?:" + "|".join(map(re.escape, names)) + ")")
    folder = Path(path).resolve().parent
    found = [(other, importer) for other, importer in candidates.items() if other != path and
             imports.search(importer.text)]
    found.sort(key=lambda item: (Path(item[0]).resolve().parent != folder, item[0]))
    return [[str(Path(other).resolve()), importer.text, importer.cells] for other, importer in found[:MAX_IMPORTERS]]


# Threads one child's torch may use. More than the cores left to it make every child slower, not
# faster: two children of two threads each on two cores took twice as long as with one thread
# each (an adversarial attack's experiment went past the time limit), as the threads of one wait
# for those of the other at every parallel operation.
MOST_TORCH_THREADS = 4


def torch_threads(children: int) -> int:
    """The threads for each of `children` running at once: the CPUs this process may use, shared."""
    return max(1, min(MOST_TORCH_THREADS, parallel.default_jobs() // max(1, children)))


def _verify_file(path: str, source: str, items: list[tuple[int, Diagnostic]], options: VerifyOptions,
                 threads: int = 1, callers: Optional[list] = None) -> dict:
    # The diagnoses' positions count line 1 without a byte order mark, as libcst reads it, and
    # Python's compile of a str refuses one: the experiments run the text without it.
    source = source_encoding.without_byte_order_mark(source)
    ranges = _top_level_ranges(source)
    job = {
        "path": str(Path(path).resolve()),
        "source": source,
        "importers": callers or [],
        "device": options.device,
        "timeout": options.timeout,
        "threads": threads,
        "factories": options.factories,
        "pythonpath": [str(entry) for entry in options.pythonpath],
        "diagnostics": [
            _job_entry(index, diagnostic, source, [d for _, d in items], ranges)
            for index, diagnostic in items
        ],
    }
    with tempfile.TemporaryDirectory(prefix="torchcopylint-verify-") as directory:
        job_path = Path(directory, "job.json")
        results_path = Path(directory, "results.jsonl")
        job_path.write_text(json.dumps(job), encoding="utf-8")
        failure: Optional[str] = None
        try:
            completed = subprocess.run(
                [options.python, "-m", "torchcopylint.verify.child", str(job_path), str(results_path)],
                capture_output=True, text=True, stdin=subprocess.DEVNULL,
                timeout=STARTUP_SECONDS + options.timeout * len(items), env=_child_environment(),
            )
            if completed.returncode != 0:
                tail = (completed.stderr or "").strip().splitlines()[-1:] or [""]
                failure = f"the verification process crashed (exit {completed.returncode}): {tail[0][:200]}"
        except subprocess.TimeoutExpired:
            failure = "timed out (the verification process had to be killed)"
        results = {}
        timings = options.timings
        if results_path.exists():
            for line in results_path.read_text(encoding="utf-8").splitlines():
                record = json.loads(line)
                results[record["index"]] = Verdict(record["status"], record["evidence"])
                timings[record["index"]] = record.get("seconds", 0.0)
    for index, _ in items:
        if index not in results:
            results[index] = Verdict("unverified", failure or "no result from the verification process")
    return results


def _top_level_ranges(source: str) -> list[tuple[int, int]]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [(node.lineno, node.end_lineno or node.lineno) for node in tree.body]


def _job_entry(index: int, diagnostic: Diagnostic, source: str, neighbours: list[Diagnostic],
               ranges: list[tuple[int, int]]) -> dict:
    """What the child needs for one diagnosis. Each is tested in isolation: the other findings in
    the same function or class are fixed first (where that keeps line numbers), so an earlier bug
    there cannot mask it; code elsewhere in the file is left as written. Where that changed the
    code, the code as written comes too, for a diagnosis the isolated code leaves undecided."""
    line = diagnostic.location.line
    home = next(((start, end) for start, end in ranges if start <= line <= end), (line, line))
    others = [_on_one_line(d) for d in neighbours
              if d is not diagnostic and d.location.line != line and home[0] <= d.location.line <= home[1]
              and not _same_cause(d, diagnostic)]
    isolated, _ = apply_edits(source, [d for d in others if d is not None], unsafe=True)

    def with_own_fix(text: str) -> Optional[str]:
        if diagnostic.fix is None:
            return None
        fixed_text, applied = apply_edits(text, [diagnostic], unsafe=True)
        return fixed_text if applied else None

    fixed = with_own_fix(isolated)
    # Another finding's fix may break what this one needs (a detached `x_hat` that `autograd.grad`
    # differentiates later): a diagnosis the isolated code cannot decide is tried on the code as written.
    as_written = {"source": source, "fixed_source": with_own_fix(source)} if isolated != source else None
    return {
        "index": index,
        "code": diagnostic.code,
        "line": diagnostic.location.line,
        # The flagged expression itself (TCL003 detaches and watches exactly that argument).
        "span": [diagnostic.location.line, diagnostic.location.column, diagnostic.location.end_line,
                 diagnostic.location.end_column],
        "context": diagnostic.context,
        "source": isolated,
        "fixed_source": fixed,
        "as_written": as_written,
    }


def _same_cause(first: Diagnostic, second: Diagnostic) -> bool:
    """Two findings of one in-place write (`identity = x` and a later read of `x`, both after the
    same in-place ReLU): fixing one removes the write the other is about, so it is not isolation."""
    event = first.context.get("event_line")
    return event is not None and event == second.context.get("event_line")


def _on_one_line(diagnostic: Diagnostic) -> Optional[Diagnostic]:
    """The diagnostic with a fix that keeps line numbers: `with torch.no_grad():\n    stmt` becomes
    `with torch.no_grad(): stmt`; a fix that would add lines otherwise is left out."""
    if diagnostic.fix is None:
        return None
    edits = []
    for edit in diagnostic.fix.edits:
        content = edit.content
        if "\n" in content:
            head, _, rest = content.partition("\n")
            if not (head.startswith("with ") and head.endswith(":") and "\n" not in rest):
                return None
            content = f"{head} {rest.strip()}"
        edits.append(dataclasses.replace(edit, content=content))
    return dataclasses.replace(diagnostic, fix=dataclasses.replace(diagnostic.fix, edits=tuple(edits)))


def _child_environment() -> dict:
    environment = dict(os.environ)
    # The child must import this very torchcopylint, installed or not.
    package_root = str(Path(__file__).resolve().parents[2])
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, environment.get("PYTHONPATH")]))
    environment.setdefault("PYTHONHASHSEED", "0")
    environment["PYTHONDONTWRITEBYTECODE"] = "1"  # the user's tree gets no __pycache__ from imports of siblings
    return environment
