"""Which files to lint: recursive discovery with excludes and .gitignore."""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

import pathspec

from torchcopylint.config import Settings

PYTHON_SUFFIXES = (".py", ".pyi")
# What a directory walk lints: Python files and Jupyter notebooks (their code cells).
LINTED_SUFFIXES = (*PYTHON_SUFFIXES, ".ipynb")


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
            found.problems.append((path, _dangling_reason(path)))
            continue
        if force_exclude and _is_excluded(path, settings.root, excluded):
            continue
        if path.is_dir():
            _walk(path, settings, excluded, found, seen)
        else:
            # A file named explicitly is linted whatever its suffix, like ruff.
            _add(path, found, seen)
    found.files.sort()
    return found


def is_excluded(path: Path, settings: Settings) -> bool:
    """Is this file excluded by `exclude`/`extend-exclude`, as `--force-exclude` would have it?
    (The editor server asks for each document it is sent.)"""
    excluded = pathspec.PathSpec.from_lines("gitignore", [*settings.exclude, *settings.extend_exclude])
    return _is_excluded(path, settings.root, excluded)


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
    if relative is not None:
        # A pattern without a slash ("build", "*.egg-info") matches a name at any depth.
        return excluded.match_file(relative) or (path.is_dir() and excluded.match_file(relative + "/"))
    # Outside the project root: default excludes like "build" match by name anywhere, as in ruff.
    return any(excluded.match_file(part) for part in path.parts if part not in (".", "..", path.anchor))


def _dangling_reason(path: Path) -> str:
    try:
        os.stat(path)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "symbolic link loop"
    return "broken symbolic link"


def _lifted(spec: pathspec.PathSpec, top: Optional[str]) -> pathspec.PathSpec:
    """`spec` without the patterns that exclude `top` itself (a directory, relative to the spec's base).

    A directory named on the command line is linted even when it is excluded, as in ruff;
    without this its own exclusion would also match everything below it.
    """
    if top is None or top in ("", "."):
        return spec
    kept = [pattern for pattern in spec.patterns
            if not (pattern.include and (pattern.match_file(top) is not None
                                         or pattern.match_file(top + "/") is not None))]
    return spec if len(kept) == len(spec.patterns) else pathspec.PathSpec(kept)


def _walk(top: Path, settings: Settings, excluded: pathspec.PathSpec, found: Discovery, seen: set[Path]) -> None:
    gitignores: dict[str, Optional[pathspec.PathSpec]] = {}
    # Below `top`, an exclusion counts only if it does not also exclude `top` (named explicitly).
    by_path = _lifted(excluded, _relative(top, settings.root))
    absolute_top = Path(os.path.abspath(top))

    def gitignore(directory: Path) -> Optional[pathspec.PathSpec]:
        key = str(directory)
        if key not in gitignores:
            spec = _gitignore(directory)
            if spec is not None and directory in (absolute_top, *absolute_top.parents):
                spec = _lifted(spec, absolute_top.relative_to(directory).as_posix())
            gitignores[key] = spec
        return gitignores[key]

    def ignored_by_git(path: Path, is_dir: bool) -> bool:
        if not settings.respect_gitignore:
            return False
        path = Path(os.path.abspath(path))
        for directory in path.parents:
            spec = gitignore(directory)
            if spec is not None:
                # The deepest .gitignore with a matching pattern decides (a "!" pattern re-includes).
                verdict = _verdict(spec, path.relative_to(directory).as_posix() + ("/" if is_dir else ""))
                if verdict is not None:
                    return verdict
            if (directory / ".git").exists():
                break
        return False

    def is_excluded(child: Path, name: str, is_dir: bool) -> bool:
        relative = _relative(child, settings.root)
        if relative is None:  # outside the project: the patterns apply to names
            return excluded.match_file(name + "/" if is_dir else name)
        # gitignore semantics: "build" matches at any depth, "tests/data" and "/tests" from the root.
        return by_path.match_file(relative + "/" if is_dir else relative)

    def on_error(error: OSError) -> None:
        found.problems.append((Path(error.filename or top), f"cannot list directory: {error.strerror}"))

    # followlinks=False: a symlinked directory is not entered, so a link loop cannot hang the walk.
    for directory, subdirectories, filenames in os.walk(top, onerror=on_error, followlinks=False):
        current = Path(directory)
        kept = []
        for name in sorted(subdirectories):
            child = current / name
            if is_excluded(child, name, True) or ignored_by_git(child, True):
                continue
            kept.append(name)
        subdirectories[:] = kept
        for name in sorted(filenames):
            if not name.endswith(LINTED_SUFFIXES):
                continue
            child = current / name
            if is_excluded(child, name, False) or ignored_by_git(child, False):
                continue
            if child.is_symlink() and not child.exists():
                found.problems.append((child, _dangling_reason(child)))
                continue
            _add(child, found, seen)


def _verdict(spec: pathspec.PathSpec, path: str) -> Optional[bool]:
    """True: ignored; False: re-included by a negation; None: no pattern of `spec` matches."""
    verdict = None
    for pattern in spec.patterns:
        if pattern.include is not None and pattern.match_file(path) is not None:
            verdict = pattern.include
    return verdict


def _gitignore(directory: Path) -> Optional[pathspec.PathSpec]:
    path = directory / ".gitignore"
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines() if path.is_file() else None
    except OSError:
        lines = None
    if not lines:
        return None
    try:
        return pathspec.PathSpec.from_lines("gitignore", lines)
    except ValueError:
        # A pattern git itself cannot use (`*data_set*\` with nothing after its escape, saved with
        # Windows line ends): git skips it, and so does the walk, keeping the file's other patterns.
        kept = []
        for line in lines:
            try:
                kept.extend(pathspec.PathSpec.from_lines("gitignore", [line]).patterns)
            except ValueError:
                continue
        return pathspec.PathSpec(kept)
