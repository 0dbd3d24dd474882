"""torchcopylint: find mistakes in how PyTorch tensors are copied, detached and written in place."""

__version__ = "0.1.0"


def drop_working_directory_from_path() -> None:
    """For `python -m torchcopylint` (and the verifier's child, started so): Python puts the working
    directory first on the import path, and a project linted from its root may hold a module named as
    one of Python's own (`multiprocessing.py`), which would shadow it there. Nothing imports from the
    working directory by that entry (this package is imported already; the verifier enters each
    project's import path itself), so it goes, as with `python -P`."""
    import os
    import sys

    if sys.path and os.path.abspath(sys.path[0] or os.curdir) == os.getcwd():
        del sys.path[0]
