"""Settings: `[tool.torchcopylint]` in the nearest pyproject.toml, then command-line options."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# What is never linted unless named on the command line (like ruff's defaults).
DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", ".env", "env", "__pypackages__",
    "build", "dist", "__pycache__", "site-packages", "node_modules", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".torchcopylint_cache", ".eggs", "*.egg-info",
    ".ipynb_checkpoints",  # Jupyter's autosaved copies: every finding would be reported twice
    ".history",  # VS Code's Local History copies, committed by some projects: the same, once per save
)
KNOWN_KEYS = {"select", "ignore", "extend-select", "per-file-ignores", "exclude", "extend-exclude",
              "respect-gitignore", "verify"}
# Keys of [tool.torchcopylint.verify] that are settings; any other key there is a factory entry.
VERIFY_KEYS = {"factories", "pythonpath"}


class ConfigError(Exception):
    """A configuration file that cannot be used; reported with exit status 2."""


@dataclass
class Settings:
    root: Path  # paths in the configuration are relative to this directory
    select: Optional[list[str]] = None  # None: every rule
    ignore: list[str] = field(default_factory=list)
    extend_select: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    exclude: list[str] = field(default_factory=lambda: list(DEFAULT_EXCLUDE))
    extend_exclude: list[str] = field(default_factory=list)
    respect_gitignore: bool = True
    verify: dict = field(default_factory=dict)
    source: Optional[Path] = None  # the file the settings came from

    def verify_factories(self) -> dict:
        """`[tool.torchcopylint.verify.factories]` (or, in the older layout, the verify table's
        other keys): how --verify builds the classes named there."""
        return dict(self.verify.get("factories", {key: value for key, value in self.verify.items()
                                                  if key not in VERIFY_KEYS}))

    def verify_pythonpath(self) -> list[Path]:
        """`[tool.torchcopylint.verify] pythonpath`, as absolute folders."""
        return [self.root / entry for entry in self.verify.get("pythonpath", [])]

    def selected_codes(self, all_codes: Sequence[str]) -> list[str]:
        """Codes enabled by select/extend-select less ignore; prefixes ("TCL00") match like ruff's."""
        chosen = set(all_codes) if self.select is None else _matching(all_codes, self.select)
        chosen |= _matching(all_codes, self.extend_select)
        chosen -= _matching(all_codes, self.ignore)
        return [code for code in all_codes if code in chosen]


def _matching(codes: Sequence[str], prefixes: Sequence[str]) -> set[str]:
    wanted = [prefix.strip().upper() for prefix in prefixes if prefix.strip()]
    if "ALL" in wanted:
        return set(codes)
    return {code for code in codes if any(code.startswith(prefix) for prefix in wanted)}


def find_config(start: Path) -> Optional[Path]:
    """The nearest pyproject.toml with a [tool.torchcopylint] table, from `start` upwards."""
    directory = start if start.is_dir() else start.parent
    for candidate in (directory, *directory.parents):
        path = candidate / "pyproject.toml"
        if path.is_file():
            try:
                data = tomllib.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
                # Silently falling back to a configuration further up would lint with the wrong settings.
                raise ConfigError(f"cannot read configuration {path}: {error}") from None
            if "torchcopylint" in data.get("tool", {}):
                return path
    return None


def load_settings(config_file: Optional[Path], start: Path) -> Settings:
    # abspath, not resolve: a symlink loop named on the command line must not crash the search.
    path = config_file if config_file is not None else find_config(Path(os.path.abspath(start)))
    if path is None:
        return Settings(root=Path.cwd())
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"configuration file not found: {path}") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"cannot read configuration {path}: {error}") from None
    # A file named on the command line may be a plain torchcopylint.toml without the tool table.
    table = data.get("tool", {}).get("torchcopylint", data if config_file is not None else {})
    unknown = set(table) - KNOWN_KEYS
    if unknown:
        raise ConfigError(f"{path}: unknown option(s) in [tool.torchcopylint]: {', '.join(sorted(unknown))}")
    settings = Settings(root=path.parent.resolve(), source=path)
    if "select" in table:
        settings.select = _string_list(table, "select", path)
    settings.ignore = _string_list(table, "ignore", path)
    settings.extend_select = _string_list(table, "extend-select", path)
    if "exclude" in table:
        settings.exclude = _string_list(table, "exclude", path)
    settings.extend_exclude = _string_list(table, "extend-exclude", path)
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(f"{path}: per-file-ignores must be a table of glob = [codes]")
    settings.per_file_ignores = {str(glob): _string_list(per_file, glob, path) for glob in per_file}
    settings.respect_gitignore = table.get("respect-gitignore", True)
    if not isinstance(settings.respect_gitignore, bool):
        raise ConfigError(f"{path}: respect-gitignore must be true or false")
    settings.verify = table.get("verify", {})
    if not isinstance(settings.verify, dict):
        raise ConfigError(f"{path}: verify must be a table")
    if "pythonpath" in settings.verify:
        # Folders for --verify's imports, relative to this file, like pytest's `pythonpath`.
        settings.verify = {**settings.verify, "pythonpath": _string_list(settings.verify, "pythonpath", path)}
    return settings


def _string_list(table: dict, key: str, path: Path) -> list[str]:
    value = table.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{path}: {key} must be a list of strings")
    return list(value)
