"""A registry's decorator run a second time, in the experiment only.

Runs in the verification child process. An experiment executes the flagged file's
text as a fresh module of its package, after the package's own `__init__.py` has
imported the real module. A class filed in a project registry as it is defined
(`@registry.register_attack("bim")`, `@MODELS.register_module()`) is then filed a
second time, and many registries refuse that (`KeyError: Name 'bim' already
registered`): an error the program itself never meets. So each decorator named
`register...` runs through `__tcl_registered__`, which gives back the class as the
module defines it when the registration fails. A registration decorator files the
class and returns it; the class the experiment runs is the file's own either way.
The failure is named in the evidence. The user's file is not changed.
"""

from __future__ import annotations

import ast
from typing import Any, Callable

from torchcopylint.verify.absent import REGISTRATION

REGISTERED_HELPER = "__tcl_registered__"


def tolerate(text: str) -> str:
    """`text` with each `@...register...(...)` decorator made `@__tcl_registered__(lambda: ..., line)`;
    line numbers kept."""
    if "register" not in text:
        return text
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    from torchcopylint.verify.datasites import replace_nodes

    edits = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for decorator in node.decorator_list:
            callee = decorator.func if isinstance(decorator, ast.Call) else decorator
            name = callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", "")
            if REGISTRATION.match(name):
                written = ast.get_source_segment(text, decorator) or ast.unparse(decorator)
                edits.append((decorator, f"{REGISTERED_HELPER}(lambda: {written}, {decorator.lineno})"))
    return replace_nodes(text, edits) if edits else text


def registered(decorator: Callable[[], Callable], line: int) -> Callable[[Any], Any]:
    """The decorator `decorator()` gives, except that a registration refused (the project's import
    filed the class first) leaves the class as it is."""
    def apply(defined: Any) -> Any:
        try:
            return decorator()(defined)
        except Exception as error:  # noqa: BLE001 - a registry's own refusal, named in the evidence
            from torchcopylint.verify import script

            script.note(f"the registration at line {line} ran a second time and was refused "
                        f"({type(error).__name__}); the class is the file's own")
            return defined

    return apply
