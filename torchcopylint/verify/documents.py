"""What --verify is asked about, as the modules it runs: a file is itself; a notebook is the module
its code cells make, with the cells that do not parse left blank. A diagnosis whose code needs such
a cell cannot run: it is unverified, naming the cell. Verdicts of a notebook name its cells and
lines in their evidence (`cell 4, line 6`), not the module's.

The parent side, shared by the command line and the editor server; nothing here imports torch.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

from torchcopylint import notebook
from torchcopylint.diagnostic import Diagnostic, Verdict
from torchcopylint.verify import runner


def verify_documents(diagnostics: list[Diagnostic], sources: dict[str, str],
                     options: runner.VerifyOptions) -> list[Diagnostic]:
    """`diagnostics` with their verdicts; `sources`: each file's text (a notebook's JSON)."""
    sources = dict(sources)
    notebooks = {path: notebook.read(text) for path, text in sources.items() if notebook.is_notebook(path)}
    broken = {path: notebook.broken_cells(document) for path, document in notebooks.items()}
    sources.update((path, notebook.blanked(document, broken[path])) for path, document in notebooks.items())
    in_modules = [notebook.to_module(d, notebooks[d.path]) if d.path in notebooks else d for d in diagnostics]
    blocked = {}
    for index, diagnostic in enumerate(in_modules):
        needed = notebook.needed_broken_cell(notebooks[diagnostic.path], broken[diagnostic.path],
                                             sources[diagnostic.path], diagnostic.location.line) \
            if broken.get(diagnostic.path) and not diagnostic.code.startswith("TCL9") else None
        if needed is not None:
            blocked[index] = Verdict("unverified", f"needs cell {needed[0]}, which does not parse "
                                                   f"(`{needed[1]}` is defined there only)")
    runnable = [index for index in range(len(in_modules)) if index not in blocked]
    verified = dict(zip(runnable, runner.verify([in_modules[index] for index in runnable], sources, options)))
    return [dataclasses.replace(d, verdict=blocked[index] if index in blocked
                                else _in_cells(verified[index].verdict, notebooks.get(d.path)))
            for index, d in enumerate(diagnostics)]


def _in_cells(verdict: Optional[Verdict], document) -> Optional[Verdict]:
    if verdict is None or document is None:
        return verdict
    return dataclasses.replace(verdict, evidence=notebook.lines_in_cells(verdict.evidence, document))
