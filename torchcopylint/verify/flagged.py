"""The flagged call of a TCL003 finding, measured on its own: which argument the finding would detach,
the step with only that argument detached (the fix), the step with that argument marked, and the
helper that runs the step's backward.

Runs in the verification child process. A discriminator step may call the discriminator more than
once on the fake batch (`D(fake.detach())` for the score, `D(fake)` for a feature-matching term):
a backward that reaches the generator shows that *some* call carries it there, not that the
flagged one does. So the experiment also measures the flagged argument itself:

- **marked**: the argument is replaced by `__tcl_flagged__(argument)`, which returns a view of it
  with a gradient hook: the backward either sends a gradient back through that very call, into a
  graph that holds the generator's parameters, or it does not;
- **detached**: the step is run again with only that argument detached (the fix), and the
  generator's `.grad` change from the same backward is compared with the step as written.

Both edits keep the file's line numbers. A discriminator step written in a helper
(`d_step(netD, optD, real, fake)`, rules/TCL003.md) has its backward inside the helper: the finding's
`backward_line` is the helper call's line, and the backward to measure is the helper's, run from
that call (`inner_backward_lines`).
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from typing import Any, Optional

import torch

MARK_HELPER = "__tcl_flagged__"


@dataclass(frozen=True)
class Argument:
    """The expression a TCL003 finding detaches, as offsets into the source text."""

    start: int
    end: int
    text: str
    line: int


def _offsets(source: str) -> list[int]:
    """The offset in `source` at which each line (1-based, index - 1) starts."""
    starts, total = [], 0
    for line in source.splitlines(keepends=True):
        starts.append(total)
        total += len(line)
    starts.append(total)
    return starts


def _char_column(line_text: str, byte_offset: int) -> int:
    return len(line_text.encode("utf-8")[:byte_offset].decode("utf-8", errors="replace"))


def flagged_argument(source: str, span: Optional[tuple], discriminator: str) -> Optional[Argument]:
    """The argument the finding at `span` (line, column, end line, end column; 1-based columns, the end
    exclusive, as diagnostics give them) would detach: the expression the span covers; for a span on
    the discriminator's call itself (`D(fake)`, a hand-made finding), its first argument; for a span
    that covers no expression exactly, the first argument of the discriminator call it overlaps."""
    if not span or len(span) != 4 or not all(isinstance(value, int) for value in span):
        return None
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    lines = source.splitlines(keepends=True)
    starts = _offsets(source)
    line, column, end_line, end_column = span
    if not (1 <= line <= len(lines) and 1 <= end_line <= len(lines)):
        return None
    wanted = (starts[line - 1] + column - 1, starts[end_line - 1] + end_column - 1)

    def position(node: ast.expr) -> tuple[int, int]:
        first = starts[node.lineno - 1] + _char_column(lines[node.lineno - 1], node.col_offset)
        last = starts[node.end_lineno - 1] + _char_column(lines[node.end_lineno - 1], node.end_col_offset)
        return first, last

    def argument(node: ast.expr) -> Argument:
        first, last = position(node)
        return Argument(first, last, source[first:last], node.lineno)

    def first_argument(call: ast.Call) -> Optional[ast.expr]:
        positional = [arg for arg in call.args if not isinstance(arg, ast.Starred)]
        if positional:
            return positional[0]
        return call.keywords[0].value if call.keywords else None

    def is_discriminator(node: ast.AST) -> bool:
        return isinstance(node, ast.Call) and bool(discriminator) and ast.unparse(node.func) == discriminator

    candidates = [node for node in ast.walk(tree) if isinstance(node, ast.expr) and hasattr(node, "end_lineno")
                  and node.lineno <= end_line and node.end_lineno >= line]
    exact = [node for node in candidates if position(node) == wanted]
    for node in exact:
        if is_discriminator(node):
            inner = first_argument(node)
            return argument(inner) if inner is not None else None
    if exact:
        return argument(exact[0])
    overlapping = [node for node in candidates if is_discriminator(node)
                   and position(node)[0] < wanted[1] and wanted[0] < position(node)[1]]
    for call in sorted(overlapping, key=lambda node: position(node)[1] - position(node)[0]):
        inner = first_argument(call)
        if inner is not None:
            return argument(inner)
    return None


def detached(source: str, argument: Argument) -> str:
    """The source with only the flagged argument detached: the fix, whatever the diagnosis offered."""
    return f"{source[:argument.start]}({argument.text}).detach(){source[argument.end:]}"


def marked(source: str, argument: Argument) -> str:
    """The source with the flagged argument passed through `__tcl_flagged__` (see `Marks`)."""
    return f"{source[:argument.start]}{MARK_HELPER}({argument.text}){source[argument.end:]}"


@dataclass
class Mark:
    """One evaluation of the flagged argument: what it was, and the view the call got instead."""

    what: str                         # "a tensor that requires grad", "requires_grad=False", ...
    view: Optional[torch.Tensor] = None
    in_graph: bool = False            # the view is in the measured backward's graph
    generator_parameters: int = 0     # generator parameters its own graph holds
    gradient: Optional[float] = None  # norm of the gradient the measured backward sent through it


@dataclass
class Marks:
    """Called as `__tcl_flagged__(argument)` by the marked source: hands the call a view of the
    argument whose gradient hook records what the measured backward sends back through this call
    (and through no other use of the same tensor)."""

    marks: list = field(default_factory=list)
    measuring: bool = False

    def __call__(self, value: Any) -> Any:
        if not isinstance(value, torch.Tensor):
            self.marks.append(Mark(f"a {type(value).__name__}, not a tensor"))
            return value
        if not value.requires_grad:
            self.marks.append(Mark("a tensor with requires_grad=False"))
            return value
        if not torch.is_grad_enabled():
            self.marks.append(Mark("made with grad mode off"))
            return value
        try:
            view = value.view_as(value)
        except RuntimeError:
            self.marks.append(Mark("a tensor that could not be watched"))
            return value
        mark = Mark("a tensor that requires grad", view)
        view.register_hook(lambda grad, mark=mark: self._flowed(mark, grad))
        self.marks.append(mark)
        return view

    def _flowed(self, mark: Mark, grad: torch.Tensor) -> None:
        if self.measuring:
            norm = grad.detach().double().norm().item()
            mark.gradient = norm if mark.gradient is None else mark.gradient + norm

    def before(self, nodes: set, generator_ids: set, leaf_ids) -> None:
        """Just before the measured backward: which marks its graph holds, and what they reach."""
        for mark in self.marks:
            if mark.view is None or mark.view.grad_fn is None:
                continue
            mark.in_graph = mark.view.grad_fn in nodes
            if mark.in_graph:
                mark.generator_parameters = len(leaf_ids([mark.view]) & generator_ids)
        self.measuring = True

    def after(self) -> None:
        self.measuring = False

    @property
    def carried(self) -> list:
        """The marks through which the measured backward reached the generator."""
        return [mark for mark in self.marks if mark.in_graph and mark.generator_parameters
                and mark.gradient is not None]

    @property
    def could_carry(self) -> bool:
        """Some mark was made in a way that could have carried the backward into the generator."""
        return any(mark.view is not None for mark in self.marks)

    def why_not(self) -> str:
        """Why the flagged argument carried nothing into the generator, as measured."""
        if not self.marks:
            return "was never evaluated before that backward"
        if not self.could_carry:
            return f"is {self.marks[-1].what} there: it carries no graph"
        if not any(mark.in_graph for mark in self.marks):
            return "is not in that backward's graph"
        if not any(mark.generator_parameters for mark in self.marks if mark.in_graph):
            return "is in that backward's graph, but its own graph holds none of the generator's parameters"
        return "sent no gradient back through the flagged call"

    def install(self) -> None:
        setattr(builtins, MARK_HELPER, self)

    @staticmethod
    def uninstall() -> None:
        if hasattr(builtins, MARK_HELPER):
            delattr(builtins, MARK_HELPER)


def inner_backward_lines(source: str, backward_line: int, context: dict) -> tuple[int, ...]:
    """For a discriminator step run by a helper of the file (`d_step(netD, optD, real, fake)` at
    `backward_line`), the lines of the helper's own backward calls; () when the statement at
    `backward_line` runs the backward itself. The context's `helper_backward_line` comes first."""
    given = context.get("helper_backward_line")
    if isinstance(given, int):
        return (given,)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ()
    statement = None
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.lineno <= backward_line <= (node.end_lineno or node.lineno) \
                and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.While,
                                          ast.If, ast.With, ast.Try, ast.AsyncFor, ast.AsyncWith)):
            statement = node
    if statement is None or _runs_backward(statement):
        return ()
    functions = {node.name: node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    found: list[int] = []
    for call in (node for node in ast.walk(statement) if isinstance(node, ast.Call)):
        func = call.func
        name = func.id if isinstance(func, ast.Name) else \
            func.attr if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and func.value.id == "self" else None
        helper = functions.get(name) if name else None
        if helper is not None:
            found += [node.lineno for node in ast.walk(helper) if isinstance(node, ast.stmt)
                      and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.For, ast.While, ast.If,
                                                ast.With, ast.Try)) and _runs_backward(node)]
    return tuple(sorted(set(found)))


def _runs_backward(statement: ast.stmt) -> bool:
    for node in ast.walk(statement):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "backward":
            return True
    return False


def binding_before(source: str, expression: str, line: int, later: int) -> Optional[int]:
    """The line of the last statement before `line`, in the innermost loop holding both `line` and
    `later`, that binds a name `expression` reads: the binding whose value reaches `line` on the same
    iteration, where `later` rebinds the name after it. None when there is none (the value then comes
    from `later`, on an earlier iteration)."""
    try:
        tree = ast.parse(source)
        read = {node.id for node in ast.walk(ast.parse(expression, mode="eval")) if isinstance(node, ast.Name)}
    except SyntaxError:
        return None
    loops = [node for node in ast.walk(tree) if isinstance(node, (ast.For, ast.While, ast.AsyncFor))
             and node.lineno <= line <= (node.end_lineno or node.lineno)
             and node.lineno <= later <= (node.end_lineno or node.lineno)]
    if not read or not loops:
        return None
    loop = max(loops, key=lambda node: node.lineno)
    found = None
    for node in ast.walk(loop):
        if not isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) or not loop.lineno < node.lineno < line:
            continue
        if (node.end_lineno or node.lineno) >= line:
            continue  # the flagged statement itself
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        bound = {name.id for target in targets for name in ast.walk(target) if isinstance(name, ast.Name)}
        if bound & read and (found is None or node.lineno > found):
            found = node.lineno
    return found
