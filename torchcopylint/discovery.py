"""Which files to lint: recursive discovery with excludes and .gitignore."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

import pathspec

from torchcopylint.config import Settings

PYTHON_SUFFIXES = (".py", ".pyi")


@dataclass
class Discovery:
    files: list[Path] = field(default_factory=list)
    # Paths that could not be listed or are broken links: (path, reason), reported as TCL900.
    problems: list[tuple[Path, str]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def discover(paths: Iterable[str], settings: Settings, force_exclude: bool = False) -> Discovery:
    found = Discovery()
    excluded = pathspec.PathSpec.from_lines("gitignore", [*settings.exclude, *settings.extend_exclude])
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if not os.path.lexists(path):
            found.missing.append(raw)
            continue
        if path.is_symlink() and not path.exists():
            found.problems.append((path, "broken symbolic link"))
            continue
        if path.is_dir():
            _walk(path, settings, excluded, found, seen)
        elif force_exclude and _is_excluded(path, settings.root, excluded):
            continue
        else:
            # A file named explicitly is linted whatever its suffix, like ruff.
            _add(path, found, seen)
    found.files.sort()
    return found


def _add(path: Path, found: Discovery, seen: set[Path]) -> None:
    try:
        key = path.resolve()
    except (OSError, RuntimeError):  # a symlink loop
        found.problems.append((path, "symbolic link loop"))
        return
    if key not in seen:
        seen.add(key)
        found.files.append(path)


def _relative(path: Path, root: Path) -> Optional[str]:
    try:
        return path.resolve().relative_to(root).as_posix()
    except (ValueError, OSError, RuntimeError):
        return None


def _is_excluded(path: Path, root: Path, excluded: pathspec.PathSpec) -> bool:
    relative = _relative(path, root)
    if relative is not None and excluded.match_file(relative):
        return True
    # Default excludes like "build" also match by name anywhere, as in ruff.
    return any(excluded.match_file(part) for part in path.parts if part not in (".", ".."))


def _walk(top: Path, settings: Settings, excluded: pathspec.PathSpec, found: Discovery, seen: set[Path]) -> None:
    gitignores: dict[str, Optional[pathspec.PathSpec]] = {}

    def ignored_by_git(path: Path, is_dir: bool) -> bool:
        if not settings.respect_gitignore:
            return False
        for directory in (path.parent, *path.parent.parents):
            spec = _gitignore(directory, gitignores)
            if spec is not None:
                relative = path.relative_to(directory).as_posix() + ("/" if is_dir else "")
                if spec.match_file(relative):
                    return True
            if (directory / ".git").exists():
                break
        return False

    def on_error(error: OSError) -> None:
        found.problems.append((Path(error.filename or top), f"cannot list directory: {error.strerror}"))

    # followlinks=False: a symlinked directory is not entered, so a link loop cannot hang the walk.
    for directory, subdirectories, filenames in os.walk(top, onerror=on_error, followlinks=False):
        current = Path(directory)
        kept = []
        for name in sorted(subdirectories):
            child = current / name
            if excluded.match_file(name + "/") or _is_excluded(child, settings.root, excluded):
                continue
            if ignored_by_git(child, True):
                continue
            kept.append(name)
        subdirectories[:] = kept
        for name in sorted(filenames):
            if not name.endswith(PYTHON_SUFFIXES):
                continue
            child = current / name
            if excluded.match_file(name) or _is_excluded(child, settings.root, excluded):
                continue
            if ignored_by_git(child, False):
                continue
            if child.is_symlink() and not child.exists():
                found.problems.append((child, "broken symbolic link"))
                continue
            _add(child, found, seen)


def _gitignore(directory: Path, cache: dict[str, Optional[pathspec.PathSpec]]) -> Optional[pathspec.PathSpec]:
    key = str(directory)
    if key not in cache:
        path = directory / ".gitignore"
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines() if path.is_file() else None
        except OSError:
            lines = None
        cache[key] = pathspec.PathSpec.from_lines("gitignore", lines) if lines else None
    return cache[key]
