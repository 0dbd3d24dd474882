"""The backward slice of a flagged top-level statement: what must run before it, and nothing else.

A script's top level is a sequence of statements. To run a flagged one, the
verifier runs it after the earlier statements it depends on: those that bind a
name it reads, or may change such a name (`w.data.zero_()`, `opt.step()` where
`opt = SGD([w])`, `init(w)`), and, transitively, what those depend on. A
training loop the flagged statement does not depend on never runs. The body of
`if __name__ == "__main__":` counts as top level when the flagged line is in it.

The slice is conservative where it cannot see: a call to a function or object
of the file may change every name passed to it, and names assigned from one
another (`opt = SGD(model.parameters())`) are changed together. Calls on an
imported module (`torch.save(model, ...)`, `plt.plot(x)`) are taken to change
their arguments only when the function name ends in `_` (PyTorch's in-place
convention: `nn.init.zeros_(w)`).

The text keeps the file's line numbers (statements left out become blank
lines), so probes and tracebacks point at the user's lines.
"""

from __future__ import annotations

import ast
import builtins
from typing import Iterable, Optional

from torchcopylint.verify.snippet import module_names_read

_BUILTINS = frozenset(dir(builtins))
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_IMPORTS = (ast.Import, ast.ImportFrom)


def module_level_slice(source: str, lines: Iterable[int]) -> Optional[str]:
    """The module's text with only the top-level statements holding `lines` (the flagged line and
    the other lines its claim needs, such as a later write) and their backward slice; None when
    the first line is inside no top-level statement."""
    lines = list(lines)
    tree = ast.parse(source)
    statements = _top_level(tree, lines[0])
    if not any(_first_line(node) <= lines[0] <= _last_line(node) for node in statements):
        return None
    targets = {i for i, node in enumerate(statements) if any(_first_line(node) <= line <= _last_line(node)
                                                            for line in lines)}
    last = max(targets)
    earlier = statements[:last]
    functions = {node.name: node for node in earlier if isinstance(node, _DEFINITIONS)}
    modules = _imported_names(earlier)
    aliases = _alias_groups(earlier, modules | set(functions))
    immutable = _immutable_names(earlier)  # a number passed to a call is not changed by it
    keep = set(targets)
    needed: set[str] = set()
    for index in range(last, -1, -1):
        node = statements[index]
        if index not in keep:
            touched = _bound(node) | (_changed(node, modules, functions) - immutable)
            touched |= _given_gradients(node, earlier[:index]) - modules - set(functions)
            touched |= {alias for name in touched for alias in aliases.get(name, ())}
            # `from model import *`, also in a branch (`if opt.dataset != "timagenet": from model import *`):
            # what it binds is not in sight, so it stays.
            star_import = any(isinstance(sub, ast.ImportFrom) and any(alias.name == "*" for alias in sub.names)
                              for sub in ast.walk(node) if not isinstance(sub, _DEFINITIONS))
            is_future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
            if not (touched & needed or star_import or is_future):
                continue
            keep.add(index)
        # What the statement binds for certain, earlier statements need not make (`y = []` after a
        # loop that also bound `y`); what it reads, they must.
        needed = (needed - _definitely_bound(node)) | _read(node, functions)
    return _text(source, [statements[i] for i in sorted(keep)])


def _definitely_bound(node: ast.stmt) -> set[str]:
    """The names a top-level statement binds whenever it runs to its end: assignment targets (not
    an attribute or item of one), imports, definitions, `with ... as name`; not a loop's targets
    (it may run zero times) nor names bound in a branch."""
    if isinstance(node, _DEFINITIONS + _IMPORTS):
        return _bound(node)
    targets: list = []
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        targets = [node.target]
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        targets = [item.optional_vars for item in node.items if item.optional_vars is not None]
    names: set[str] = set()
    for target in targets:
        pending = [target]
        while pending:
            current = pending.pop()
            if isinstance(current, ast.Name):
                names.add(current.id)
            elif isinstance(current, (ast.Tuple, ast.List)):
                pending.extend(current.elts)
            elif isinstance(current, ast.Starred):
                pending.append(current.value)
    return names


def _top_level(tree: ast.Module, line: int) -> list[ast.stmt]:
    """The top-level statements, with the body of a main guard that holds `line` opened up (also one
    written inside a top-level `try:`, `try: if __name__ == "__main__": ... except KeyboardInterrupt:`,
    whose handlers are left out: an error is the run's to report)."""
    return _opened(list(tree.body), line)


def _opened(body: list, line: int) -> list[ast.stmt]:
    for index, node in enumerate(body):
        holds = any(_first_line(stmt) <= line <= _last_line(stmt) for stmt in getattr(node, "body", ()))
        if isinstance(node, ast.If) and is_main_guard(node) and holds:
            return body[:index] + list(node.body)
        if isinstance(node, ast.Try) and holds and any(isinstance(stmt, ast.If) and is_main_guard(stmt)
                                                       for stmt in node.body):
            return body[:index] + _opened(list(node.body), line)
    return body


def is_main_guard(node: ast.AST) -> bool:
    """`if __name__ == "__main__":`, also written the other way round (`if "__main__" == __name__:`)."""
    test = node.test if isinstance(node, ast.If) else None
    return isinstance(test, ast.Compare) and len(test.comparators) == 1 and any(
        isinstance(side, ast.Name) and side.id == "__name__" for side in (test.left, test.comparators[0]))


def _first_line(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", None)
    return decorators[0].lineno if decorators else node.lineno


def _last_line(node: ast.stmt) -> int:
    return node.end_lineno or node.lineno


def _bound(node: ast.stmt) -> set[str]:
    """Every name the statement (or a block inside it) may bind at top level."""
    if isinstance(node, _DEFINITIONS):
        return {node.name}
    names: set[str] = set()
    pending: list[ast.AST] = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, _IMPORTS):
            names.update((alias.asname or alias.name).split(".")[0] for alias in current.names if alias.name != "*")
        elif isinstance(current, _DEFINITIONS):
            names.add(current.name)
            continue  # its body binds locals
        elif isinstance(current, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        elif isinstance(current, ast.Name) and isinstance(current.ctx, (ast.Store, ast.Del)):
            names.add(current.id)
        pending.extend(ast.iter_child_nodes(current))
    return names


def _read(node: ast.stmt, functions: dict[str, ast.stmt]) -> set[str]:
    """Names the statement reads, with those read by the file's functions and classes it names.
    A name the statement binds before it reads it (a loop's own targets, `for step, (x, _) in ...`;
    `y = torch.zeros(n)` then `y += f(x)` in the loop's body) needs no earlier statement."""
    names = module_names_read(node) if isinstance(node, _DEFINITIONS) else _read_before_bound(node)
    pending = [name for name in names if name in functions]
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        inner = module_names_read(functions[name])
        names |= inner
        pending.extend(other for other in inner if other in functions)
    return names


def _read_before_bound(node: ast.stmt) -> set[str]:
    """The names a statement reads that it has not bound itself, in the order it runs: a binding in a
    block that may not run (a branch, a loop's body for the code after the loop, a `try`) binds
    nothing for what follows it."""
    reads: set[str] = set()

    def expression(node: ast.AST, bound: set) -> None:
        own = {n.id for sub in ast.walk(node) if isinstance(sub, ast.comprehension)
               for n in ast.walk(sub.target) if isinstance(n, ast.Name)}
        reads.update(sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name)
                     and isinstance(sub.ctx, ast.Load) and sub.id not in bound and sub.id not in own)

    def target(node: ast.AST, bound: set) -> None:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                bound.add(sub.id)
            elif isinstance(sub, (ast.Attribute, ast.Subscript)):
                expression(sub.value, bound)  # `a.b = v`, `a[i] = v`: read `a` (and `i`)
                if isinstance(sub, ast.Subscript):
                    expression(sub.slice, bound)

    def block(statements: list, bound: set) -> None:
        for statement in statements:
            run(statement, bound)

    def run(statement: ast.stmt, bound: set) -> None:
        if isinstance(statement, (ast.Assign, ast.AnnAssign)):
            if statement.value is not None:
                expression(statement.value, bound)
            for each in (statement.targets if isinstance(statement, ast.Assign) else [statement.target]):
                target(each, bound)
        elif isinstance(statement, ast.AugAssign):
            expression(statement.value, bound)
            if isinstance(statement.target, ast.Name):
                if statement.target.id not in bound:
                    reads.add(statement.target.id)
            else:
                target(statement.target, bound)
        elif isinstance(statement, (ast.For, ast.AsyncFor)):
            expression(statement.iter, bound)
            inner = set(bound)
            target(statement.target, inner)
            block(statement.body, inner)
            block(statement.orelse, set(bound))
        elif isinstance(statement, ast.While):
            expression(statement.test, bound)
            block(statement.body, set(bound))
            block(statement.orelse, set(bound))
        elif isinstance(statement, ast.If):
            expression(statement.test, bound)
            block(statement.body, set(bound))
            block(statement.orelse, set(bound))
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            for item in statement.items:
                expression(item.context_expr, bound)
                if item.optional_vars is not None:
                    target(item.optional_vars, bound)
            block(statement.body, bound)
        elif isinstance(statement, ast.Try):
            block(statement.body, set(bound))
            for handler in statement.handlers:
                block(handler.body, set(bound))
            block(statement.orelse, set(bound))
            block(statement.finalbody, set(bound))
        elif isinstance(statement, _DEFINITIONS + _IMPORTS):
            if isinstance(statement, _DEFINITIONS):
                reads.update(module_names_read(statement) - bound)
            bound.update(_bound(statement))
        else:
            expression(statement, bound)

    run(node, set())
    return reads


def _given_gradients(node: ast.stmt, earlier: list[ast.stmt]) -> set[str]:
    """The names a backward in the statement may give gradients: `loss.backward()` (or
    `torch.autograd.backward(loss)`) fills the `.grad` of the tensors `loss` was computed from, so a
    later `y1.grad` needs it when `loss = (y1 - y2) ** 2`. What the assignments of the loss read,
    transitively, in the statement and those before it."""
    losses: set[str] = set()
    for call in (sub for sub in ast.walk(node) if isinstance(sub, ast.Call)):
        function = call.func
        if isinstance(function, ast.Attribute) and function.attr == "backward":
            if isinstance(function.value, ast.Attribute) and ast.unparse(function.value) in ("torch.autograd", "autograd"):
                losses |= {sub.id for argument in call.args[:1] for sub in ast.walk(argument) if isinstance(sub, ast.Name)}
            else:
                losses |= _root(function.value)
    if not losses:
        return set()
    sources: dict[str, set[str]] = {}
    for statement in [*earlier, node]:
        for sub in ast.walk(statement):
            if isinstance(sub, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and sub.value is not None:
                read = {name.id for name in ast.walk(sub.value) if isinstance(name, ast.Name)}
                for target in (sub.targets if isinstance(sub, ast.Assign) else [sub.target]):
                    for name in (n.id for n in ast.walk(target) if isinstance(n, ast.Name)):
                        sources.setdefault(name, set()).update(read)
    found: set[str] = set()
    pending = list(losses)
    while pending:
        name = pending.pop()
        if name not in found:
            found.add(name)
            pending.extend(sources.get(name, ()))
    return found


def _changed(node: ast.stmt, modules: set[str], functions: dict[str, ast.stmt]) -> set[str]:
    """Names whose objects the statement may change in place (beyond the names it binds)."""
    if isinstance(node, _DEFINITIONS + _IMPORTS):
        return set()
    changed: set[str] = set()
    # A method called for its effect (`opt.step()`, `model.train()`) may change its receiver; one
    # whose value is used (`w.detach()`, `x.sum()`) is taken to read it, unless named in place (`add_`).
    for_effect = {id(sub.value) for sub in ast.walk(node) if isinstance(sub, ast.Expr)}
    for sub in ast.walk(node):
        if isinstance(sub, (ast.Attribute, ast.Subscript)) and isinstance(sub.ctx, (ast.Store, ast.Del)):
            changed |= _root(sub)
        elif isinstance(sub, ast.AugAssign):
            changed |= _root(sub.target)
        elif isinstance(sub, ast.Call):
            changed |= _changed_by_call(sub, modules, functions, id(sub) in for_effect)
    # `f(torch.randn(2))` does not change the torch module, nor `g(f)` the function f, nor any call
    # the verifier's own helpers (its stand-in data).
    return {name for name in changed - modules - set(functions) if not name.startswith("__tcl_")}


def _changed_by_call(call: ast.Call, modules: set[str], functions: dict[str, ast.stmt], for_effect: bool) -> set[str]:
    func = call.func
    receiver = set()
    if isinstance(func, ast.Attribute) and (for_effect or func.attr.endswith("_")):
        receiver = _root(func.value)
    # What the call is given: `f(net)`, `f(net.fc)`, `f(model.to(device))`; not a callee inside an
    # argument (`show(gen(noise))` is given a new tensor, not `gen`).
    arguments = {name for argument in [*call.args, *(keyword.value for keyword in call.keywords)]
                 for name in _may_be(argument)}
    if isinstance(func, ast.Name) and func.id in ("setattr", "delattr") and call.args and func.id not in functions:
        return _root(call.args[0])  # `setattr(args, key, value)`: a configuration read into the namespace
    if isinstance(func, ast.Name) and (func.id in _BUILTINS or func.id.startswith("__tcl_")) \
            and func.id not in functions:
        return set()  # print(x), len(x), range(n), the verifier's stand-in data: they change nothing
    if isinstance(func, ast.Attribute) and _root(func.value) & modules:
        # torch.save(model, path) reads its arguments; nn.init.zeros_(w) writes them.
        return arguments if func.attr.endswith("_") else set()
    # A method (x.add_(1), opt.step()) may change its receiver; any callable its arguments.
    changed = receiver | arguments
    if isinstance(func, ast.Name) and func.id in functions:
        # A function of the file may change the globals it names (global statement or in place); its
        # parameters and locals are not globals (a plotting helper's `image` is not the loop's).
        changed |= module_names_read(functions[func.id])
    return changed


def changed_names(nodes: list[ast.stmt], statements: list[ast.stmt]) -> list[set[str]]:
    """For each top-level statement of `nodes`, the names whose objects it may change in place
    (`netG.apply(init)`, `w.requires_grad_()`), given the module's top-level statements (its imports,
    functions, and the names only ever bound to numbers or strings, which nothing changes)."""
    functions = {n.name: n for n in statements if isinstance(n, _DEFINITIONS)}
    modules = _imported_names(statements)
    immutable = _immutable_names(statements)
    return [_changed(node, modules, functions) - immutable for node in nodes]


def _imported_names(statements: list[ast.stmt]) -> set[str]:
    """The names the top level binds to modules and their functions: also an import under `try:` or
    `if` (`try: from matplotlib import pyplot as plt`), whose `plt.plot(x)` changes no data of the file."""
    names: set[str] = set()
    pending: list[ast.AST] = list(statements)
    while pending:
        node = pending.pop()
        if isinstance(node, _IMPORTS):
            names |= _bound(node)
        elif not isinstance(node, _DEFINITIONS) and isinstance(node, ast.stmt):
            pending.extend(child for child in ast.iter_child_nodes(node)
                           if isinstance(child, (ast.stmt, ast.excepthandler)))
        elif isinstance(node, ast.excepthandler):
            pending.extend(node.body)
    return names


def _root(node: ast.AST) -> set[str]:
    """The variable at the root of `a.b[c].d`: {"a"}."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "vars" and node.args:
        return _root(node.args[0])  # `vars(args).update(config)`: the namespace's own dict
    if isinstance(node, ast.Call):
        return _root(node.func)
    return {node.id} if isinstance(node, ast.Name) else set()


def _alias_groups(statements: list[ast.stmt], not_data: set[str]) -> dict[str, set[str]]:
    """Names that may share objects: `opt = SGD([w])`, `y = x.view(-1)`, `a, b = b, a`. Imported
    modules, functions and classes are not data, so they link nothing."""
    groups: dict[str, set[str]] = {}
    # A loader the verifier stands in for (`loader = __tcl_data__(...)`, verify/datasites.py) makes new
    # batches each time it is iterated: what a loop over it binds shares nothing with it.
    fresh = {n.id for node in statements for sub in ast.walk(node)
             if isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Call)
             and isinstance(sub.value.func, ast.Name) and sub.value.func.id.startswith("__tcl_")
             for t in sub.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    immutable = _immutable_names(statements)
    for node in statements:
        for sub in ast.walk(node):
            if isinstance(sub, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and sub.value is not None:
                targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
                names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
                names |= _may_be(sub.value)
            elif isinstance(sub, (ast.For, ast.AsyncFor, ast.comprehension)):
                names = {n.id for n in ast.walk(sub.target) if isinstance(n, ast.Name)} | _may_be(sub.iter)
                names -= fresh
            else:
                continue
            names -= not_data | _BUILTINS | immutable
            merged = set(names)
            for name in names:
                merged |= groups.get(name, set())
            for name in merged:
                groups[name] = merged
    return groups


def _may_be(value: ast.AST) -> set[str]:
    """The names whose objects a value may be, or hold: `x`, `x.w`, `x[0]`, `x.view(-1)` (a method may
    return its receiver: `model.to(device)`), `f(net)` (a function may return its argument); not a
    callee (`net(x)` is a new tensor, not `net`), an operator's result (`a + b`, `y += t` leaves
    `y` the object it was), nor what a comprehension computes from its elements."""
    if isinstance(value, ast.Name):
        return {value.id}
    if isinstance(value, (ast.Attribute, ast.Subscript, ast.Starred)):
        return _may_be(value.value)
    if isinstance(value, ast.Call):
        arguments = {name for argument in (*value.args, *(k.value for k in value.keywords)) for name in _may_be(argument)}
        receiver = _may_be(value.func.value) if isinstance(value.func, ast.Attribute) else set()
        return receiver | arguments
    if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        return {name for element in value.elts for name in _may_be(element)}
    if isinstance(value, ast.Dict):
        return {name for element in value.values for name in _may_be(element)}
    if isinstance(value, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        element = _may_be(value.value if isinstance(value, ast.DictComp) else value.elt)
        own = {n.id for generator in value.generators for n in ast.walk(generator.target) if isinstance(n, ast.Name)}
        held = {name for generator in value.generators for name in _may_be(generator.iter)} if element & own else set()
        return (element - own) | held
    if isinstance(value, ast.IfExp):
        return _may_be(value.body) | _may_be(value.orelse)
    if isinstance(value, ast.BoolOp):
        return {name for operand in value.values for name in _may_be(operand)}
    if isinstance(value, ast.NamedExpr):
        return _may_be(value.target) | _may_be(value.value)
    return set()


def _immutable_names(statements: list[ast.stmt]) -> set[str]:
    """Names only ever bound to numbers, strings or tuples of them (`image_size = 32`, `dim = 28 * 28`):
    their objects cannot change, so sharing them links nothing (`Linear(image_size, 64)`)."""
    values: dict[str, list] = {}
    assigned: set[int] = set()  # the Name nodes bound by a plain assignment
    for node in statements:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Assign) and all(isinstance(t, ast.Name) for t in sub.targets):
                for target in sub.targets:
                    values.setdefault(target.id, []).append(sub.value)
                    assigned.add(id(target))
            elif isinstance(sub, (ast.AugAssign, ast.AnnAssign)) and isinstance(sub.target, ast.Name) \
                    and sub.value is not None:
                values.setdefault(sub.target.id, []).append(sub.value)
                assigned.add(id(sub.target))
    other = {sub.id for node in statements for sub in ast.walk(node)
             if isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)) and id(sub) not in assigned}
    other |= {name for node in statements if isinstance(node, (*_IMPORTS, *_DEFINITIONS)) for name in _bound(node)}
    immutable: set[str] = set()
    while True:
        more = {name for name, bound in values.items() if name not in immutable and name not in other
                and all(_is_constant(value, immutable) for value in bound)}
        if not more:
            return immutable
        immutable |= more


def _is_constant(node: ast.AST, immutable: set[str]) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        return node.id in immutable
    if isinstance(node, ast.BinOp):
        return _is_constant(node.left, immutable) and _is_constant(node.right, immutable)
    if isinstance(node, ast.UnaryOp):
        return _is_constant(node.operand, immutable)
    if isinstance(node, ast.Tuple):
        return all(_is_constant(element, immutable) for element in node.elts)
    return False


def _text(source: str, kept: list[ast.stmt]) -> str:
    lines = source.splitlines(keepends=True)
    out = ["\n"] * len(lines)
    for node in kept:
        dedent = node.col_offset  # a statement from a main guard's body moves to column 0
        for index in range(_first_line(node) - 1, _last_line(node)):
            text = lines[index]
            strip = min(dedent, len(text) - len(text.lstrip(" \t")))
            out[index] = text[strip:] if text[strip:] else "\n"
    return "".join(out)
