"""The language server: documents in, diagnostics, code actions and hovers out (pygls).

Each open file, and each open notebook as a whole, is a *lint unit*: its text is linted with
the same engine and configuration as the command line (linting.py), on a worker thread so the
event loop keeps answering while a long file is analysed. Edits are debounced; a result that
an edit overtook is dropped, and the newer text is linted instead. What was published for a
unit is kept (`Published`), so code actions, hovers and verify requests answer from it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import signal
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from torchcopylint import __version__, notebook
from torchcopylint.diagnostic import Applicability, Diagnostic, Verdict
from torchcopylint.fix import fix_source
from torchcopylint.server.convert import (
    FIX_ALL_KIND, diagnostic_range, fix_title, hover_text, noqa_edit, text_edits, to_lsp, whole_text_edit,
)
from torchcopylint.server.linting import CellText, EditorSettings, Linter, cell_sources, notebook_text

logger = logging.getLogger(__name__)

# Seconds of quiet after an edit before the text is linted: a burst of changes (a paste, an
# editor's own multi-part edit) is linted once. Edits that arrive while a lint of the same
# document runs are coalesced into one more lint after it, so a fast typist never queues more
# than one lint behind the running one.
DEBOUNCE_SECONDS = 0.02
# On top of the experiment's own limit: starting Python and importing torch in the child.
VERIFY_STARTUP_SECONDS = 60.0
VERIFY_COMMAND = "torchcopylint.verify"


@dataclass
class Snapshot:
    """A lint unit's text at one version, as it was read from the workspace."""

    unit: str  # the document's URI, or the notebook's
    version: Optional[int]
    path: Path
    text: str  # the module, or the notebook's JSON
    # A notebook: the URI of each cell in order (None for a cell the editor does not sync).
    cell_uris: Optional[list[Optional[str]]] = None


@dataclass
class Published:
    """What the server last published for a unit: the diagnostics by key, and where each went."""

    snapshot: Snapshot
    findings: dict[str, Diagnostic] = field(default_factory=dict)
    target_of: dict[str, str] = field(default_factory=dict)  # key -> the document (cell) URI shown in


class TorchcopylintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "torchcopylint", __version__,
            notebook_document_sync=types.NotebookDocumentSyncOptions(
                notebook_selector=[types.NotebookDocumentFilterWithCells(
                    notebook="jupyter-notebook", cells=[types.NotebookCellLanguage(language="python")])],
                save=True),
        )
        self.linter = Linter()
        self.editor = EditorSettings()
        self.published: dict[str, Published] = {}
        self.lint_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="torchcopylint-lint")
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.running: set[str] = set()  # units being linted now
        self.dirty: set[str] = set()  # units edited while being linted
        # Verdicts survive edits elsewhere: keyed by the unit, the rule and the flagged line's text.
        self.verdicts: dict[tuple, Verdict] = {}
        # progress token -> set when the user cancels that verification
        self.cancellations: dict[str, asyncio.Event] = {}
        # The protocol's exit status: 0 only when `exit` came after a `shutdown` request.
        self.shutdown_requested = False

    # ------------------------------------------------------------------ settings

    def apply_settings(self, options) -> None:
        self.editor, problems = EditorSettings.from_client(options, self.editor)
        for problem in problems:
            self.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Warning, message=f"torchcopylint: {problem}"))

    def workspace_root(self, path: Path) -> Optional[Path]:
        """The workspace folder holding a file (paths in settings without a pyproject are relative to it)."""
        best: Optional[Path] = None
        for folder in self.workspace.folders.values():
            root = Path(to_fs_path(folder.uri) or "")
            if root.parts and (root == path or root in path.parents) and (best is None or len(root.parts) > len(best.parts)):
                best = root
        return best

    # ------------------------------------------------------------------ reading the workspace

    def unit_of(self, uri: str) -> str:
        """The lint unit a document belongs to: its notebook, when it is a cell."""
        notebook_document = self.workspace.get_notebook_document(cell_uri=uri)
        return notebook_document.uri if notebook_document is not None else uri

    def snapshot(self, unit: str) -> Optional[Snapshot]:
        notebook_document = self.workspace.get_notebook_document(notebook_uri=unit)
        if notebook_document is not None:
            cells, uris = [], []
            for cell in notebook_document.cells:
                code = cell.kind == types.NotebookCellKind.Code
                document = self.workspace.text_documents.get(cell.document) if code else None
                cells.append(CellText("code" if document is not None else "markdown",
                                      document.source if document is not None else ""))
                uris.append(cell.document if document is not None else None)
            return Snapshot(unit, notebook_document.version, _path_of(unit, ".ipynb"), notebook_text(cells), uris)
        document = self.workspace.text_documents.get(unit)
        if document is None:
            return None
        return Snapshot(unit, document.version, _path_of(unit, ".py"), document.source)

    # ------------------------------------------------------------------ linting and publishing

    def schedule(self, unit: str, delay: float = DEBOUNCE_SECONDS) -> None:
        if unit in self.running:
            self.dirty.add(unit)
            return
        waiting = self.pending.pop(unit, None)
        if waiting is not None:
            waiting.cancel()
        loop = asyncio.get_running_loop()
        self.pending[unit] = loop.call_later(delay, lambda: loop.create_task(self.lint_and_publish(unit)))

    async def lint_and_publish(self, unit: str) -> None:
        self.pending.pop(unit, None)
        self.running.add(unit)
        try:
            await self._lint_and_publish(unit)
        finally:
            self.running.discard(unit)
            if unit in self.dirty:
                self.dirty.discard(unit)
                self.schedule(unit, 0)

    async def _lint_and_publish(self, unit: str) -> None:
        snapshot = self.snapshot(unit)
        if snapshot is None:
            return
        loop = asyncio.get_running_loop()
        result = await loop.run_in_executor(
            self.lint_pool, self.linter.lint, unit, snapshot.version, snapshot.path, snapshot.text, self.editor,
            self.workspace_root(snapshot.path))
        current = self.snapshot(unit)
        if current is None or current.version != snapshot.version or current.text != snapshot.text:
            return  # an edit overtook this result; its own lint publishes
        if result.note:
            logger.info("%s: %s", unit, result.note)
        self.publish(snapshot, list(result.diagnostics))

    def publish(self, snapshot: Snapshot, diagnostics: list[Diagnostic]) -> None:
        published = Published(snapshot)
        by_target: dict[str, list[types.Diagnostic]] = {}
        if snapshot.cell_uris is not None:
            for uri in snapshot.cell_uris:
                if uri is not None:
                    by_target[uri] = []
        else:
            by_target[snapshot.unit] = []
        for diagnostic in diagnostics:
            target = self.target_of(snapshot, diagnostic)
            if target is None:
                continue
            key = _key(diagnostic, published.findings)
            diagnostic = self.with_verdict(snapshot, diagnostic, target)
            published.findings[key] = diagnostic
            published.target_of[key] = target
            document = self.workspace.get_text_document(target)
            by_target.setdefault(target, []).append(
                to_lsp(diagnostic, target, document.lines, self.workspace.position_codec, key))
        self.published[snapshot.unit] = published
        for target, items in by_target.items():
            version = self.workspace.get_text_document(target).version
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=target, diagnostics=items, version=version))

    def target_of(self, snapshot: Snapshot, diagnostic: Diagnostic) -> Optional[str]:
        """The document a diagnostic is shown in: the file, or the notebook cell it is in."""
        if snapshot.cell_uris is None:
            return snapshot.unit
        cell = diagnostic.location.cell
        if cell is None or not 1 <= cell <= len(snapshot.cell_uris):
            # A finding about the whole notebook (it cannot be read): shown in its first code cell.
            return next((uri for uri in snapshot.cell_uris if uri is not None), None)
        return snapshot.cell_uris[cell - 1]

    def verdict_key(self, unit: str, diagnostic: Diagnostic, target: str) -> tuple:
        document = self.workspace.get_text_document(target)
        line = diagnostic.location.line
        text = document.lines[line - 1].strip() if 1 <= line <= len(document.lines) else ""
        return unit, diagnostic.code, diagnostic.location.cell, text, diagnostic.location.column

    def with_verdict(self, snapshot: Snapshot, diagnostic: Diagnostic, target: str) -> Diagnostic:
        verdict = self.verdicts.get(self.verdict_key(snapshot.unit, diagnostic, target))
        return dataclasses.replace(diagnostic, verdict=verdict) if verdict is not None else diagnostic

    def clear(self, unit: str) -> None:
        self.dirty.discard(unit)
        waiting = self.pending.pop(unit, None)
        if waiting is not None:
            waiting.cancel()
        published = self.published.pop(unit, None)
        self.linter.forget(unit)
        targets = set(published.target_of.values()) if published is not None else set()
        if published is not None and published.snapshot.cell_uris is None:
            targets.add(unit)
        for target in targets:
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=target, diagnostics=[]))

    def relint_everything(self) -> None:
        self.linter.forget()
        for unit in list(self.published):
            self.schedule(unit, 0)

    # ------------------------------------------------------------------ answers from what was published

    def findings_at(self, uri: str, where: types.Range) -> list[tuple[str, Diagnostic]]:
        published = self.published.get(self.unit_of(uri))
        if published is None:
            return []
        document = self.workspace.get_text_document(uri)
        found = []
        for key, diagnostic in published.findings.items():
            if published.target_of[key] != uri:
                continue
            shown = diagnostic_range(diagnostic, document.lines, self.workspace.position_codec)
            if _overlaps(shown, where):
                found.append((key, diagnostic))
        return found

    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        only = params.context.only
        wanted = lambda kind: only is None or any(kind == asked or kind.startswith(f"{asked}.") for asked in only)  # noqa: E731
        actions: list[types.CodeAction] = []
        document = self.workspace.get_text_document(uri)
        codec = self.workspace.position_codec
        published = self.published.get(self.unit_of(uri))
        if published is None or published.snapshot.version != self.snapshot(published.snapshot.unit).version:
            return actions  # stale: the edit's own lint will bring fresh actions
        if wanted(types.CodeActionKind.QuickFix):
            for key, diagnostic in self.findings_at(uri, params.range):
                shown = to_lsp(diagnostic, uri, document.lines, codec, key)
                title = fix_title(diagnostic)
                if title is not None:
                    actions.append(types.CodeAction(
                        title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[shown],
                        is_preferred=diagnostic.fix.applicability is Applicability.SAFE,
                        edit=types.WorkspaceEdit(changes={uri: text_edits(diagnostic.fix.edits, document.lines,
                                                                                  codec)})))
                if not diagnostic.code.startswith("TCL9"):
                    edit = noqa_edit(diagnostic, document.source, document.lines, codec)
                    if edit is not None:
                        actions.append(types.CodeAction(
                            title=f"{diagnostic.code}: disable for this line (# noqa)",
                            kind=types.CodeActionKind.QuickFix, diagnostics=[shown],
                            edit=types.WorkspaceEdit(changes={uri: [edit]})))
                    actions.append(types.CodeAction(
                        title=f"{diagnostic.code}: verify by running the code (--verify)",
                        kind=types.CodeActionKind.QuickFix, diagnostics=[shown],
                        command=types.Command(title=f"Verify {diagnostic.code}", command=VERIFY_COMMAND,
                                              arguments=[published.snapshot.unit, key])))
        if wanted(FIX_ALL_KIND):
            edit = self.fix_all_edit(published)
            if edit is not None:
                actions.append(types.CodeAction(title="torchcopylint: fix all safe fixes",
                                                kind=FIX_ALL_KIND, edit=edit))
        return actions

    def fix_all_edit(self, published: Published) -> Optional[types.WorkspaceEdit]:
        """Every safe fix, applied and re-linted until nothing changes, as the CLI's --fix does."""
        snapshot = published.snapshot
        if not any(d.fix is not None and d.fix.applicability is Applicability.SAFE for d in published.findings.values()):
            return None
        lint_module = self.linter.module_linter(snapshot.path, self.editor, self.workspace_root(snapshot.path))
        codec = self.workspace.position_codec
        if snapshot.cell_uris is None:
            outcome = fix_source(snapshot.text, str(snapshot.path), lint_module, unsafe=False)
            if outcome.error or outcome.fixed == snapshot.text:
                return None
            document = self.workspace.get_text_document(snapshot.unit)
            return types.WorkspaceEdit(changes={snapshot.unit: [
                whole_text_edit(snapshot.text, outcome.fixed, document.lines, codec)]})
        outcome = notebook.fix(snapshot.text, str(snapshot.path), lint_module, unsafe=False)
        if outcome.error or outcome.fixed == snapshot.text:
            return None
        changes = {}
        for uri, old, new in zip(snapshot.cell_uris, cell_sources(snapshot.text), cell_sources(outcome.fixed)):
            if uri is not None and old != new:
                document = self.workspace.get_text_document(uri)
                changes[uri] = [whole_text_edit(old, new, document.lines, codec)]
        return types.WorkspaceEdit(changes=changes) if changes else None

    # ------------------------------------------------------------------ verify on demand

    async def verify(self, unit: str, key: str) -> str:
        """Run one finding's experiment; returns its status ("cancelled" when the user stopped it)
        and republishes the document's diagnostics with the verdict on that finding."""
        published = self.published.get(unit)
        diagnostic = published.findings.get(key) if published is not None else None
        if diagnostic is None:
            return "the finding is gone (the document changed); nothing to verify"
        token = str(uuid.uuid4())
        progress = await self.start_progress(token, f"torchcopylint: verifying {diagnostic.code}",
                                             f"line {diagnostic.location.line}")
        cancelled = self.cancellations[token] = asyncio.Event()
        if progress:
            self.work_done_progress.report(token, types.WorkDoneProgressReport(
                message=f"running the flagged code (time limit {self.editor.verify_timeout:g} s)"))
        try:
            verdict = await run_verification(self, published.snapshot, diagnostic, cancelled)
        finally:
            self.cancellations.pop(token, None)
        if verdict is None:
            if progress:
                self.work_done_progress.end(token, types.WorkDoneProgressEnd(message="cancelled"))
            return "cancelled"
        self.verdicts[self.verdict_key(unit, diagnostic, published.target_of[key])] = verdict
        if progress:
            self.work_done_progress.end(token, types.WorkDoneProgressEnd(message=verdict.status))
        current = self.published.get(unit)
        if current is not None:
            self.publish(current.snapshot, [dataclasses.replace(d, verdict=None) for d in current.findings.values()])
        return verdict.status

    async def start_progress(self, token: str, title: str, message: str) -> bool:
        capabilities = self.client_capabilities.window
        if capabilities is None or not capabilities.work_done_progress:
            return False
        try:
            await self.work_done_progress.create_async(token)
        except Exception:  # the client refused the token: verify without progress
            return False
        self.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, message=message,
                                                                        cancellable=True))
        return True

    def cancel_verification(self, token) -> None:
        """The user cancelled the progress of a verify: its experiment is killed."""
        cancelled = self.cancellations.get(str(token))
        if cancelled is not None:
            cancelled.set()


async def run_verification(server: TorchcopylintServer, snapshot: Snapshot, diagnostic: Diagnostic,
                           cancelled: asyncio.Event) -> Optional[Verdict]:
    """`--verify` of one finding in a child process, within the configured time limit; None when
    `cancelled` is set first. The child has a process group of its own, so killing it also ends
    the experiment process it started."""
    settings = server.linter.settings_for(snapshot.path, server.editor, server.workspace_root(snapshot.path))
    job = {
        "diagnostic": diagnostic.to_dict(),
        "source": snapshot.text,
        "device": server.editor.verify_device,
        "timeout": server.editor.verify_timeout,
        "factories": settings.verify_factories(),
        "pythonpath": [str(entry) for entry in settings.verify_pythonpath()],
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "torchcopylint.server.verify_child",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        start_new_session=True)
    finished = asyncio.ensure_future(process.communicate(json.dumps(job).encode()))
    stopped = asyncio.ensure_future(cancelled.wait())
    try:
        done, _ = await asyncio.wait({finished, stopped}, return_when=asyncio.FIRST_COMPLETED,
                                     timeout=VERIFY_STARTUP_SECONDS + server.editor.verify_timeout)
    except asyncio.CancelledError:  # the request itself was cancelled ($/cancelRequest)
        _kill(process)
        raise
    finally:
        stopped.cancel()
    if finished not in done:
        _kill(process)
        await process.wait()
        finished.cancel()
        if cancelled.is_set():
            return None
        return Verdict("unverified", f"timed out after {server.editor.verify_timeout:g} s (the experiment was killed)")
    output, errors = finished.result()
    if process.returncode != 0:
        tail = errors.decode(errors="replace").strip().splitlines()[-1:] or [""]
        return Verdict("unverified", f"the verification process failed (exit {process.returncode}): {tail[0][:200]}")
    result = json.loads(output)
    return Verdict(result["status"], result["evidence"])


def _kill(process: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _path_of(uri: str, suffix: str) -> Path:
    """The file a document is, for configuration and messages; an unsaved buffer is a file of the
    working directory (so that the nearest configuration still applies)."""
    path = to_fs_path(uri) if uri.startswith("file:") else None
    return Path(path) if path else Path.cwd() / f"untitled{suffix}"


def _key(diagnostic: Diagnostic, taken: dict) -> str:
    location = diagnostic.location
    key = f"{diagnostic.code}:{location.cell or 0}:{location.line}:{location.column}"
    suffix = 1
    while key in taken:
        suffix += 1
        key = f"{diagnostic.code}:{location.cell or 0}:{location.line}:{location.column}:{suffix}"
    return key


def _overlaps(shown: types.Range, asked: types.Range) -> bool:
    start, end = (shown.start.line, shown.start.character), (shown.end.line, shown.end.character)
    asked_start, asked_end = (asked.start.line, asked.start.character), (asked.end.line, asked.end.character)
    return start <= asked_end and asked_start <= end


# ---------------------------------------------------------------------- protocol handlers


def build_server() -> TorchcopylintServer:
    server = TorchcopylintServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: TorchcopylintServer, params: types.InitializeParams) -> None:
        ls.apply_settings(params.initialization_options)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: TorchcopylintServer, params: types.DidOpenTextDocumentParams) -> None:
        unit = ls.unit_of(params.text_document.uri)
        ls.schedule(unit, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: TorchcopylintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(ls.unit_of(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: TorchcopylintServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule(ls.unit_of(params.text_document.uri), 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: TorchcopylintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.clear(params.text_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_did_open(ls: TorchcopylintServer, params: types.DidOpenNotebookDocumentParams) -> None:
        ls.schedule(params.notebook_document.uri, 0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_did_change(ls: TorchcopylintServer, params: types.DidChangeNotebookDocumentParams) -> None:
        ls.schedule(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_did_save(ls: TorchcopylintServer, params: types.DidSaveNotebookDocumentParams) -> None:
        ls.schedule(params.notebook_document.uri, 0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_did_close(ls: TorchcopylintServer, params: types.DidCloseNotebookDocumentParams) -> None:
        ls.clear(params.notebook_document.uri)
        for cell in params.cell_text_documents:
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=cell.uri, diagnostics=[]))

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: TorchcopylintServer, params: types.DidChangeConfigurationParams) -> None:
        ls.apply_settings(params.settings)
        ls.relint_everything()

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: TorchcopylintServer, params: types.DidChangeWatchedFilesParams) -> None:
        # A pyproject.toml changed on disk: every open document may have new settings.
        if any(change.uri.endswith(("pyproject.toml", "torchcopylint.toml")) for change in params.changes):
            ls.relint_everything()

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND], resolve_provider=False))
    def code_action(ls: TorchcopylintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return ls.code_actions(params)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: TorchcopylintServer, params: types.HoverParams) -> Optional[types.Hover]:
        point = types.Range(start=params.position, end=params.position)
        found = [diagnostic for _, diagnostic in ls.findings_at(params.text_document.uri, point)]
        if not found:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown,
                                                        value=hover_text(found)))

    @server.command(VERIFY_COMMAND)
    async def verify_command(ls: TorchcopylintServer, unit: str, key: str) -> str:
        return await ls.verify(unit, key)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: TorchcopylintServer, *args) -> None:
        ls.shutdown_requested = True

    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def progress_cancel(ls: TorchcopylintServer, params: types.WorkDoneProgressCancelParams) -> None:
        ls.cancel_verification(params.token)

    return server


def serve() -> None:
    """Serve until `exit` (or the end of stdin); the exit status is the protocol's: 0 after a
    `shutdown` request, 1 otherwise (pygls computes it, but its start_io swallows the SystemExit)."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    server = build_server()
    server.start_io()
    sys.exit(0 if server.shutdown_requested else 1)
