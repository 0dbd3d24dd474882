"""What --verify is asked about, as the modules it runs: a file is itself; a notebook is the module
its code cells make, with the cells that do not parse left blank. A diagnosis whose code needs such
a cell cannot run: it is unverified, naming the cell. Verdicts of a notebook name its cells and
lines in their evidence (`cell 4, line 6`), not the module's.

The parent side, shared by the command line and the editor server; nothing here imports torch.
"""

from __future__ import annotations

import dataclasses
from typing import Optional, Sequence

from torchcopylint import notebook
from torchcopylint.diagnostic import Diagnostic, Verdict
from torchcopylint.fix import split_lines
from torchcopylint.verify import runner

# Names a cell that does not parse may be the only one to define, which notebooks nearly always bind
# one way: the numerical and torch modules are imported for real; plots and progress bars are the
# no-ops verify/noops.py gives a package used only for them (`tqdm(x)` hands back `x`).
_NO_OP = "from torchcopylint.verify.noops import cell_no_op as __tcl_cell_no_op__; {name} = __tcl_cell_no_op__({module!r})"
WELL_KNOWN_ALIASES = {
    "np": ("import numpy as np", "import numpy as np"),
    "pd": ("import pandas as pd", "import pandas as pd"),
    "torch": ("import torch", "import torch"),
    "nn": ("import torch.nn as nn", "import torch.nn as nn"),
    "F": ("import torch.nn.functional as F", "import torch.nn.functional as F"),
    "optim": ("import torch.optim as optim", "import torch.optim as optim"),
    "math": ("import math", "import math"),
    "random": ("import random", "import random"),
    "time": ("import time", "import time"),
    "plt": ("import matplotlib.pyplot as plt", _NO_OP.format(name="plt", module="matplotlib.pyplot")),
    "sns": ("import seaborn as sns", _NO_OP.format(name="sns", module="seaborn")),
    "tqdm": ("from tqdm import tqdm", _NO_OP.format(name="tqdm", module="tqdm.tqdm")),
    "trange": ("from tqdm import trange", _NO_OP.format(name="trange", module="tqdm.trange")),
}
NO_OP_ALIASES = frozenset({"plt", "sns", "tqdm", "trange"})


def verify_documents(diagnostics: list[Diagnostic], sources: dict[str, str],
                     options: runner.VerifyOptions, tree: Sequence[str] = ()) -> list[Diagnostic]:
    """`diagnostics` with their verdicts; `sources`: each file's text (a notebook's JSON); `tree`: every
    file linted, where the callers of a flagged file's functions are looked for."""
    sources = dict(sources)
    notebooks = {path: notebook.read(text) for path, text in sources.items() if notebook.is_notebook(path)}
    broken = {path: notebook.broken_cells(document) for path, document in notebooks.items()}
    sources.update((path, notebook.blanked(document, broken[path])) for path, document in notebooks.items())
    in_modules = [notebook.to_module(d, notebooks[d.path]) if d.path in notebooks else d for d in diagnostics]
    blocked = {}
    bound: dict = {}  # path -> cell number -> the statements binding well-known aliases in its place
    notes: dict = {}  # diagnostic index -> cell number -> the aliases bound there for it
    for index, diagnostic in enumerate(in_modules):
        if not broken.get(diagnostic.path) or diagnostic.code.startswith("TCL9"):
            continue
        while True:
            needed = notebook.needed_broken_cell(notebooks[diagnostic.path], broken[diagnostic.path],
                                                 sources[diagnostic.path], diagnostic.location.line)
            if needed is None:
                break
            number, name = needed
            cell_statements = bound.setdefault(diagnostic.path, {}).setdefault(number, {})
            if name not in WELL_KNOWN_ALIASES or name in cell_statements:
                blocked[index] = Verdict("unverified", f"needs cell {number}, which does not parse "
                                                       f"(`{name}` is defined there only)")
                break
            cell_statements[name] = WELL_KNOWN_ALIASES[name][1]
            sources[diagnostic.path] = _bind_in_cell(sources[diagnostic.path], notebooks[diagnostic.path], number,
                                                     cell_statements)
            notes.setdefault(index, {}).setdefault(number, []).append(name)
    runnable = [index for index in range(len(in_modules)) if index not in blocked]
    verified = dict(zip(runnable, runner.verify([in_modules[index] for index in runnable], sources, options,
                                                tree)))
    return [dataclasses.replace(d, verdict=blocked[index] if index in blocked
                                else _noted(_in_cells(verified[index].verdict, notebooks.get(d.path)),
                                            notes.get(index, [])))
            for index, d in enumerate(diagnostics)]


def _bind_in_cell(module: str, document, number: int, statements: dict) -> str:
    """The module with the broken cell's first line (left empty) binding the aliases: line numbers kept."""
    cell = document.cell_numbered(number)
    lines = split_lines(module)
    index = cell.first_line - 1
    ending = lines[index][len(lines[index].rstrip("\r\n")):] or "\n"
    lines[index] = "; ".join(statements.values()) + ending
    return "".join(lines)


def _noted(verdict: Optional[Verdict], notes: dict) -> Optional[Verdict]:
    """The verdict, saying which aliases were bound in place of which cells (cell number -> names)."""
    if verdict is None or not notes:
        return verdict
    said = []
    for number, names in sorted(notes.items()):
        shown = ", ".join(f"`{name}`" for name in names)
        usual = ", ".join(f"`{WELL_KNOWN_ALIASES[name][0]}`" + (" (a no-op here)" if name in NO_OP_ALIASES else "")
                          for name in names)
        said.append(f"{shown} {'is' if len(names) == 1 else 'are'} defined only in cell {number}, which does not "
                    f"parse: bound as notebooks bind {'it' if len(names) == 1 else 'them'}, {usual}")
    return dataclasses.replace(verdict, evidence=f"{verdict.evidence}; {'; '.join(said)}")


def _in_cells(verdict: Optional[Verdict], document) -> Optional[Verdict]:
    if verdict is None or document is None:
        return verdict
    return dataclasses.replace(verdict, evidence=notebook.lines_in_cells(verdict.evidence, document))
