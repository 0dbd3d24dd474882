"""Import the flagged file the way its project does, and run a snippet of it in that context.

A module inside a package (a chain of `__init__.py` folders) is known by its
dotted name, with the folder above the top package on `sys.path`, so its
relative imports resolve; a file in a plain folder is a script, whose own folder
is on `sys.path` (as `python script.py` puts it there), so `import utils` finds
the sibling. The project root (the nearest folder with pyproject.toml, setup.py,
setup.cfg or .git) and its `src/` come next, then the folders the configuration
names (`[tool.torchcopylint.verify] pythonpath`).

Runs in the verification child process; uses nothing but the standard library.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import importlib.util
import os
import re
import sys
import types
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
# Folders never searched for a project's own module: environments and build output.
SKIPPED = {"venv", "env", "site-packages", "node_modules", "build", "dist"}


@dataclass(frozen=True)
class ImportContext:
    """How the project imports one file."""

    package: Optional[str]  # the dotted package holding the file (its `__package__`); None for a script
    module_name: Optional[str]  # the file's own dotted name, when it is in a package
    search_path: tuple[str, ...]  # folders for sys.path, the first searched first


class MissingModule(Exception):
    """An import the code needs failed; the message says what is missing and why. `package` is
    the top-level name when it is a package that is not installed (nowhere on the import path
    nor in the project), None otherwise."""

    def __init__(self, message: str, package: Optional[str] = None, project_module: Optional[str] = None,
                 removed: Optional[tuple[str, Optional[str]]] = None, left_out: Optional[str] = None) -> None:
        super().__init__(message)
        self.package = package
        # The project's own file (or package folder) by the missing name, off the import path.
        self.project_module = project_module
        # (module, name) the installed version of a package no longer has (removed_from_installed).
        self.removed = removed
        # A module of one of the project's packages that the repository does not hold (left_out_module).
        self.left_out = left_out


def import_context(path: str, extra_paths: Sequence[str] = ()) -> ImportContext:
    path = os.path.abspath(path)
    folder = os.path.dirname(path)
    text = _head_of(path)
    packages: list[str] = []
    top = folder
    while os.path.isfile(os.path.join(top, "__init__.py")) and os.path.dirname(top) != top:
        packages.insert(0, os.path.basename(top))
        top = os.path.dirname(top)
    namespace = False
    if not packages:
        packages = _namespace_packages(text, folder)
        namespace = bool(packages)
        for _ in packages:
            top = os.path.dirname(top)
    stem = os.path.splitext(os.path.basename(path))[0]
    package = ".".join(packages) or None
    module_name = None
    if package is not None:
        module_name = package if stem == "__init__" else f"{package}.{stem}"
    # In a package, the folder above the top package comes first; the file's own folder is kept
    # last for the research layout where a folder has an __init__.py but its scripts import
    # their siblings absolutely (`import utils`), as they do when run as scripts.
    search = [top] if package is not None else [folder]
    root = project_root(folder)
    if root is not None:
        search += [root, os.path.join(root, "src")]
    search += [os.path.abspath(entry) for entry in extra_paths]
    search += _appended_folders(text, folder)
    search += _folders_above_providing(text, folder, root)
    if package is not None and not namespace:
        # (Not for a namespace package: a module of the folder named as the package would shadow it.)
        search.append(folder)
    unique = tuple(dict.fromkeys(entry for entry in search if os.path.isdir(entry)))
    return ImportContext(package, module_name, unique)


_ABSOLUTE_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+([A-Za-z_][\w.]*)[ \t]+import|import[ \t]+([A-Za-z_][\w.]*))", re.M)


def project_file(context: ImportContext, path: str, module: Optional[str], level: int = 0) -> Optional[str]:
    """The file of the project that `from <module> import ...` (with `level` dots) in `path` reads:
    a module or a package's `__init__.py` in one of the context's folders; None for an installed
    package or a module nowhere in them."""
    if level:
        base = os.path.dirname(os.path.abspath(path))
        for _ in range(level - 1):
            base = os.path.dirname(base)
        folders: Sequence[str] = (base,)
    else:
        folders = context.search_path
    parts = module.split(".") if module else []
    for folder in folders:
        stem = os.path.join(folder, *parts)
        candidates = (f"{stem}.py", os.path.join(stem, "__init__.py")) if parts else (os.path.join(stem, "__init__.py"),)
        found = next((file for file in candidates if os.path.isfile(file)), None)
        if found is not None:
            return found
    return None


def _head_of(path: str) -> str:
    """The file's text (its first 200,000 characters), read once for what its imports and `sys.path`
    edits say; "" when it cannot be read."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(200_000)
    except OSError:
        return ""


def _namespace_packages(text: str, folder: str) -> list[str]:
    """The folders (innermost last) a file without `__init__.py` sits in as a namespace package: those
    its own absolute imports name (`utils/utils_fit.py` importing `from utils.utils import get_lr` is
    run from the folder above `utils/`; with `utils/` itself on the path, `utils` would be the
    module `utils/utils.py` and `utils.utils` no module at all), or as many as its relative imports
    climb (`from .utils import get_lr`)."""
    trail = os.path.abspath(folder).split(os.sep)[1:]
    best: list[str] = []
    for match in _ABSOLUTE_IMPORT.finditer(text):
        parts = (match.group(1) or match.group(2)).split(".")[:-1]
        if match.group(1) and not os.path.isfile(os.path.join(folder, match.group(1).split(".")[-1] + ".py")):
            # `from utils import dcgan` in `utils/trainer.py`: the module named is the file's own folder
            # (no `utils.py` beside the file for it to be).
            parts = match.group(1).split(".")
        for count in range(len(parts), 0, -1):
            if count <= len(trail) and trail[-count:] == parts[:count] and count > len(best):
                best = parts[:count]
                break
    # `from .utils import get_lr`: only a package's module can import relatively, as deep as its dots say.
    dots = max((len(match.group(1)) for match in _RELATIVE_IMPORT.finditer(text)), default=0)
    if dots > len(best) and dots <= len(trail):
        best = trail[-dots:]
    return best


_PATH_APPEND = re.compile(r"""sys\.path\.(?:append|insert)\(\s*(?:-?\d+\s*,\s*)?[rRuU]?(['"])([^'"\n]+)\1\s*\)""")


def _appended_folders(text: str, folder: str) -> list[str]:
    """Folders the file puts on `sys.path` itself (`sys.path.append('utils')` before `from nets import *`),
    relative ones read from the file's folder, where the script is run from."""
    return [os.path.normpath(os.path.join(folder, match.group(2))) for match in _PATH_APPEND.finditer(text)]


_RELATIVE_IMPORT = re.compile(r"^[ \t]*from[ \t]+(\.+)", re.M)
MAX_LEVELS_UP = 3  # folders above the file searched for a module it imports


def _folders_above_providing(text: str, folder: str, root: Optional[str]) -> list[str]:
    """Folders above the file's own that hold a module its absolute imports name and its own folder
    does not: `net/solver.py`'s `from dataset import get_training_set`, with `dataset.py` beside the
    `train.py` that runs it (a research layout, run from the folder above). Not past the project root."""
    names = sorted({match.group(1) or match.group(2) for match in _ABSOLUTE_IMPORT.finditer(text)})
    above = list(_upwards(folder))[1:MAX_LEVELS_UP + 1]
    found: list[str] = []
    for name in names:
        if _provides(folder, name):
            continue
        for candidate in above:
            if _provides(candidate, name):
                found.append(candidate)
                break
            if candidate == root:
                break
    return found


def _provides(folder: str, dotted: str) -> bool:
    """Does the folder hold the top module of `dotted` (a file, or a package with its __init__.py), or,
    for `utils.utils`, a plain folder `utils` holding the module `utils` (a namespace package, as
    Python 3 imports a folder without an __init__.py)?"""
    name, _, rest = dotted.partition(".")
    if os.path.isfile(os.path.join(folder, f"{name}.py")) or os.path.isfile(os.path.join(folder, name, "__init__.py")):
        return True
    return bool(rest) and os.path.isdir(os.path.join(folder, name)) and _provides(os.path.join(folder, name), rest)


def module_names(path: str) -> frozenset:
    """The names other files import a file's functions from: its module, and its package when the
    package may re-export them (`from utils import save_image` for `utils/image_utils.py`)."""
    folder, file = os.path.split(os.path.abspath(path))
    stem = os.path.splitext(file)[0]
    names = {stem}
    if stem != "__init__" and os.path.isfile(os.path.join(folder, "__init__.py")):
        names.add(os.path.basename(folder))
    # Dotted, as the folders above spell them (`models.wgan_gp.trainer`, the package `models.wgan_gp`):
    # an import of a dotted module names this file only when its folders are these, not a sibling
    # project's module of the same stem (`models/dcgan/trainer.py`).
    above = [part for part in folder.split(os.sep) if part][-DOTTED_DEPTH:]
    for depth in range(1, len(above) + 1):
        names.add(".".join([*above[-depth:], stem]))
        if depth > 1 and stem != "__init__" and os.path.isfile(os.path.join(folder, "__init__.py")):
            names.add(".".join(above[-depth:]))
    return frozenset(names)


DOTTED_DEPTH = 4  # the folders a dotted import may name above a module


def file_of(cls: type) -> Optional[str]:
    """The file a class is defined in, where there is one."""
    module = sys.modules.get(cls.__module__)
    file = getattr(module, "__file__", None)
    return file if file and os.path.exists(file) else None


def of_the_project(cls: type) -> bool:
    """Defined by the flagged file or a module of its project, not by an installed library (whose
    `LightningModule` has a `training_step` too, but is not what the project's callers pass)."""
    file = file_of(cls)
    return file is None or not any(part in ("site-packages", "dist-packages") for part in file.split(os.sep))


def project_root(folder: str) -> Optional[str]:
    for candidate in _upwards(folder):
        if any(os.path.exists(os.path.join(candidate, marker)) for marker in PROJECT_MARKERS):
            return candidate
    return None


def _upwards(folder: str):
    current = os.path.abspath(folder)
    while True:
        yield current
        parent = os.path.dirname(current)
        if parent == current:
            return
        current = parent


def enter(context: ImportContext) -> None:
    """Put the context's folders on sys.path, in its order, ahead of what is there."""
    for entry in reversed(context.search_path):
        if entry in sys.path:
            sys.path.remove(entry)
        sys.path.insert(0, entry)


def fresh_module(context: ImportContext, path: str, serial: int) -> types.ModuleType:
    """An empty module to execute a snippet of `path` in, with `__package__` set so relative
    imports resolve. Its name is unique (in the file's package): the real module, if some
    import brings it in, keeps its own entry in sys.modules."""
    if context.package is not None:
        parts = context.package.split(".")
        try:
            # The __init__.py chain runs from the top, as in the project. Each level is asked for
            # in turn: a subpackage left in sys.modules by an earlier failed import of its parent
            # must not make the second attempt look like a success.
            for depth in range(1, len(parts) + 1):
                importlib.import_module(".".join(parts[:depth]))
        except ImportError as error:
            raise _missing(error, path) from error
    stem = os.path.splitext(os.path.basename(path))[0]
    local = f"__torchcopylint_snippet_{serial}_{stem}"
    name = f"{context.package}.{local}" if context.package else local
    module = types.ModuleType(name)
    module.__file__ = path
    module.__package__ = context.package or ""
    sys.modules[name] = module  # dataclasses and pickling look modules up by name
    return module


def relative_depth(text: str) -> int:
    """How many package levels the snippet's relative imports climb (`from ..x import y`: 2)."""
    return max((node.level for node in ast.walk(ast.parse(text)) if isinstance(node, ast.ImportFrom)), default=0)


def as_namespace_package(context: ImportContext, path: str, levels: int) -> ImportContext:
    """A file without `__init__.py` above it whose code imports relatively: its folders form a
    namespace package (PEP 420), imported from the folder `levels` up, as `models.net`."""
    folders = os.path.dirname(os.path.abspath(path)).split(os.sep)
    if levels >= len(folders) - 1:
        return context
    package = ".".join(folders[len(folders) - levels:])
    top = os.sep.join(folders[:len(folders) - levels]) or os.sep
    return dataclasses.replace(context, package=package, module_name=f"{package}.{os.path.splitext(os.path.basename(path))[0]}",
                               search_path=(top, *context.search_path))


def outside_package(context: ImportContext) -> ImportContext:
    """The same file run as a script: for a snippet that needs nothing of a package that cannot
    be imported (its __init__.py needs what is not installed)."""
    return dataclasses.replace(context, package=None, module_name=None)


def needs_package(text: str, package: str) -> bool:
    """Whether snippet text imports from its own package: relatively, or by the package's name."""
    top = package.split(".")[0]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").split(".")[0] == top):
            return True
        if isinstance(node, ast.Import) and any(alias.name.split(".")[0] == top for alias in node.names):
            return True
    return False


def execute(code, module: types.ModuleType) -> None:
    """Run compiled snippet code in `module`; an import that fails becomes MissingModule."""
    try:
        exec(code, module.__dict__)
    except ImportError as error:
        raise _missing(error, module.__file__) from error


def _missing(error: ImportError, path: str) -> MissingModule:
    top = _unimportable_top_level(error)
    found = _find_in_project(_project_or_folder(path), top, _submodules_asked(error, top)) if top is not None else None
    return MissingModule(describe_failure(error, path), absent_package(error, path), found,
                         removed_from_installed(error, path), left_out_module(error, path))


def left_out_module(error: ImportError, path: str) -> Optional[str]:
    """`CLB_pack.models`, where the project's package `CLB_pack` imports and holds no `models`: a module
    the repository left out (its authors did not commit it), which no import path can supply."""
    missing = getattr(error, "name", None) if isinstance(error, ModuleNotFoundError) else None
    parent, _, last = (missing or "").rpartition(".")
    package = sys.modules.get(parent)
    folders = list(getattr(package, "__path__", None) or ()) if package is not None else []
    if not folders or any(_installed(folder) for folder in folders):
        return None  # no package, or one installed: its missing module is an installation's matter
    return None if any(_holds_module(folder, last) for folder in folders) else missing


REMOVED_NAME = re.compile(r"^cannot import name '(\w+)' from '([\w.]+)'")


def removed_from_installed(error: ImportError, path: str) -> Optional[tuple[str, Optional[str]]]:
    """(module, name) where a file of the project imports a name that an installed module no longer has
    (`from scipy.optimize.optimize import _status_message`); (module, None) for a submodule an installed
    package no longer has (`from torch._six import string_classes`): code written for an older version.
    None for anything else (a package that is not installed, a name of the project's own)."""
    importer = importer_of(error)
    if importer is None or _installed(importer):
        return None
    if isinstance(error, ModuleNotFoundError):
        module = getattr(error, "name", None) or ""
        top, _, rest = module.partition(".")
        if not rest or _find_in_project(_project_or_folder(path), top) is not None:
            return None
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            return None
        return (module, None) if spec is not None and spec.origin and _installed(spec.origin) else None
    match = REMOVED_NAME.match(str(error))
    if match is None:
        return None
    name, module = match.groups()
    origin = getattr(sys.modules.get(module), "__file__", None)
    return (module, name) if origin and _installed(origin) else None


def _installed(filename: str) -> bool:
    """Is the file (or folder) one of the environment's (an installed package, the standard library), not
    the project's?"""
    filename = os.path.abspath(filename)
    return any(filename.startswith(os.path.abspath(prefix) + os.sep) for prefix in {sys.prefix, sys.base_prefix}) \
        or any(part in ("site-packages", "dist-packages") for part in filename.split(os.sep))


def project_relative(found: str, path: str) -> str:
    """A file of the project (a module `_find_in_project` found for `path`'s import), as the project names it."""
    return os.path.relpath(found, _project_or_folder(path))


def absent_package(error: ImportError, path: str) -> Optional[str]:
    """The top-level package whose absence made the import fail: not importable from anywhere,
    and no module of the project by that name (that would be an import-path problem instead)."""
    top = _unimportable_top_level(error)
    if top is None or _find_in_project(_project_or_folder(path), top) is not None:
        return None
    return top


def describe_failure(error: ImportError, path: str) -> str:
    """Why an import failed, in the user's terms: a package that is not installed is named; a
    module of the project that is not on the import path is pointed at."""
    top = _unimportable_top_level(error)
    if top is not None:
        root = _project_or_folder(path)
        found = _find_in_project(root, top)
        if found is None:
            by = importer_name(importer_of(error), path)
            return f"needs `{top}`{f' (imported by {by})' if by else ''}, which is not installed"
        return (f"could not import `{top}`: the project has it ({project_relative(found, path)}), but not on "
                f"the import path; name its folder in `[tool.torchcopylint.verify] pythonpath`")
    by = importer_name(importer_of(error), path)
    return f"could not import what the code needs: {error}{f' (in {by})' if by else ''}"



def describe_error(error: BaseException, path: str) -> str:
    """One line for an error that stopped an experiment; a project module that does not parse on
    this Python (written for a newer one: a `type` alias, PEP 695 generics) is named with its line."""
    if isinstance(error, SyntaxError) and error.filename and os.path.isfile(error.filename):
        statement = (error.text or "").strip()
        return (f"{project_relative(error.filename, path)} line {error.lineno} does not parse on this Python "
                f"({sys.version_info.major}.{sys.version_info.minor}: {error.msg}"
                + (f" at `{statement[:80]}`" if statement else "") + "); it may need a newer one")
    text = str(error)
    return f"{type(error).__name__}: {text.splitlines()[0][:200] if text else ''}"

# Modules of installed packages that only wrap another package and refuse to import without it, with
# a message of their own (`from torch.utils.tensorboard import SummaryWriter` with no tensorboard):
# the wrapped package is what is missing.
WRAPPERS = {"torch.utils.tensorboard": "tensorboard"}


def _unimportable_top_level(error: ImportError) -> Optional[str]:
    """The top-level name a ModuleNotFoundError is about, when nothing by that name can be found;
    the package a wrapper of WRAPPERS failed without."""
    cause = error.__cause__
    if not isinstance(error, ModuleNotFoundError) and isinstance(cause, ModuleNotFoundError):
        # `except ImportError as e: raise ImportError("torchvision is required ...") from e`: the
        # message is the project's, the missing package the one it was raised from.
        error = cause
    missing = getattr(error, "name", None)
    if not isinstance(error, ModuleNotFoundError):
        missing = next((wrapped for wrapper, wrapped in WRAPPERS.items() if _raised_in(error, wrapper)), None)
    elif not missing:
        return None
    if not missing:
        return None
    top, _, rest = missing.partition(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None  # something by that name is there, but it does not import
    if spec is not None and spec.origin in (None, "namespace") and rest and \
            not any(_holds_module(folder, rest.split(".")[0]) for folder in spec.submodule_search_locations or ()):
        # A folder of the project named as the package (`azureml/train.py`, which imports
        # `azureml.core`) is found as a namespace package; it holds nothing the import asks for.
        return top
    return None if spec is not None else top


class OtherCaseFinder:
    """Finds a module of the project whose file is spelled in other letter case than the import
    (`from ResNet import ResNet` of `resnet.py`): the project was written where the file system
    does not tell case apart (macOS, Windows), and imports there. Asked last, after the import
    system found nothing, and only in the project's folders; `note` says each one it found."""

    def __init__(self, root: str, note) -> None:
        self.root = os.path.abspath(root)
        self.note = note

    def find_spec(self, name: str, path=None, target=None):
        last = name.rpartition(".")[2]
        folders = list(path) if path is not None else [entry or os.getcwd() for entry in sys.path]
        for folder in folders:
            folder = os.path.abspath(folder)
            if not (folder == self.root or folder.startswith(self.root + os.sep)) or not os.path.isdir(folder):
                continue
            for entry in sorted(os.listdir(folder)):
                stem = entry.removesuffix(".py") if entry.endswith(".py") else entry
                if stem == last or stem.lower() != last.lower():
                    continue
                found = os.path.join(folder, entry)
                if entry.endswith(".py") and os.path.isfile(found):
                    spec = importlib.util.spec_from_file_location(name, found)
                elif os.path.isfile(os.path.join(found, "__init__.py")):
                    spec = importlib.util.spec_from_file_location(name, os.path.join(found, "__init__.py"),
                                                                  submodule_search_locations=[found])
                else:
                    continue
                self.note(f"`{name}` was imported from {os.path.relpath(found, self.root)}, spelled in other "
                          f"letter case: the project was written where file names do not tell case apart")
                return spec
        return None


def _holds_module(folder: str, name: str) -> bool:
    return os.path.isfile(os.path.join(folder, f"{name}.py")) or os.path.isdir(os.path.join(folder, name))


def _project_or_folder(path: str) -> str:
    folder = os.path.dirname(os.path.abspath(path))
    return project_root(folder) or folder


def _submodules_asked(error: ImportError, top: str) -> frozenset[str]:
    """The submodules of `top` that the file whose import failed asks for (`from util.dataloader import
    Datasets`: `dataloader`), read from that file; empty where it cannot be read (a notebook)."""
    trace = error.__traceback__
    while trace is not None and trace.tb_next is not None:
        trace = trace.tb_next
    filename = trace.tb_frame.f_code.co_filename if trace is not None else ""
    if not filename.endswith(".py"):
        return frozenset()
    try:
        with open(filename, encoding="utf-8") as file:
            tree = ast.parse(file.read())
    except (OSError, SyntaxError, ValueError):
        return frozenset()
    asked = set()
    for node in ast.walk(tree):
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else \
            [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
        asked.update(name.split(".")[1] for name in names if name.startswith(f"{top}."))
    return frozenset(asked)


def _find_in_project(root: str, name: str, submodules: frozenset[str] = frozenset(), depth: int = 3) -> Optional[str]:
    """`name.py` or a `name/` package within `depth` folders of the project root, the nearest to it
    first. Where the code asks for submodules of it, a folder holding them comes first, with or without
    an `__init__.py`: of the project's `util/` and its other folders' `util.py`, `from util.dataloader
    import Datasets` means the folder."""
    if submodules:
        holding = _nearest_in_project(root, name, depth, lambda entry: entry.is_dir() and all(
            _holds_module(entry.path, submodule) for submodule in submodules))
        if holding is not None:
            return holding
    return _nearest_in_project(root, name, depth, lambda entry: entry.is_file() or os.path.isfile(
        os.path.join(entry.path, "__init__.py")))


def _nearest_in_project(root: str, name: str, depth: int, accept: Callable[[os.DirEntry], bool]) -> Optional[str]:
    pending = [(root, 0)]
    while pending:
        folder, level = pending.pop(0)
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            if entry.name in (f"{name}.py", name) and accept(entry):
                return entry.path
        if level < depth:
            pending.extend((entry.path, level + 1) for entry in entries
                           if entry.is_dir() and not entry.name.startswith((".", "__")) and entry.name not in SKIPPED)
    return None


def importer_name(importer: Optional[str], home: Optional[str]) -> Optional[str]:
    """How the evidence names the file that imported a missing package: as its import path has it
    (`utils.py` beside a script, `pkg/__init__.py`, `torchvision/io/image.py`), from the deepest
    folder of sys.path holding it; None for the flagged file itself (or unknown)."""
    if importer is None or home is None or importer.startswith("<") or \
            os.path.abspath(importer) == os.path.abspath(home):
        return None
    importer = os.path.abspath(importer)
    folders = [os.path.abspath(entry or os.getcwd()) for entry in sys.path if isinstance(entry, str)]
    holding = [folder for folder in folders if importer.startswith(folder.rstrip(os.sep) + os.sep)]
    holding.append(os.path.dirname(os.path.abspath(home)))  # off the import path: beside the flagged file
    for folder in sorted(holding, key=len, reverse=True):
        relative = os.path.relpath(importer, folder)
        if not relative.startswith(".."):
            return relative.replace(os.sep, "/")
    return importer


def _raised_in(error: BaseException, module: str) -> bool:
    """Did `error` come out of the `__init__.py` of the package `module` (its last frame)?"""
    trace, last = error.__traceback__, None
    while trace is not None:
        last, trace = trace.tb_frame.f_code.co_filename, trace.tb_next
    return last is not None and os.path.abspath(last).endswith(os.path.join(*module.split("."), "__init__.py"))


def importer_of(error: BaseException) -> Optional[str]:
    """The file whose import statement raised `error`: the last frame of its traceback outside the
    import system (`utils.py` for `import PIL` inside a sibling the flagged file imports)."""
    found = None
    traceback = error.__traceback__
    while traceback is not None:
        filename = traceback.tb_frame.f_code.co_filename
        if not in_import_system(filename):
            found = filename
        traceback = traceback.tb_next
    return found


_IMPORTLIB_FOLDER = os.path.dirname(os.path.abspath(importlib.__file__))


def in_import_system(filename: str) -> bool:
    """Whether a frame's file is Python's import machinery (frozen or importlib's own)."""
    return filename.startswith("<frozen ") or os.path.abspath(filename).startswith(_IMPORTLIB_FOLDER + os.sep)
