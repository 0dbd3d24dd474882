"""`torchcopylint server` end to end: a real LSP client (pytest-lsp) drives the server over stdio."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402
from pygls.uris import from_fs_path  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402

REPOSITORY = Path(__file__).resolve().parents[1]

GAN_STEP = textwrap.dedent('''\
    import torch
    from torch import nn


    class Generator(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))

        def forward(self, z):
            return self.net(z)


    class Discriminator(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))

        def forward(self, x):
            return self.net(x)


    def train_step(netG, netD, opt_g, opt_d, real):
        z = torch.randn(real.size(0), 4)
        fake = netG(z)
        loss_d = netD(real).mean() - netD(fake).mean()
        opt_d.zero_grad()
        loss_d.backward()
        opt_d.step()
        loss_g = -netD(netG(z)).mean()
        opt_g.zero_grad()
        loss_g.backward()
        opt_g.step()


    def main():
        netG, netD = Generator(), Discriminator()
        opt_g = torch.optim.Adam(netG.parameters())
        opt_d = torch.optim.Adam(netD.parameters())
        train_step(netG, netD, opt_g, opt_d, torch.randn(8, 8))
    ''')
FLAGGED_LINE = 26  # `loss_d = netD(real).mean() - netD(fake).mean()`, 1-based

CLONE_DETACH = "import torch\nx = torch.ones(2, requires_grad=True)\n\ndef snapshot():\n    return x.clone().detach()\n"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "torchcopylint", "server"]))
async def client(lsp_client: LanguageClient, tmp_path: Path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    # A second workspace folder whose project ignores TCL005 (multi-root workspaces).
    (tmp_path / "b" / "pyproject.toml").write_text('[tool.torchcopylint]\nignore = ["TCL005"]\n')
    folders = [types.WorkspaceFolder(uri=from_fs_path(str(tmp_path / name)), name=name) for name in ("a", "b")]
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        root_uri=folders[0].uri, workspace_folders=folders,
        initialization_options={"torchcopylint": {"verify": {"timeout": 60}}}))
    lsp_client.tmp_path = tmp_path
    yield
    await lsp_client.shutdown_session()


def _open(client: LanguageClient, path: Path, text: str, version: int = 1) -> str:
    path.write_text(text)
    uri = from_fs_path(str(path))
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)))
    return uri


def _change(client: LanguageClient, uri: str, text: str, version: int):
    """Send the new text; returns what the client held for the document before (see _published)."""
    before = client.diagnostics.get(uri)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
    return before


async def _published(client: LanguageClient, uri: str, before=None, timeout: float = 60.0) -> list[types.Diagnostic]:
    """The diagnostics published for `uri` after `before` (what the client held for it when the
    edit or open was sent). pytest-lsp keeps the latest publication per document, so a publication
    that arrives before this is awaited is not missed."""
    waited = 0.0
    while client.diagnostics.get(uri) is before:
        await asyncio.sleep(0.02)
        waited += 0.02
        if waited > timeout:
            raise TimeoutError(f"no diagnostics published for {uri}")
    return list(client.diagnostics[uri])


def _apply(text: str, edits) -> str:
    """Apply LSP text edits (ASCII text: UTF-16 units are characters) the way a client does."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(position: types.Position) -> int:
        if position.line >= len(lines):
            return len(text)
        return starts[position.line] + position.character

    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


async def _actions(client: LanguageClient, uri: str, diagnostic: types.Diagnostic, only=None) -> list:
    return await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=diagnostic.range,
        context=types.CodeActionContext(diagnostics=[diagnostic], only=only)))


@pytest.mark.asyncio
async def test_diagnostics_on_open_then_after_an_edit(client: LanguageClient):
    uri = _open(client, client.tmp_path / "a" / "gan.py", GAN_STEP)
    diagnostics = await _published(client, uri)
    assert [d.code for d in diagnostics] == ["TCL003"]
    found = diagnostics[0]
    assert found.range.start.line == FLAGGED_LINE - 1
    assert GAN_STEP.splitlines()[FLAGGED_LINE - 1][found.range.start.character:found.range.end.character] == "fake"
    assert found.source == "torchcopylint"
    assert found.severity == types.DiagnosticSeverity.Error
    assert found.code_description.href.endswith("/rules/TCL003.md")
    assert "without `.detach()`" in found.message

    # The unsaved text is linted, not the file: add a second finding in the editor only.
    edited = GAN_STEP + "\n\ndef snapshot(model: torch.nn.Module, x: torch.Tensor):\n    return model(x).clone().detach()\n"
    before = _change(client, uri, edited, 2)
    assert sorted(d.code for d in await _published(client, uri, before)) == ["TCL003", "TCL005"]


@pytest.mark.asyncio
async def test_quick_fix_applied_by_the_client_removes_the_finding(client: LanguageClient):
    uri = _open(client, client.tmp_path / "a" / "gan.py", GAN_STEP)
    [found] = await _published(client, uri)
    actions = [a for a in await _actions(client, uri, found) if isinstance(a, types.CodeAction)]
    fix = next(a for a in actions if a.title == "TCL003: Detach the generator output")
    assert fix.kind == types.CodeActionKind.QuickFix and fix.is_preferred
    fixed = _apply(GAN_STEP, fix.edit.changes[uri])
    assert "netD(fake.detach()).mean()" in fixed
    before = _change(client, uri, fixed, 2)
    assert await _published(client, uri, before) == []


@pytest.mark.asyncio
async def test_unsafe_fix_is_titled_so_and_not_preferred(client: LanguageClient):
    text = "import torch\n\n\ndef f(x):\n    y = x.detach()\n    y.add_(1)\n    return x * 2\n"
    uri = _open(client, client.tmp_path / "a" / "detached.py", text)
    [found] = await _published(client, uri)
    assert found.code == "TCL006"
    actions = [a for a in await _actions(client, uri, found) if isinstance(a, types.CodeAction)]
    fix = next(a for a in actions if a.title.startswith("TCL006:") and "noqa" not in a.title)
    assert fix.title.endswith("(unsafe fix)") and not fix.is_preferred


@pytest.mark.asyncio
async def test_fix_all_applies_every_safe_fix(client: LanguageClient):
    text = CLONE_DETACH + "\n\ndef other(y: torch.Tensor):\n    return torch.tensor(y), (y * 2).clone().detach()\n"
    uri = _open(client, client.tmp_path / "a" / "many.py", text)
    diagnostics = await _published(client, uri)
    assert sorted(d.code for d in diagnostics) == ["TCL005", "TCL005", "TCL008"]
    [fix_all] = await _actions(client, uri, diagnostics[0], only=["source.fixAll"])
    assert fix_all.kind == "source.fixAll.torchcopylint"
    fixed = _apply(text, fix_all.edit.changes[uri])
    assert "x.detach().clone()" in fixed and "y.detach().clone(), (y * 2).detach().clone()" in fixed
    before = _change(client, uri, fixed, 2)
    assert await _published(client, uri, before) == []


@pytest.mark.asyncio
async def test_noqa_action_silences_the_line(client: LanguageClient):
    uri = _open(client, client.tmp_path / "a" / "snap.py", CLONE_DETACH)
    [found] = await _published(client, uri)
    noqa = next(a for a in await _actions(client, uri, found)
                if isinstance(a, types.CodeAction) and "noqa" in a.title)
    silenced = _apply(CLONE_DETACH, noqa.edit.changes[uri])
    assert "return x.clone().detach()  # noqa: TCL005" in silenced
    before = _change(client, uri, silenced, 2)
    assert await _published(client, uri, before) == []


@pytest.mark.asyncio
async def test_hover_explains_the_rule_and_the_finding(client: LanguageClient):
    uri = _open(client, client.tmp_path / "a" / "snap.py", CLONE_DETACH)
    [found] = await _published(client, uri)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=found.range.start))
    text = hover.contents.value
    assert text.startswith("**TCL005** clone-detach-order")
    assert found.message in text
    assert "*What it flags:*" in text and "*Why it matters:*" in text
    assert "rules/TCL005.md" in text
    # Away from the finding there is nothing to say.
    assert await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=0))) is None


@pytest.mark.asyncio
async def test_configuration_change_disables_a_rule(client: LanguageClient):
    uri = _open(client, client.tmp_path / "a" / "snap.py", CLONE_DETACH)
    assert [d.code for d in await _published(client, uri)] == ["TCL005"]
    before = client.diagnostics.get(uri)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"torchcopylint": {"ignore": ["TCL005"]}}))
    assert await _published(client, uri, before) == []
    before = client.diagnostics.get(uri)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"torchcopylint": {"ignore": []}}))
    assert [d.code for d in await _published(client, uri, before)] == ["TCL005"]


@pytest.mark.asyncio
async def test_each_workspace_folder_uses_its_own_project_configuration(client: LanguageClient):
    first = _open(client, client.tmp_path / "a" / "snap.py", CLONE_DETACH)
    assert [d.code for d in await _published(client, first)] == ["TCL005"]
    second = _open(client, client.tmp_path / "b" / "snap.py", CLONE_DETACH)
    assert await _published(client, second) == []  # b/pyproject.toml ignores TCL005


@pytest.mark.asyncio
async def test_noqa_written_in_the_editor_is_honoured(client: LanguageClient):
    uri = _open(client, client.tmp_path / "a" / "snap.py", CLONE_DETACH.replace(".detach()", ".detach()  # noqa"))
    assert await _published(client, uri) == []


def _notebook_cells(tmp_path: Path):
    cells = [
        ("code", "import torch\nfrom torch import nn\n"),
        ("markdown", "# Training\n"),
        ("code", "%matplotlib inline\nnetG = nn.Linear(4, 8)\nnetD = nn.Linear(8, 1)\n"
                 "opt_d = torch.optim.Adam(netD.parameters())\nopt_g = torch.optim.Adam(netG.parameters())\n"),
        ("code", "fake = netG(torch.randn(2, 4))\nloss_d = netD(fake).mean()\nopt_d.zero_grad()\n"
                 "loss_d.backward()\nopt_d.step()\n"),
    ]
    notebook_uri = from_fs_path(str(tmp_path / "a" / "gan.ipynb"))
    documents = []
    notebook_cells = []
    for index, (kind, text) in enumerate(cells):
        uri = f"vscode-notebook-cell:{tmp_path}/a/gan.ipynb#cell{index}"
        notebook_cells.append(types.NotebookCell(
            kind=types.NotebookCellKind.Code if kind == "code" else types.NotebookCellKind.Markup, document=uri))
        if kind == "code":
            documents.append(types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
    return notebook_uri, notebook_cells, documents


@pytest.mark.asyncio
async def test_notebook_diagnostics_land_on_their_cell(client: LanguageClient):
    notebook_uri, cells, documents = _notebook_cells(client.tmp_path)
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(uri=notebook_uri, notebook_type="jupyter-notebook", version=1,
                                                 cells=cells),
        cell_text_documents=documents))
    last_cell = documents[-1].uri
    for document in documents:
        await _published(client, document.uri)
    published = {document.uri: list(client.diagnostics[document.uri]) for document in documents}
    assert published[documents[0].uri] == [] and published[documents[1].uri] == []
    [found] = published[last_cell]
    assert found.code == "TCL003"
    assert found.range.start.line == 1  # `loss_d = netD(fake).mean()`: line 2 of the cell
    assert "cell 4, line 1" in found.message  # the generator call, named as the CLI names it

    # An edit of the cell that detaches the fake batch clears it.
    before = client.diagnostics[last_cell]
    client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        notebook_document=types.VersionedNotebookDocumentIdentifier(uri=notebook_uri, version=2),
        change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(text_content=[
            types.NotebookDocumentCellContentChanges(
                document=types.VersionedTextDocumentIdentifier(uri=last_cell, version=2),
                changes=[types.TextDocumentContentChangeWholeDocument(
                    text=documents[-1].text.replace("netD(fake)", "netD(fake.detach())"))])]))))
    assert await _published(client, last_cell, before) == []


@pytest.mark.asyncio
async def test_verify_command_republishes_a_confirmed_verdict(client: LanguageClient):
    pytest.importorskip("torch")
    uri = _open(client, client.tmp_path / "a" / "gan.py", GAN_STEP)
    [found] = await _published(client, uri)
    actions = await _actions(client, uri, found)
    before = client.diagnostics[uri]
    # lsprotocol's client reads any action that has a `command` as a bare Command: match the title.
    assert any(action.title == "TCL003: verify by running the code (--verify)" for action in actions)
    status = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="torchcopylint.verify", arguments=[uri, found.data["key"]]))
    assert status == "confirmed"
    [verified] = await _published(client, uri, before)
    assert "[--verify] confirmed" in verified.message
    assert "generator" in verified.related_information[0].message
    progress = [kind for token, events in client.progress_reports.items() for kind in events]
    assert any(isinstance(event, types.WorkDoneProgressBegin) for event in progress)
    assert any(isinstance(event, types.WorkDoneProgressEnd) and event.message == "confirmed" for event in progress)


SLOW_TRAINING = textwrap.dedent('''\
    import time


    def train(model, optimizer, batches):
        total = 0
        for batch in batches:
            loss = model(batch).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss
            time.sleep(600)
        return total
    ''')


def _process_groups() -> dict[int, list[str]]:
    """Process group -> the full command lines in it, of every process on the machine. Read from
    /proc, not `ps`: `ps` cuts command lines at $COLUMNS, which CI sets, and a long venv path then
    hides the module name."""
    groups: dict[int, list[str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:  # the process ended while we read it
            continue
        # The command name in parentheses may contain spaces: the fields after it are fixed.
        group = int(stat[stat.rindex(")") + 2:].split()[2])
        groups.setdefault(group, []).append(command)
    return groups


@pytest.mark.asyncio
async def test_verify_is_cancellable_and_leaves_no_process_behind(client: LanguageClient):
    pytest.importorskip("torch")
    if not Path("/proc/self/stat").exists():
        pytest.skip("reads process groups from /proc (Linux)")
    uri = _open(client, client.tmp_path / "a" / "slow.py", SLOW_TRAINING)
    [found] = await _published(client, uri)
    assert found.code == "TCL007"
    request = asyncio.ensure_future(client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="torchcopylint.verify", arguments=[uri, found.data["key"]])))
    for _ in range(3000):  # the experiment has started once the server reports it
        if any(isinstance(event, types.WorkDoneProgressReport) for events in client.progress_reports.values()
               for event in events):
            break
        await asyncio.sleep(0.02)
    [token] = list(client.progress_reports)
    await asyncio.sleep(1.0)  # let the child start the experiment (it sleeps in the user's loop)
    # The verification's own process group: its child and the experiment process it started.
    groups = [group for group, commands in _process_groups().items()
              if any("torchcopylint.server.verify_child" in command for command in commands)]
    assert groups
    client.protocol.notify(types.WINDOW_WORK_DONE_PROGRESS_CANCEL, types.WorkDoneProgressCancelParams(token=token))
    assert await asyncio.wait_for(request, 30) == "cancelled"
    ended = client.progress_reports[token][-1]
    assert isinstance(ended, types.WorkDoneProgressEnd) and ended.message == "cancelled"
    for _ in range(100):
        if not set(groups) & set(_process_groups()):
            break
        await asyncio.sleep(0.1)
    assert not set(groups) & set(_process_groups())
    # The server still answers.
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=found.range.start))
    assert hover.contents.value.startswith("**TCL007**")


def test_server_without_pygls_says_how_to_install_it():
    blocked = ("import sys; sys.modules['pygls'] = None; from torchcopylint.cli import main; "
               "main(['server'], prog_name='torchcopylint')")
    completed = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True, timeout=60)
    assert completed.returncode == 2
    assert "pip install 'torchcopylint[server]'" in completed.stderr


def test_only_the_server_package_imports_pygls():
    importing = [path.relative_to(REPOSITORY).as_posix() for path in (REPOSITORY / "torchcopylint").rglob("*.py")
                 if any(word in path.read_text(encoding="utf-8") for word in ("import pygls", "from pygls",
                                                                                 "from lsprotocol", "import lsprotocol"))]
    assert importing and all(path.startswith("torchcopylint/server/") for path in importing), importing
    # The command line (and the server package's entry) load without pygls being imported.
    probe = ("import sys, torchcopylint.cli, torchcopylint.server; "
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol')))")
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0 and completed.stdout.strip() == "[]", completed.stderr


def test_the_static_install_does_not_require_pygls_or_torch():
    import tomllib

    project = tomllib.loads((REPOSITORY / "pyproject.toml").read_text())["project"]
    required = " ".join(project["dependencies"]).lower()
    assert "pygls" not in required and "lsprotocol" not in required and "torch" not in required
    assert any(requirement.startswith("pygls") for requirement in project["optional-dependencies"]["server"])


def test_linter_honours_the_projects_exclusions_and_the_editors_settings(tmp_path: Path):
    from torchcopylint.server.linting import EditorSettings, Linter

    (tmp_path / "pyproject.toml").write_text('[tool.torchcopylint]\nextend-exclude = ["generated"]\n')
    (tmp_path / "generated").mkdir()
    linter = Linter()
    excluded = linter.lint("one", 1, tmp_path / "generated" / "snap.py", CLONE_DETACH, EditorSettings())
    assert excluded.diagnostics == () and "excluded" in excluded.note
    found = linter.lint("two", 1, tmp_path / "snap.py", CLONE_DETACH, EditorSettings())
    assert [d.code for d in found.diagnostics] == ["TCL005"]
    settings, problems = EditorSettings.from_client({"torchcopylint": {"select": "TCL00", "ignore": ["TCL005", "XYZ"],
                                                                        "verify": {"timeout": -1}, "colour": 1}})
    assert settings.select == ("TCL00",) and settings.ignore == ("TCL005",) and settings.verify_timeout == 20.0
    assert problems == ["`ignore`: unknown rule selector(s) XYZ", "`verify.timeout` must be a positive number of seconds",
                        "unknown setting `colour`"]
    assert linter.lint("two", 2, tmp_path / "snap.py", CLONE_DETACH, settings).diagnostics == ()


def _frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_shutdown_then_exit_ends_the_server_with_status_0(tmp_path: Path):
    """The protocol's own ending, byte for byte on stdio: `shutdown` is answered (result null),
    `exit` after it ends the process with status 0; `exit` without `shutdown` gives 1."""
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"processId": None, "rootUri": None, "capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    completed = subprocess.run([sys.executable, "-m", "torchcopylint", "server"], cwd=tmp_path,
                               input=b"".join(_frame(message) for message in messages),
                               capture_output=True, timeout=60)
    assert completed.returncode == 0, completed.stderr.decode(errors="replace")[-2000:]
    answers = {answer.get("id"): answer for answer in _unframe(completed.stdout)}
    assert "capabilities" in answers[1]["result"]
    assert answers[2] == {"jsonrpc": "2.0", "id": 2, "result": None}
    without_shutdown = [message for message in messages if message.get("method") != "shutdown"]
    completed = subprocess.run([sys.executable, "-m", "torchcopylint", "server"], cwd=tmp_path,
                               input=b"".join(_frame(message) for message in without_shutdown),
                               capture_output=True, timeout=60)
    assert completed.returncode == 1


def _unframe(stream: bytes) -> list:
    messages = []
    while stream:
        header, _, rest = stream.partition(b"\r\n\r\n")
        length = int(next(line.split(b":")[1] for line in header.split(b"\r\n")
                          if line.lower().startswith(b"content-length")))
        messages.append(json.loads(rest[:length]))
        stream = rest[length:]
    return messages
