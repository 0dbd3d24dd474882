"""Command line: options and exit codes; the work is done by engine, fix and report."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Optional

import click

from torchcopylint import __version__, noqa, notebook, pages, report, source_encoding
from torchcopylint.config import ConfigError, Settings, load_settings
from torchcopylint.diagnostic import Diagnostic
from torchcopylint.engine import LintRun, lint_document, lint_paths, lint_source, select_rules
from torchcopylint.fix import fix_source, unified_diff, write_atomically
from torchcopylint.rules import ALL_RULES, rule_by_code

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class DefaultToCheck(click.Group):
    """`torchcopylint src/` means `torchcopylint check src/`, as `ruff src/` once did.

    A first argument that names a subcommand runs it; anything else is a path or an option
    of `check`. To lint a directory called `rules`, write `torchcopylint check rules`.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h", "--version")):
            args = ["check", *args]
        return super().parse_args(ctx, args)


@click.group(cls=DefaultToCheck, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="torchcopylint")
def main() -> None:
    """torchcopylint: find mistakes in how PyTorch tensors are copied, detached and written in place."""


def _codes(value: Optional[str]) -> list[str]:
    return [part.strip() for part in (value or "").split(",") if part.strip()]


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--select", help="Comma-separated rule codes or prefixes to enable (replaces the configured set).")
@click.option("--ignore", help="Comma-separated rule codes or prefixes to disable.")
@click.option("--extend-select", help="Codes to enable on top of the selection.")
@click.option("--fix", "apply_fixes", is_flag=True, help="Apply safe fixes in place.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply (with --fix) or show unsafe fixes.")
@click.option("--diff", "show_diff", is_flag=True, help="Print the fixes as a unified diff; write nothing.")
@click.option("--output-format", type=click.Choice(report.FORMATS), default="text", show_default=True)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("--statistics", is_flag=True, help="Print a count per rule instead of each finding.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Use this pyproject.toml (or torchcopylint.toml) instead of the nearest one.")
@click.option("--force-exclude", is_flag=True, help="Apply exclusions to files named on the command line too.")
@click.option("--show-fixes", is_flag=True, help="Describe the fix under each finding.")
@click.option("-q", "--quiet", is_flag=True, help="Print findings only, no summary.")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, envvar="TORCHCOPYLINT_JOBS",
              help="Worker processes (default 0: one per CPU; 1: no pool).")
@click.option("--no-cache", is_flag=True, envvar="TORCHCOPYLINT_NO_CACHE",
              help="Lint every file; neither read nor write the cache.")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), envvar="TORCHCOPYLINT_CACHE_DIR",
              help="Where to keep the cache (default: .torchcopylint_cache in the project root).")
@click.option("--no-prefilter", is_flag=True, hidden=True, help="Parse every file, even those no rule can fire on.")
@click.option("--add-noqa", is_flag=True,
              help="Add a `# noqa: CODE` to every flagged line (to adopt the linter on existing code); exit 0.")
@click.option("--verify", "run_verify", is_flag=True,
              help="Run the flagged code (needs torch) and mark each finding confirmed, refuted or unverified.")
@click.option("--device", type=click.Choice(["cpu", "cuda", "auto"]), default="cpu", show_default=True,
              help="Where --verify runs the code.")
@click.option("--verify-timeout", type=click.FloatRange(min=0.1), default=None,
              help="Seconds each --verify experiment may take.  [default: 60]")
@click.option("--run", "run_command", metavar="CMD",
              help="With --verify: observe the flagged statements while CMD (tests, a training run) runs.")
@click.option("--verify-stop-when-decided", is_flag=True,
              help="With --run: end CMD as soon as every diagnosis has a verdict.")
def check(paths, select, ignore, extend_select, apply_fixes, unsafe_fixes, show_diff, output_format,
          exit_zero, statistics, config_file, force_exclude, show_fixes, quiet, run_verify, device,
          verify_timeout, run_command, verify_stop_when_decided, jobs, no_cache, cache_dir, no_prefilter,
          add_noqa) -> None:
    """Lint PATHS (default: the current directory)."""
    paths = list(paths) or ["."]
    missing = [path for path in paths if not os.path.lexists(path)]
    if missing:
        _fail("path does not exist: " + ", ".join(missing))
    try:
        settings = load_settings(config_file, Path(paths[0]))
    except ConfigError as error:
        _fail(str(error))
    if select is not None:
        settings.select = _codes(select)
    settings.ignore = [*settings.ignore, *_codes(ignore)]
    settings.extend_select = [*settings.extend_select, *_codes(extend_select)]
    _check_codes(settings)
    if add_noqa and (apply_fixes or show_diff or run_verify):
        _fail("--add-noqa cannot be combined with --fix, --diff or --verify")

    run = lint_paths(paths, settings, force_exclude=force_exclude, jobs=jobs, cache=not no_cache,
                     cache_dir=cache_dir, prefilter=not no_prefilter, progress=True)
    for missing in run.missing_paths:
        click.echo(f"error: path does not exist: {missing}", err=True)
    for error in run.internal_errors:
        click.echo(f"error: internal error (please report it): {error}", err=True)

    if add_noqa:
        _add_noqa(run)
        sys.exit(EXIT_ERROR if run.missing_paths or run.internal_errors else EXIT_CLEAN)

    fixed = 0
    if apply_fixes or show_diff:
        fixed = _fix(run, settings, unsafe=unsafe_fixes, write=not show_diff)

    if run_command and not run_verify:
        _fail("--run needs --verify")
    if run_verify and run_command and not show_diff:
        from torchcopylint.verify.observe import observe

        # A command runs .py files; a notebook's cells are not executed from their file, so not observed.
        in_notebooks = [d for d in run.diagnostics if notebook.is_notebook(d.path)]
        observed = [d for d in run.diagnostics if not notebook.is_notebook(d.path)]
        observation = observe(observed, run_command, stop_when_decided=verify_stop_when_decided)
        run.diagnostics = sorted([*observation.diagnostics, *in_notebooks], key=Diagnostic.sort_key)
        click.echo(f"torchcopylint: `{run_command}` exited with status {observation.exit_status}", err=True)
    elif run_verify and not show_diff:
        run.diagnostics = _verify(run, settings, device, verify_timeout)

    root = Path.cwd()
    if show_diff:
        status = EXIT_FINDINGS if fixed else EXIT_CLEAN
    else:
        stream = sys.stdout
        use_color = output_format == "text" and stream.isatty() and "NO_COLOR" not in os.environ
        if not (quiet and output_format == "text" and not run.diagnostics):
            report.render(output_format, run.diagnostics, stream=stream, rules=ALL_RULES, root=root,
                          show_fixes=show_fixes, statistics=statistics, color=use_color,
                          files_checked=run.files_checked, fixed=fixed, unsafe_fixes_hidden=not unsafe_fixes,
                          quiet=quiet)
        status = EXIT_FINDINGS if _counts_as_finding(run.diagnostics) else EXIT_CLEAN
    if exit_zero and status == EXIT_FINDINGS:
        status = EXIT_CLEAN
    if run.missing_paths or run.internal_errors:
        status = EXIT_ERROR
    sys.exit(status)


def _verify(run: LintRun, settings: Settings, device: str, timeout: Optional[float]) -> list[Diagnostic]:
    # Imported here: the static path never loads the verifier.
    from torchcopylint.verify.documents import verify_documents
    from torchcopylint.verify.runner import VerifyError, VerifyOptions, resolve_device

    try:
        options = VerifyOptions(device=resolve_device(device), factories=settings.verify_factories(),
                                pythonpath=settings.verify_pythonpath())
        if timeout is not None:
            options.timeout = timeout
    except VerifyError as error:
        _fail(str(error))
    return verify_documents(run.diagnostics, run.sources, options, tree=run.files)


def _counts_as_finding(diagnostics: list[Diagnostic]) -> bool:
    # A diagnosis --verify refuted is still shown, but does not fail the run.
    return any(d.verdict is None or d.verdict.status != "refuted" for d in diagnostics)


def _check_codes(settings: Settings) -> None:
    known = [rule.code for rule in ALL_RULES]
    for code in [*(settings.select or []), *settings.ignore, *settings.extend_select]:
        upper = code.upper()
        if upper != "ALL" and not any(k.startswith(upper) for k in known) and not upper.startswith("TCL9"):
            _fail(f"unknown rule selector {code!r}; `torchcopylint rules` lists the codes")


def _fix(run: LintRun, settings: Settings, *, unsafe: bool, write: bool) -> int:
    """Fix every file with fixable diagnostics; replace run.diagnostics with what remains."""
    remaining: list[Diagnostic] = [d for d in run.diagnostics if d.path not in run.sources]
    total_applied = 0
    for path, original in sorted(run.sources.items()):
        rules = select_rules(settings, path)
        lint_module = lambda text: lint_source(text, path, rules)  # noqa: E731
        is_notebook = notebook.is_notebook(path)
        if is_notebook:
            outcome = notebook.fix(original, path, lint_module, unsafe=unsafe)
        else:
            outcome = fix_source(original, path, lint_module, unsafe=unsafe)
        if outcome.error:
            click.echo(f"error: {path}: fixes not applied: {outcome.error}", err=True)
        if outcome.fixed != original:
            total_applied += outcome.applied
            if write:
                write_atomically(Path(path), outcome.fixed, encoding=source_encoding.declared_by(outcome.fixed))
            else:
                diff = notebook.unified_diff if is_notebook else unified_diff
                click.echo(diff(_shown(path), original, outcome.fixed), nl=False)
        remaining.extend(lint_document(outcome.fixed, path, rules))
    run.diagnostics = sorted(remaining, key=Diagnostic.sort_key)
    return total_applied


def _add_noqa(run: LintRun) -> None:
    """Write a `# noqa` for every finding into its file (as --fix writes: atomically) and say how many."""
    by_path: dict[str, list[Diagnostic]] = {}
    for diagnostic in run.diagnostics:
        by_path.setdefault(diagnostic.path, []).append(diagnostic)
    added = 0
    for path, original in sorted(run.sources.items()):
        add = notebook.add_noqa if notebook.is_notebook(path) else noqa.add_noqa
        text, count = add(original, by_path.get(path, []))
        if count:
            write_atomically(Path(path), text, encoding=source_encoding.declared_by(text))
            added += count
    click.echo(f"Added {added} noqa directive{'' if added == 1 else 's'}.", err=True)


def _shown(path: str) -> str:
    try:
        return Path(path).resolve().relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path


def _fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(EXIT_ERROR)


@main.command("rule")
@click.argument("code")
def rule_command(code: str) -> None:
    """Print the documentation page of rule CODE."""
    text = pages.page_text(code)
    if text is None or rule_by_code(code) is None:
        _fail(f"unknown rule {code!r}; `torchcopylint rules` lists the codes")
    click.echo(text, nl=not text.endswith("\n"))


@main.command("server")
def server_command() -> None:
    """Run the language server on stdin/stdout (for editors; needs the `server` extra)."""
    from torchcopylint import server

    if server.missing_requirement():
        _fail(server.INSTALL_HINT)
    server.run()


@main.command("rules")
def rules_command() -> None:
    """List every rule: code, name, fix availability, summary."""
    for rule in ALL_RULES:
        click.echo(f"{rule.code}  {rule.name:<30} fix: {rule.fix_availability:<9} {rule.summary}")
