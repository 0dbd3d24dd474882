"""`torchcopylint server`: the Language Server Protocol on stdio, for editors.

The server needs pygls (the `server` extra: `pip install 'torchcopylint[server]'`); nothing
outside this package imports it, so the command line and the pre-commit hook stay small.
"""

from __future__ import annotations

import importlib.util

INSTALL_HINT = (
    "the editor server needs pygls, which is not installed; install it with "
    "`pip install 'torchcopylint[server]'`"
)


def missing_requirement() -> bool:
    return importlib.util.find_spec("pygls") is None or importlib.util.find_spec("lsprotocol") is None


def run() -> None:
    """Serve one editor over stdin/stdout until it says exit."""
    from torchcopylint.server.app import serve

    serve()
