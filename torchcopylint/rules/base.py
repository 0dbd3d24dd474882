"""The shape of a rule: metadata, trigger tokens, and `check`, a reading of ModuleFacts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Iterator, Optional, Union

import libcst as cst

from torchcopylint.diagnostic import Applicability, Severity

if TYPE_CHECKING:
    from torchcopylint.analysis.facts import ModuleFacts


@dataclass(frozen=True)
class NodeFix:
    """A fix stated on the tree: replace each old node's text with the new node's code
    (or with a string, where the new text spans lines and needs the old node's indentation).

    The engine turns it into text edits once positions are known.
    """

    applicability: Applicability
    description: str
    replacements: tuple[tuple[cst.CSTNode, Union[cst.CSTNode, str]], ...]


@dataclass(frozen=True)
class Finding:
    """What a rule reports before positions are resolved."""

    code: str
    name: str
    severity: Severity
    node: cst.CSTNode
    message: str
    fix: Optional[NodeFix] = None
    context: dict[str, Any] = field(default_factory=dict)


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]  # one line, used by `torchcopylint rules` and SARIF
    severity: ClassVar[Severity] = Severity.ERROR
    # "safe", "unsafe", "sometimes" (safe where provable, unsafe otherwise) or "none".
    fix_availability: ClassVar[str] = "none"
    # Byte strings of which at least one must occur in a file for the rule to fire;
    # the engine's prefilter skips parsing files that contain none of them.
    triggers: ClassVar[tuple[bytes, ...]] = ()

    def check(self, facts: "ModuleFacts") -> Iterator[Finding]:
        raise NotImplementedError

    def finding(
        self,
        node: cst.CSTNode,
        message: str,
        fix: Optional[NodeFix] = None,
        **context: Any,
    ) -> Finding:
        return Finding(self.code, self.name, self.severity, node, message, fix, context)

    @staticmethod
    def safe_fix(description: str, old: cst.CSTNode, new: cst.CSTNode) -> NodeFix:
        return NodeFix(Applicability.SAFE, description, ((old, new),))

    @staticmethod
    def unsafe_fix(description: str, old: cst.CSTNode, new: Union[cst.CSTNode, str]) -> NodeFix:
        return NodeFix(Applicability.UNSAFE, description, ((old, new),))
