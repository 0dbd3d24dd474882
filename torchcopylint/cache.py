"""The results cache: what linting a file found, kept so that an unchanged file is not linted again.

Layout (like ruff's), by default at the project root (`Settings.root`)::

    .torchcopylint_cache/
      .gitignore              "*": the cache never shows in `git status`
      CACHEDIR.TAG            backup tools skip the directory (https://bford.info/cachedir/)
      <version>/results-<digest of root and settings>.json

One JSON index per project root, rule selection and torchcopylint version (so that a
run with `--select X` does not evict the entries of the usual selection), read once at the start of
a run and, when anything changed, written once at the end (to a temporary file, then
renamed over the old one, so a reader never sees half a file). Runs that overlap (pre-commit
batches, an editor and a terminal) do not lose each other's entries: under a lock file,
a run re-reads the index and writes it back with only its own changes applied.

An entry is per file (its absolute path) and is valid only for

- the same **content**: the BLAKE2b digest of the file's bytes;
- the same **configuration** of that file: the rule codes selected for it (after
  select/ignore/per-file-ignores) and whether the prefilter was on;
- the same **torchcopylint**: its version and a fingerprint of its own source files
  (name, size, mtime), so that editing a rule in a checkout invalidates the cache too.

Reading every file to hash it is the dominant cost of a warm run on a large tree, so
the file's `stat` is a first key: when size and mtime (ns) equal the ones recorded
with the digest, the digest is trusted without reading the file. To be safe against
an edit that keeps the size within the file system's mtime granularity ("racy"
files, as git calls them), the stat is trusted only when the recorded mtime was at
least two seconds older than the moment the file was read; otherwise the file is
read and hashed again. Anything else (size or mtime changed, `touch`, a checkout)
reads and hashes the file: an unchanged digest is still a hit.

Diagnostics are stored as `Diagnostic.to_dict()` without their path; the path the
file was reached by in this run is put back when they are loaded.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any, Iterable, Optional

try:
    # hashlib's own blake2b; importing hashlib would load OpenSSL too (3.6 MB in every process).
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter built without it
    from hashlib import blake2b

from torchcopylint import __version__
from torchcopylint.diagnostic import Diagnostic

CACHE_DIR_NAME = ".torchcopylint_cache"
# Bump when the layout of an entry changes.
FORMAT = 1
CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by torchcopylint.\n"
    "# For information about cache directory tags, see:\n"
    "#\thttps://bford.info/cachedir/\n"
)
# A stat is trusted only for files whose mtime was this much older than the moment they were read.
RACY_NS = 2_000_000_000

_fingerprint: Optional[str] = None


def content_digest(data: bytes) -> str:
    return blake2b(data, digest_size=16).hexdigest()


def code_fingerprint() -> str:
    """The version plus a digest of the package's own .py files (relative name, size, mtime).

    An installed release never changes under a version; a checkout does, and a cache
    that outlived an edit of a rule would report what the old rule found.
    """
    global _fingerprint
    if _fingerprint is None:
        package = Path(__file__).resolve().parent
        digest = blake2b(digest_size=8)
        for directory, subdirectories, files in os.walk(package):
            subdirectories[:] = sorted(d for d in subdirectories if d != "__pycache__")
            for name in sorted(files):
                if name.endswith(".py"):
                    path = os.path.join(directory, name)
                    try:
                        status = os.stat(path)
                    except OSError:
                        continue
                    relative = os.path.relpath(path, package)
                    digest.update(f"{relative}\0{status.st_size}\0{status.st_mtime_ns}\n".encode())
        _fingerprint = f"{__version__}+{digest.hexdigest()}"
    return _fingerprint


def config_key(codes: Iterable[str], prefilter: bool) -> str:
    """The part of the key that comes from the configuration of one file."""
    return ",".join(sorted(codes)) + ("" if prefilter else "|no-prefilter")


def default_cache_dir(root: Path) -> Path:
    return Path(root) / CACHE_DIR_NAME


class Cache:
    """The index of one project root; `lookup` before linting a file, `store` after, `save` at the end."""

    def __init__(self, directory: Path, root: Path, namespace: str = "") -> None:
        """`namespace`: a digest of the settings, so that different settings keep different indexes."""
        self.directory = Path(directory)
        name = f"{Path(root).resolve()}\0{namespace}".encode("utf-8", "surrogatepass")
        self.index_path = self.directory / _safe(__version__) / f"results-{blake2b(name, digest_size=8).hexdigest()}.json"
        self.fingerprint = code_fingerprint()
        # absolute path -> [digest, config key, size, mtime_ns, read_at_ns, diagnostics without path,
        #                   skipped by the prefilter]
        self.entries: dict[str, list[Any]] = {}
        self.changed = False
        # What this run changed, to be merged into the index as it is on disk when saving.
        self._updated: dict[str, list[Any]] = {}
        self._removed: set[str] = set()
        self._stale = False
        self.entries = self._read()

    # ------------------------------------------------------------------ reading

    def _read(self) -> dict[str, list[Any]]:
        try:
            with open(self.index_path, "rb") as handle:
                data = json.loads(handle.read())
        except (OSError, ValueError):
            return {}  # no cache yet, or an unreadable one: start afresh
        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("fingerprint") != self.fingerprint:
            self._stale = self.changed = True  # another version's: the next save replaces it
            return {}
        files = data.get("files")
        return files if isinstance(files, dict) else {}

    def lookup(self, path: str, key: str, status: Optional[os.stat_result]) -> tuple[Optional[list], Optional[bytes]]:
        """(the entry on a hit or None on a miss, the bytes read to decide, if any).

        `path` is absolute. `status` is the file's stat (None: read it anyway).
        """
        entry = self.entries.get(path)
        if not isinstance(entry, list) or len(entry) != 7 or entry[1] != key:
            return None, None
        if status is not None and status.st_size == entry[2] and status.st_mtime_ns == entry[3] \
                and entry[3] < entry[4] - RACY_NS:
            return entry, None
        read_at = time.time_ns()
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            return None, None
        if content_digest(data) != entry[0]:
            return None, data
        if status is not None:  # the same content with a new stat (touched, checked out): record it
            entry[2], entry[3], entry[4] = status.st_size, status.st_mtime_ns, read_at
            self._updated[path] = entry
            self.changed = True
        return entry, data

    # ------------------------------------------------------------------ writing

    def store(self, path: str, key: str, digest: str, size: int, mtime_ns: int, read_at_ns: int,
              diagnostics: list[dict], skipped: bool = False) -> None:
        self.entries[path] = self._updated[path] = [digest, key, size, mtime_ns, read_at_ns, diagnostics, skipped]
        self._removed.discard(path)
        self.changed = True

    def save(self) -> bool:
        """Write the index if anything changed; False (and nothing raised) when it cannot be written."""
        if not self.changed:
            return True
        try:
            self._prepare_directory()
            self.index_path.parent.mkdir(parents=True, exist_ok=True)
            with _locked(self.index_path.with_name(".lock")):
                self._write()
        except OSError:
            return False  # a read-only tree: linting still works, only slower next time
        self.changed = False
        return True

    def _write(self) -> None:
        # Another run may have saved since this one read the index: apply only this run's changes.
        entries = self._read() if not self._stale else {}
        entries.update(self._updated)
        for path in self._removed:
            entries.pop(path, None)
        self.entries = entries
        payload = json.dumps({"format": FORMAT, "fingerprint": self.fingerprint, "files": entries},
                             separators=(",", ":"))
        descriptor, temporary = tempfile.mkstemp(prefix=".results-", suffix=".tmp", dir=self.index_path.parent)
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                handle.write(payload)
            os.chmod(temporary, 0o644)  # mkstemp's 0600 would hide the cache from the other users of a tree
            os.replace(temporary, self.index_path)
        except BaseException:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            raise

    def _prepare_directory(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        gitignore = self.directory / ".gitignore"
        if not gitignore.exists():
            gitignore.write_text("# Automatically created by torchcopylint.\n*\n", encoding="utf-8")
        tag = self.directory / "CACHEDIR.TAG"
        if not tag.exists():
            tag.write_text(CACHEDIR_TAG, encoding="utf-8")

    def prune(self, keep: Iterable[str]) -> None:
        """Forget entries of files that no longer exist (those in `keep` were just seen)."""
        seen = set(keep)
        gone = [path for path in self.entries if path not in seen and not os.path.exists(path)]
        for path in gone:
            del self.entries[path]
            self._updated.pop(path, None)
            self._removed.add(path)
        if gone:
            self.changed = True


class _locked:
    """An advisory lock on `path` (POSIX flock; elsewhere, no lock: the rename alone is atomic)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.descriptor: Optional[int] = None

    def __enter__(self) -> "_locked":
        try:
            import fcntl
        except ImportError:  # Windows
            return self
        self.descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(self.descriptor, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self.descriptor is not None:
            os.close(self.descriptor)  # releases the lock
            self.descriptor = None


def strip_path(diagnostic: Diagnostic) -> dict:
    data = diagnostic.to_dict()
    data["location"]["path"] = ""
    return data


def with_path(data: dict, path: str) -> Diagnostic:
    location = dict(data["location"])
    location["path"] = path
    return Diagnostic.from_dict({**data, "location": location})


def _safe(version: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "._-+" else "_" for ch in version)
