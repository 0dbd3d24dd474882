"""What the editor server lints: a document's unsaved text, with its project's configuration
and the editor's settings on top, remembered per document version.

Nothing here speaks the protocol (and nothing imports pygls): the server hands in text and
gets `Diagnostic`s back, exactly as the command line would report them for that file.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Optional, Sequence

from torchcopylint.config import ConfigError, Settings, find_config, load_settings
from torchcopylint.diagnostic import Diagnostic
from torchcopylint.discovery import is_excluded
from torchcopylint.engine import lint_document, lint_source, select_rules
from torchcopylint.rules import ALL_RULES

KNOWN_CODES = tuple(rule.code for rule in ALL_RULES)


@dataclass(frozen=True)
class EditorSettings:
    """What the editor may set (`initializationOptions`, `workspace/didChangeConfiguration`).

    `select` replaces the project's selection and `ignore`/`extend_select` add to it, as the
    command-line options of the same names do; the project's `pyproject.toml` is read first.
    """

    select: Optional[tuple[str, ...]] = None
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    verify_device: str = "cpu"
    verify_timeout: float = 20.0

    @classmethod
    def from_client(cls, options: Any, previous: Optional["EditorSettings"] = None) -> tuple["EditorSettings", list[str]]:
        """Settings from what a client sent, and the problems found in it (unknown keys or
        codes, wrong types): a bad value is reported and left as it was, never fatal."""
        settings = previous or cls()
        problems: list[str] = []
        if not isinstance(options, dict):
            return settings, problems if options is None else ["settings must be an object"]
        # Clients nest settings under the server's name (VS Code, Neovim) or send them bare.
        options = options.get("torchcopylint", options)
        if not isinstance(options, dict):
            return settings, ["`torchcopylint` settings must be an object"]
        for key, value in options.items():
            field_name = {"select": "select", "ignore": "ignore", "extendSelect": "extend_select",
                          "extend-select": "extend_select", "extend_select": "extend_select"}.get(key)
            if field_name is not None:
                codes = _codes(value)
                if codes is None:
                    problems.append(f"`{key}` must be a list of rule codes (or a comma-separated string)")
                    continue
                unknown = [code for code in codes if not _known_selector(code)]
                if unknown:
                    problems.append(f"`{key}`: unknown rule selector(s) {', '.join(unknown)}")
                    codes = tuple(code for code in codes if _known_selector(code))
                settings = replace(settings, **{field_name: codes})
            elif key == "verify":
                settings, found = _verify_settings(settings, value)
                problems.extend(found)
            else:
                problems.append(f"unknown setting `{key}`")
        return settings, problems


def _codes(value: Any) -> Optional[tuple[str, ...]]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return None
    return tuple(item.strip().upper() for item in value if item.strip())


def _known_selector(code: str) -> bool:
    return code == "ALL" or any(known.startswith(code) for known in KNOWN_CODES)


def _verify_settings(settings: EditorSettings, value: Any) -> tuple[EditorSettings, list[str]]:
    if not isinstance(value, dict):
        return settings, ["`verify` must be an object with `device` and `timeout`"]
    problems = []
    device = value.get("device", settings.verify_device)
    if device in ("cpu", "cuda", "auto"):
        settings = replace(settings, verify_device=device)
    else:
        problems.append("`verify.device` must be cpu, cuda or auto")
    timeout = value.get("timeout", settings.verify_timeout)
    if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0:
        settings = replace(settings, verify_timeout=float(timeout))
    else:
        problems.append("`verify.timeout` must be a positive number of seconds")
    unknown = set(value) - {"device", "timeout"}
    if unknown:
        problems.append(f"unknown `verify` setting(s): {', '.join(sorted(unknown))}")
    return settings, problems


@dataclass(frozen=True)
class LintResult:
    version: Optional[int]
    diagnostics: tuple[Diagnostic, ...]
    # Why the document got no findings though it may have some (excluded, a broken configuration).
    note: str = ""


class Linter:
    """Lints open documents; thread-safe, so the server can lint off its event loop."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # document key -> (what the result depends on, the result)
        self._results: dict[str, tuple[tuple, LintResult]] = {}
        # pyproject.toml -> (its modification time, the settings read from it)
        self._configurations: dict[Path, tuple[float, Settings]] = {}

    def forget(self, key: Optional[str] = None) -> None:
        """Drop what is remembered of one document (closed), or of all (the settings changed)."""
        with self._lock:
            if key is None:
                self._results.clear()
                self._configurations.clear()
            else:
                self._results.pop(key, None)

    def settings_for(self, path: Path, editor: EditorSettings, workspace_root: Optional[Path] = None) -> Settings:
        """The project's `[tool.torchcopylint]` for this file, with the editor's settings on top."""
        config = find_config(path.parent)
        if config is None:
            settings = Settings(root=workspace_root or path.parent)
        else:
            settings = self._configuration(config)
        settings = replace(settings, ignore=[*settings.ignore, *editor.ignore],
                           extend_select=[*settings.extend_select, *editor.extend_select])
        if editor.select is not None:
            settings = replace(settings, select=list(editor.select))
        return settings

    def _configuration(self, config: Path) -> Settings:
        modified = config.stat().st_mtime
        with self._lock:
            known = self._configurations.get(config)
        if known is not None and known[0] == modified:
            return known[1]
        settings = load_settings(config, config.parent)
        with self._lock:
            self._configurations[config] = (modified, settings)
        return settings

    def lint(self, key: str, version: Optional[int], path: Path, text: str, editor: EditorSettings,
             workspace_root: Optional[Path] = None) -> LintResult:
        """The diagnostics of a module or notebook text (a notebook: its nbformat JSON), cached
        per document version and settings."""
        try:
            settings = self.settings_for(path, editor, workspace_root)
        except (ConfigError, OSError) as error:
            return LintResult(version, (), note=f"configuration not used: {error}")
        config = settings.source
        depends_on = (version, text if version is None else None, editor, config,
                      config.stat().st_mtime if config is not None and config.exists() else None)
        with self._lock:
            cached = self._results.get(key)
        if cached is not None and cached[0] == depends_on:
            return cached[1]
        if is_excluded(path, settings):
            result = LintResult(version, (), note="excluded by the project's configuration")
        else:
            diagnostics = lint_document(text, str(path), select_rules(settings, str(path)))
            result = LintResult(version, tuple(diagnostics))
        with self._lock:
            self._results[key] = (depends_on, result)
        return result

    def module_linter(self, path: Path, editor: EditorSettings, workspace_root: Optional[Path] = None):
        """A function module text -> diagnostics, for the fixer (a notebook's fixer passes its
        cells' module); no cache, as each pass sees new text. The command line's --fix does the same."""
        settings = self.settings_for(path, editor, workspace_root)
        rules = select_rules(settings, str(path))
        return lambda text: lint_source(text, str(path), rules)


@dataclass(frozen=True)
class CellText:
    """A notebook cell as the editor holds it: code or markdown, and its current text."""

    kind: str  # "code" or "markdown"
    text: str


def notebook_text(cells: Sequence[CellText]) -> str:
    """The cells as the nbformat 4 JSON a `.ipynb` file would hold, so the server reads a notebook
    exactly as the command line reads its file (cell numbers count every cell, markdown too)."""
    return json.dumps({
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"language_info": {"name": "python"}},
        "cells": [
            {"cell_type": cell.kind, "metadata": {}, "source": cell.text,
             **({"outputs": [], "execution_count": None} if cell.kind == "code" else {})}
            for cell in cells
        ],
    }, indent=1)


def cell_sources(notebook_json: str) -> list[str]:
    """Each cell's source, in order, from a notebook's JSON (after the fixer rewrote it)."""
    cells = json.loads(notebook_json)["cells"]
    return ["".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"] for cell in cells]
