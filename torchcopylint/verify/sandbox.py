"""No data, no network, no writes: what the verification child lets the user's code do.

Runs in the verification child process, installed once before any experiment.
Datasets are stood in before they run (verify/datasites.py); this is the net
under that:

- the network is blocked: a socket connection, a server's bind or a name lookup raises OSError,
  so nothing is downloaded (a `download=True` the rewrite missed fails instead);
- `os.chdir` to a folder that is not here (the author's `~/Projects/...`) leaves the run where it is;
- a file of the user's project that is not code (a `.npy`, a checkpoint, a CSV)
  cannot be read: opening it raises `UserDataRead`; an image file (`Image.open("content.jpg")`,
  present or not) opens a PNG of random pixels instead (verify/images.py), and a text
  file read as text (`open("shakespeare_train.txt")`, a character model's corpus) gives
  made-up words, and MNIST's files in LeCun's format (`train-images.idx3-ubyte`, read by
  hand with `struct`) made-up images and labels;
  configuration text (`.json`, `.yaml`, `.toml`, `.cfg`, `.ini`) and a package's own
  metadata (`VERSION`, `README.md`, `requirements.txt`: a package may read them at import)
  can be, and a relative one the working folder lacks is read from the flagged file's folder
  (`open("config.yml")` of a script run from its own folder);
- a folder of the project that is not here (the author's dataset folder, `os.listdir("data/celeba")`,
  `glob.glob("data/train/*.jpg")`), one of the author's machine (an absolute path that is not
  on this one, the dataset folder of its author's home), or one beside the project that is not here
  (`os.listdir("../data/anime_faces")`), lists a few image files, which then open as
  random pixels: a script that reads its images one by one at its top level runs on those;
- a command that installs packages or fetches files (`subprocess.check_call(["pip", "install", name])`
  in a helper's `except ImportError:`, `os.system("wget " + url)`) does not run and reports success:
  the environment is never changed and nothing is downloaded, and a package the code then imports
  and still lacks gets its stand-in as any missing package does;
- writes into the project go nowhere: `open(..., "w")` (also a `logging` file
  handler's) returns an in-memory file, and `os.makedirs` and `os.chmod` do
  nothing there, so no image, checkpoint or log appears;
  nor do writes elsewhere on the user's disk (a log under an absolute path of
  the author's machine), except in the temporary folder, caches, the Python
  installation and the hidden folders of the home folder (`~/.art`), where
  libraries keep their own files.

Each of these is recorded, for the evidence of the diagnosis being verified.
"""

from __future__ import annotations

import builtins
import functools
import glob
import io
import logging
import os
import random
import re
import shlex
import socket
import subprocess
import sys
import tempfile
from typing import Optional

from torchcopylint.verify import images

CODE_SUFFIXES = (".py", ".pyi", ".pyc", ".pth", ".so", ".pyd")
CONFIGURATION_SUFFIXES = (".json", ".yaml", ".yml", ".toml", ".cfg", ".ini", ".md", ".rst")
# Files a package reads about itself at import (advertorch reads its `VERSION`): not data.
PACKAGE_METADATA = frozenset({"version", "version.txt", "readme", "readme.txt", "license", "license.txt",
                              "requirements.txt"})
NETWORK_ERROR = "--verify blocks network access: nothing is downloaded"


class UserDataRead(PermissionError):
    """The code opened a data file of the user's project: verification never reads the user's data."""


class _State:
    root: Optional[str] = None
    code_path: Optional[str] = None
    events: list = []
    # What the diagnosis's run wrote to memory, by path: read back by the same run (a training log it
    # plots with `pd.read_csv`), as from the file it would have written.
    written: dict = {}


class _MemoryFile:
    """An in-memory file that keeps what was written to it under its path when it is closed or flushed."""

    def __init__(self, path: str, binary: bool, start) -> None:
        self._path = path
        self._file = io.BytesIO(start) if binary else io.StringIO(start)
        self._file.seek(0, io.SEEK_END)

    def _keep(self) -> None:
        _state.written[self._path] = self._file.getvalue()

    def flush(self) -> None:
        self._keep()

    def close(self) -> None:
        if not self._file.closed:
            self._keep()
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> bool:
        self.close()
        return False

    def __iter__(self):
        return iter(self._file)

    def __getattr__(self, name: str):
        return getattr(self._file, name)


_state = _State()
_original_open = builtins.open
_original_makedirs = os.makedirs
_original_mkdir = os.mkdir
_original_chmod = os.chmod
_original_chdir = os.chdir
_original_listdir = os.listdir
_original_glob = glob.glob
_original_system = os.system
_original_subprocess = {name: getattr(subprocess, name) for name in ("run", "call", "check_call", "check_output")}
# How many image files a missing folder of the project lists (`os.listdir`, `glob.glob`): a few
# batches' worth for a script that reads them one by one.
STAND_IN_FILES = 4


def install(project_root: str, code_path: str) -> None:
    """Guard the process: `project_root` is the user's project (its code may be read, nothing else)."""
    _state.root = os.path.realpath(project_root)
    _state.code_path = os.path.realpath(code_path)
    if builtins.open is _guarded_open:
        return
    builtins.open = _guarded_open
    io.open = _guarded_open
    # `logging.basicConfig(filename=...)`: the file handler keeps the `open` it was defined with.
    logging.FileHandler._builtin_open = staticmethod(_guarded_open)
    os.makedirs = _guarded_makedirs
    os.mkdir = _guarded_mkdir
    os.chmod = _guarded_chmod  # `shutil.copy(src, dst)` sets the mode of the copy it wrote (to memory)
    os.listdir = _guarded_listdir
    glob.glob = _guarded_glob
    os.chdir = _guarded_chdir
    os.system = _guarded_system
    for name, original in _original_subprocess.items():
        setattr(subprocess, name, _guarded_subprocess(name, original))
    socket.socket.connect = _refuse_network
    socket.socket.connect_ex = _refuse_network
    # A server the script starts at its top level (`server.bind((HOST, PORT)); server.listen()`) would
    # wait for clients for ever, or take a port of this machine.
    socket.socket.bind = _refuse_network
    socket.create_connection = _refuse_network
    socket.getaddrinfo = _refuse_network


def begin() -> None:
    """A new diagnosis: forget what the previous one did."""
    _state.events = []
    _state.written = {}


def new_run() -> None:
    """A new run of the code (as written, or as fixed): what an earlier run wrote is not there for it."""
    _state.written = {}


def keep_written(path, data: bytes) -> None:
    """What a writer other than `open` (`torch.save`) wrote to memory for `path`, for this run to read back."""
    _state.written[_real(path)] = data


def read_back(path) -> Optional[bytes]:
    """What this run wrote to memory for `path` (a checkpoint it saved, then loads), said; None if nothing."""
    kept = _state.written.get(_real(path))
    if not isinstance(kept, bytes):
        return None
    _state.events.append(f"{in_project(path) or _real(path)}, which the run saved to memory, was read back from there")
    return kept


def events() -> list[str]:
    return list(dict.fromkeys(_state.events))


def record(event: str) -> None:
    """What a stand-in did instead of reading the user's data (`read_image` of a missing torchvision)."""
    _state.events.append(event)


def _refuse_network(*args, **kwargs):
    _state.events.append("a network connection was refused")
    raise OSError(NETWORK_ERROR)


# Programs that install packages, with the word that makes them install; and programs that fetch files.
INSTALLERS = {"pip": "install", "pip3": "install", "conda": "install", "mamba": "install", "apt": "install",
              "apt-get": "install", "brew": "install", "git": "clone", "kaggle": "download"}
DOWNLOADERS = frozenset({"wget", "curl", "gdown", "aria2c"})


def installs_or_fetches(command) -> Optional[str]:
    """The part of a shell command (a string, or an argument list) that installs packages or fetches
    files (`pip install -q torchmetrics`, `python -m pip install x`, `wget url`), or None."""
    if isinstance(command, (str, bytes)):
        text = command.decode(errors="replace") if isinstance(command, bytes) else command
        parts = re.split(r"&&|\|\||;|\|", text)
    else:
        parts = [command]
    for part in parts:
        try:
            words = shlex.split(part) if isinstance(part, str) else [os.fspath(word) for word in part]
        except (ValueError, TypeError):
            continue
        words = [word if isinstance(word, str) else word.decode(errors="replace") for word in words]
        if words[:1] == ["sudo"]:
            words = words[1:]
        if len(words) >= 3 and re.fullmatch(r"python[\d.]*", os.path.basename(words[0])) and words[1] == "-m":
            words = words[2:]  # `python -m pip install x`, `sys.executable -m pip ...`
        if not words:
            continue
        program = os.path.basename(words[0])
        if program in DOWNLOADERS or INSTALLERS.get(program) in words[1:]:
            return " ".join(words)
    return None


def _skipped(command) -> bool:
    what = installs_or_fetches(command)
    if what is not None:
        _state.events.append(f"`{what}` was not run: verification never installs packages nor downloads")
    return what is not None


def _guarded_system(command):
    return 0 if _skipped(command) else _original_system(command)


def _guarded_subprocess(name: str, original):
    def guarded(*args, **kwargs):
        command = args[0] if args else kwargs.get("args")
        if not _skipped(command):
            return original(*args, **kwargs)
        text = kwargs.get("text") or kwargs.get("universal_newlines") or kwargs.get("encoding")
        empty = "" if text else b""
        if name == "run":
            return subprocess.CompletedProcess(command, 0, stdout=empty if kwargs.get("capture_output") or
                                               kwargs.get("stdout") is not None else None)
        return empty if name == "check_output" else 0
    return guarded


def _real(path) -> Optional[str]:
    """The path resolved, once the sandbox is installed; None for a file descriptor or a non-path."""
    if _state.root is None or isinstance(path, int):
        return None
    try:
        return os.path.realpath(os.fspath(path))
    except (TypeError, ValueError):
        return None


def in_project(path) -> Optional[str]:
    """The path relative to the project, when it is inside it (and not in an installed environment)."""
    real = _real(path)
    if real is None or not real.startswith(_state.root + os.sep) or "site-packages" in real \
            or real.startswith(sys.prefix):
        return None
    return os.path.relpath(real, _state.root)


def _elsewhere_on_disk(path) -> Optional[str]:
    """A path outside the project where a write would land on the user's disk (a log under
    `/media/...`, results in the home folder): not the temporary folder, nor a cache or the Python
    installation, where libraries keep their own files."""
    real = _real(path)
    if real is None:
        return None
    kept = (os.path.realpath(tempfile.gettempdir()), os.path.realpath(sys.prefix),
            os.path.realpath(os.path.expanduser("~/.cache")), "/dev", "/proc")
    if any(real == root or real.startswith(root + os.sep) for root in kept) or "site-packages" in real:
        return None
    home = os.path.realpath(os.path.expanduser("~"))
    if real.startswith(home + os.sep) and os.path.relpath(real, home).startswith("."):
        return None  # a library's own folder in the home folder (`~/.art/data`, `~/.keras`), made at import
    return real


def write_goes_to_memory(path) -> bool:
    """Would a write to `path` land in the project or elsewhere on the user's disk? Then it goes to
    memory, and the evidence says so (also for writers that do not use `open`: `torch.save`)."""
    where = in_project(path) or _elsewhere_on_disk(path)
    if where is None:
        return False
    _state.events.append(f"writes to {where} went to memory")
    return True


def _guarded_open(file, mode="r", *args, **kwargs):
    if any(flag in mode for flag in "wax+"):
        if write_goes_to_memory(file):
            binary = "b" in mode
            real = _real(file)
            kept = _state.written.get(real, b"" if binary else "") if "a" in mode or "+" in mode else None
            start = kept if isinstance(kept, (bytes if binary else str)) else (b"" if binary else "")
            return _MemoryFile(real, binary, start)
        return _original_open(file, mode, *args, **kwargs)
    if _real(file) in _state.written:  # written by this run, to memory: what it wrote
        kept = _state.written[_real(file)]
        if "b" in mode:
            return io.BytesIO(kept if isinstance(kept, bytes) else kept.encode())
        return io.StringIO(kept if isinstance(kept, str) else kept.decode(errors="replace"))
    file = _configuration_beside_the_code(file)
    relative = _in_project_or_beside_the_code(file)
    if relative is None and _of_another_machine(file) is not None and _stands_in_for(file):
        relative = os.fspath(file)  # an image or a corpus of a folder of the author's machine
    if relative is None:
        return _original_open(file, mode, *args, **kwargs)
    real = os.path.realpath(os.fspath(file))
    if real == _state.code_path or real.endswith(CODE_SUFFIXES + CONFIGURATION_SUFFIXES) \
            or os.path.basename(real).lower() in PACKAGE_METADATA:
        return _original_open(file, mode, *args, **kwargs)
    if real.lower().endswith(images.IMAGE_SUFFIXES) and "b" in mode:
        # A photograph the code loads (a style-transfer notebook's content image): random pixels stand in.
        _state.events.append(f"the image {relative} was read as {images.PHOTO_SIZE[1]}x{images.PHOTO_SIZE[2]} "
                             f"random pixels")
        return _original_open(images.random_image(*images.PHOTO_SIZE), "rb")
    if images.MNIST_IDX.search(os.path.basename(real)) and "b" in mode:
        # MNIST read by hand from LeCun's files (`struct.unpack(">IIII", f.read(16))`): a made-up file.
        _state.events.append(f"the MNIST file {relative} was read as {images.mnist_idx_said(real)}")
        return io.BytesIO(images.mnist_idx(real))
    if real.lower().endswith(TEXT_SUFFIXES) and "b" not in mode:
        # A corpus a character or word model trains on (a course's `shakespeare_train.txt`): made-up text;
        # a list of names or words (makemore's `names.txt`, whose 26 letters and "." a model's table of 27
        # rows reads), one lowercase word a line.
        if WORD_LIST.search(os.path.basename(real)):
            text = made_up_word_list()
            _state.events.append(f"the word list {relative} was read as {text.count(chr(10)):,} made-up lowercase "
                                 f"words, one a line")
        else:
            text = made_up_text()
            _state.events.append(f"the text file {relative} was read as {len(text):,} characters of made-up words")
        return io.StringIO(text)
    _state.events.append(f"the code tried to read {relative}")
    raise UserDataRead(f"--verify never reads the user's data: the code opened {relative}")


TEXT_SUFFIXES = (".txt", ".text")


def _stands_in_for(path) -> bool:
    """Is the file one of those a made-up one stands in for: an image, a text, one of MNIST's files?"""
    name = os.fspath(path).lower()
    return name.endswith(images.IMAGE_SUFFIXES + TEXT_SUFFIXES) or images.MNIST_IDX.search(name) is not None


# Common English words, of which made-up text is strung.
WORDS = ("the", "of", "and", "to", "in", "a", "that", "is", "was", "he", "for", "it", "with", "as", "his", "on",
         "be", "at", "by", "i", "this", "had", "not", "are", "but", "from", "or", "have", "an", "they", "which",
         "one", "you", "were", "her", "all", "she", "there", "would", "their", "we", "him", "been", "has", "when")


# A text file's name that says it lists names or words, one a line.
WORD_LIST = re.compile(r"(?i)names?|words?|vocab")


@functools.lru_cache(maxsize=1)
def made_up_word_list(count: int = 2_000) -> str:
    """Common lowercase words, one a line, the same on every run."""
    draw = random.Random(0)
    return "\n".join(draw.choice(WORDS) for _ in range(count)) + "\n"


@functools.lru_cache(maxsize=1)
def made_up_text(characters: int = 20_000) -> str:
    """Lines of common lowercase words and punctuation, the same on every run."""
    draw = random.Random(0)
    lines, length = [], 0
    while length < characters:
        line = " ".join(draw.choice(WORDS) for _ in range(draw.randint(4, 12))).capitalize() + draw.choice(".,;?!")
        lines.append(line)
        length += len(line) + 1
    return "\n".join(lines) + "\n"


def _configuration_beside_the_code(file):
    """`open("config.yml")` of a script its author runs from its own folder, or `open("configs/a.yaml")`
    of one run from a folder above it in the project (`src/pytorch/trainer.py` run from the folder
    that holds `configs/`): the nearest such file, when it is configuration text and the working folder
    has none (said in the evidence)."""
    if _state.code_path is None or not isinstance(file, (str, os.PathLike)):
        return file
    name = os.fspath(file)
    if os.path.isabs(name) or os.path.exists(name) or not name.lower().endswith(CONFIGURATION_SUFFIXES):
        return file
    folder = os.path.dirname(_state.code_path)
    while True:
        found = os.path.join(folder, name)
        if os.path.isfile(found):
            break
        above = os.path.dirname(folder)
        if above == folder or not (above + os.sep).startswith(_state.root + os.sep) and above != _state.root:
            return file
        folder = above
    where = "the folder of " + os.path.basename(_state.code_path) if folder == os.path.dirname(_state.code_path) \
        else "the project's folder" if folder == _state.root else os.path.relpath(folder, _state.root) + os.sep
    _state.events.append(f"`{name}` was read from {where}, where the script is run from")
    return found


def _guarded_makedirs(name, mode=0o777, exist_ok=False):
    if in_project(name) is not None or _elsewhere_on_disk(name) is not None:
        return None
    return _original_makedirs(name, mode, exist_ok)


def _guarded_chmod(path, mode, *args, **kwargs):
    if isinstance(path, (str, bytes, os.PathLike)) and (in_project(path) is not None
                                                        or _elsewhere_on_disk(path) is not None):
        return None
    return _original_chmod(path, mode, *args, **kwargs)


def _guarded_chdir(path):
    """`os.chdir(PROJECT_ROOT)` of the author's machine (`~/Projects/...`), a folder that is not here:
    the run stays where it is (the code's folder), as it would have if that were the project."""
    if isinstance(path, (str, bytes, os.PathLike)) and not os.path.isdir(path):
        _state.events.append(f"`os.chdir({os.fsdecode(path)!r})` (a folder that is not here) left the run where it was")
        return None
    return _original_chdir(path)


def _guarded_mkdir(path, mode=0o777, *args, **kwargs):
    if in_project(path) is not None or _elsewhere_on_disk(path) is not None:
        return None
    return _original_mkdir(path, mode, *args, **kwargs)


def _missing_folder(path) -> Optional[str]:
    """The folder relative to the project, when it is inside the project (a relative one also from the
    code's folder, where its author runs the script) and not here; or, as written, a folder of the
    author's machine that is not on this one (`os.listdir(DATA_ROOT + "/face/testA/")`, `DATA_ROOT` an
    absolute path)."""
    if not isinstance(path, (str, os.PathLike)) or os.path.exists(path):
        return None
    return _in_project_or_beside_the_code(path) or _of_another_machine(path) or _beside_the_project(path)


def _beside_the_project(path) -> Optional[str]:
    """A relative path that climbs out of the project and is not here (`os.listdir("../data/anime_faces")`,
    the author's data folder next to their checkout): as written."""
    if not isinstance(path, (str, os.PathLike)) or os.path.isabs(path) or os.path.exists(path):
        return None
    return os.fspath(path) if os.path.normpath(os.fspath(path)).startswith(os.pardir + os.sep) else None


def _of_another_machine(path) -> Optional[str]:
    """An absolute path, as written, that is not here and would lie on the user's disk outside the
    project (the author's own dataset folder): their data, on their machine."""
    if not isinstance(path, (str, os.PathLike)) or not os.path.isabs(path) or os.path.exists(path):
        return None
    return os.fspath(path) if _elsewhere_on_disk(path) is not None else None


def _in_project_or_beside_the_code(path) -> Optional[str]:
    """`in_project`; for a relative path that is not here, also from the code's folder, where its
    author runs the script (`os.listdir("Dataset/celeba")` of a script run from elsewhere)."""
    relative = in_project(path)
    if relative is None and isinstance(path, (str, os.PathLike)) and not os.path.isabs(path) \
            and _state.code_path is not None and not os.path.exists(path):
        relative = in_project(os.path.join(os.path.dirname(_state.code_path), path))
    return relative


def _stand_in_names(relative: str, suffix: str = ".jpg") -> list[str]:
    """The image files a missing folder lists, said in the evidence."""
    _state.events.append(f"the folder {relative} is not here: {STAND_IN_FILES} image files of random pixels "
                         f"were listed in it")
    return [f"stand-in-{number}{suffix}" for number in range(STAND_IN_FILES)]


def _guarded_listdir(path="."):
    relative = _missing_folder(path)
    if relative is None:
        return _original_listdir(path)
    names = _stand_in_names(relative, _image_suffix_of_the_code(_state.code_path))
    return [os.fsencode(name) for name in names] if isinstance(path, bytes) else names


# (The quote may be escaped: a notebook's code is read from its JSON.)
IMAGE_SUFFIX_NAMED = re.compile(r"""\.(jpe?g|png|bmp|gif|webp|tiff?|ppm)\b\\?['"]""", re.IGNORECASE)


@functools.lru_cache(maxsize=8)
def _image_suffix_of_the_code(code_path: Optional[str]) -> str:
    """The one image suffix the code names (`if ".png" in name`, `f"{folder}/{name}.png"`): the files a
    missing folder lists have it, as the code filters or opens them by it; `.jpg` where it names none
    or several."""
    try:
        with _original_open(code_path, encoding="utf-8", errors="replace") as handle:
            code = handle.read()
    except (OSError, TypeError):
        return ".jpg"
    named = {match.group(1).lower().replace("jpeg", "jpg") for match in IMAGE_SUFFIX_NAMED.finditer(code)}
    return f".{named.pop()}" if len(named) == 1 else ".jpg"


def _guarded_glob(pathname, *args, **kwargs):
    """`glob.glob("data/train/*.jpg")` of a folder that is not here: a few image files of that suffix
    (only for images: a listing of checkpoints or arrays stays empty, as it is)."""
    found = _original_glob(pathname, *args, **kwargs)
    if found or not isinstance(pathname, str) or not glob.has_magic(pathname):
        return found
    parts = pathname.replace(os.sep, "/").split("/")
    first_magic = next(index for index, part in enumerate(parts) if glob.has_magic(part))
    folder = "/".join(parts[:first_magic]) or "."
    suffix = os.path.splitext(parts[-1])[1].lower()
    if suffix not in images.IMAGE_SUFFIXES and parts[-1] not in ("*", "**"):
        return found
    relative = _missing_folder(folder)
    if relative is None:
        return found
    return [os.path.join(folder, name) for name in _stand_in_names(relative, suffix or ".jpg")]
