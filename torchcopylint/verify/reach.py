"""Reached or not: which lines a verdict depends on, and the verdict over several settings.

Runs in the verification child process. A verdict is about code that ran: an
experiment records the lines of the user's file each run executed (a
`LineProbe`), and a claim counts as tested only in a setting (a constructor
configuration, a set of stand-in arguments) where every line it depends on ran.
`refuted` needs such a setting; when none ran them the verdict is `not reached`,
naming the line that never ran.
"""

from __future__ import annotations

import ast
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional

from torchcopylint.verify.absent import UnknownArgumentUsed
from torchcopylint.verify.inputs import CannotRun


@dataclass(frozen=True)
class Outcome:
    status: str  # confirmed | refuted | unverified | not reached
    evidence: str


def confirmed(evidence: str) -> Outcome:
    return Outcome("confirmed", evidence)


def refuted(evidence: str) -> Outcome:
    return Outcome("refuted", evidence)


def unverified(evidence: str) -> Outcome:
    return Outcome("unverified", evidence)


def not_reached(evidence: str) -> Outcome:
    return Outcome("not reached", evidence)


@dataclass
class Run:
    """What one setting's run showed: the outcome if its lines ran, and which lines of the file ran."""

    outcome: Optional[Outcome]
    executed: set = field(default_factory=set)
    error: Optional[str] = None  # why the run ended before it could decide


class NotReached(Exception):
    """Raised by an experiment whose lines never ran in any setting: becomes `not reached`."""


def claim_lines(code: str, line: int, context: dict) -> dict[int, str]:
    """The lines a diagnosis's claim depends on, each with what it is (from the rule's context)."""
    lines = {line: "the flagged line"}
    wanted = {
        "TCL001": [("read_line", "the read of the copy")],
        "TCL002": [("event_line", "the in-place write"), ("read_line", "the read of the alias")],
        "TCL003": [("generator_line", "the generator call"), ("backward_line", "the backward")],
        "TCL006": [("write_line", "the write through the alias")],
    }.get(code, [])
    for key, meaning in wanted:
        value = context.get(key)
        if isinstance(value, int) and value not in lines:
            lines[value] = meaning
    return lines


def statement_lines_between(source: str, first: int, last: int, reading: Optional[str] = None) -> dict[int, str]:
    """The first line of every simple statement strictly between two lines of the same function:
    the code that could write the copied tensor before it is read. `reading`: only those that read
    that name."""
    found = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.stmt) and not isinstance(node, _COMPOUND + _WRITE_NOTHING) \
                and not _raises_a_message(node) and first < node.lineno < last and (
                reading is None or any(isinstance(sub, ast.Name) and sub.id == reading
                                       and isinstance(sub.ctx, ast.Load) for sub in ast.walk(node))):
            found[node.lineno] = "a statement between the copy and its read"
    return found


_COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.AsyncFor, ast.While,
             ast.With, ast.AsyncWith, ast.Try)
# Statements that write no tensor: a solver's convergence `break` that stand-in values never reach is
# no path on which the copy could be needed.
_WRITE_NOTHING = (ast.Break, ast.Continue, ast.Pass, ast.Global, ast.Nonlocal, ast.Import, ast.ImportFrom)


def _raises_a_message(statement: ast.stmt) -> bool:
    """`raise ValueError('norm not supported')`: an error made of constants, which computes nothing and
    ends the path (the copy is not read after it)."""
    if not isinstance(statement, ast.Raise) or statement.cause is not None:
        return False
    made = statement.exc
    return isinstance(made, ast.Name) or isinstance(made, ast.Call) and isinstance(made.func, ast.Name) and all(
        isinstance(argument, ast.Constant) for argument in [*made.args, *(k.value for k in made.keywords)])


def _failed(setting, error: str) -> str:
    """How a setting failed, naming the setting only as far as leaves room for the error: a long
    setting (a call site's every value) once pushed the error itself out of the evidence."""
    description = setting.description
    if len(description) > 150:
        description = description[:140].rstrip() + " ..."
    return f"{description}: {error}"


# Seconds after which a universal claim whose every line has run, and held, in the settings tried so
# far tries no more: an attack run whole in each of ten settings (FAB, Square) once ran past the
# experiment's time limit and lost a verdict its first settings had reached.
SETTLED_SECONDS = 20.0


def decide(settings: Iterable, run: Callable[[object], Run], required: dict[int, str], *,
           universal: bool = False, covered: Optional[dict[int, str]] = None) -> Outcome:
    """The verdict over `settings`, tried in order (each has a `description`).

    An existential claim (the bug can happen) is confirmed by the first setting that ran every
    required line and showed it; refuted only if some setting ran them all and none showed it. A
    setting marked `final` (the values the program's own call passes) that ran them decides alone.
    A universal claim (the copy is never needed) is refuted by the first setting that ran them
    and showed otherwise; confirmed only if every line of `covered` also ran in some setting (once
    they all have, and SETTLED_SECONDS have passed, no further setting is tried; the evidence says so).
    """
    tried = 0
    passed: list[tuple[object, Outcome]] = []
    executed_anywhere: set[int] = set()
    errors: list[str] = []
    # Why runs that ran every required line decided nothing (a read that took no written value): said first.
    reached_errors: list[str] = []
    finished = 0  # runs that ended without an error: only they can show a line is not reached
    started = time.perf_counter()
    settled = ""
    for setting in settings:
        elapsed = time.perf_counter() - started
        if universal and passed and elapsed > SETTLED_SECONDS and not any(
                line not in executed_anywhere for line in {**required, **(covered or {})}):
            settled = f"every line had run after {elapsed:.0f} s: no further configuration was tried"
            break
        tried += 1
        try:
            result = run(setting)
        except (CannotRun, UnknownArgumentUsed) as reason:
            errors.append(_failed(setting, str(reason)))
            continue
        except Exception as error:  # noqa: BLE001 - the user's code (or a stand-in misfit) raised
            errors.append(_failed(setting, f"{type(error).__name__}: {str(error).splitlines()[0][:160] if str(error) else ''}"))
            continue
        executed_anywhere |= result.executed
        if result.error:
            ran_all = all(line in result.executed for line in required)
            (reached_errors if ran_all and result.outcome is None else errors).append(_failed(setting, result.error))
        else:
            finished += 1
        if result.outcome is None or any(line not in result.executed for line in required):
            continue
        decisive = "refuted" if universal else "confirmed"
        if result.outcome.status == decisive:
            return named(result.outcome, setting)
        if getattr(setting, "final", False) and not (universal and any(
                line not in result.executed for line in (covered or {}))):
            # What the program itself passes (a top-level call's values) decides: a setting made up
            # later cannot overturn it.
            return named(result.outcome, setting)
        passed.append((setting, result.outcome))
    unreached = {line: meaning for line, meaning in {**required, **(covered or {})}.items()
                 if line not in executed_anywhere}
    if passed and not (universal and unreached):
        setting, outcome = passed[0]
        outcome = named(outcome, setting)
        notes = ([f"same in {len(passed)} configurations"] if len(passed) > 1 else []) + ([settled] if settled else [])
        if notes:
            outcome = Outcome(outcome.status, f"{outcome.evidence} ({'; '.join(notes)})")
        return outcome
    if finished and unreached:
        line, meaning = min(unreached.items())
        settings_text = "configuration" if tried == 1 else "configurations"
        evidence = f"line {line} ({meaning}) never ran in {tried} {settings_text} tried"
        if errors:
            # Some runs failed first: the verdict rests on the ones that ran to their end without it.
            ended = "1 ran to its end" if finished == 1 else f"{finished} ran to their end"
            evidence += f" ({ended} without it; {tried - finished} failed before it: {errors[-1][:300]})"
        return not_reached(evidence)
    errors = reached_errors + errors
    if errors:
        if len(errors) > 1 and all(e.endswith(errors[0].split(": ", 1)[-1]) for e in errors):
            errors = errors[:1]  # every setting failed the same way: say it once
        raise CannotRun(errors[0][:400] if len(errors) == 1 else f"{errors[0][:330]} (and {len(errors) - 1} more)",
                        every_error=tuple(errors))
    raise CannotRun("the code ran none of the flagged lines")


def named(outcome: Outcome, setting: object) -> Outcome:
    """The outcome, its evidence ending with the setting it was found in (unless that says nothing)."""
    description = getattr(setting, "description", "")
    if not description or description in ("as given", "stand-ins"):  # the evidence already says so
        return outcome
    return Outcome(outcome.status, f"{outcome.evidence}; with {description}")
