"""The rule registry: every rule, in code order. Adding a rule means adding it here."""

from __future__ import annotations

from typing import Optional

from torchcopylint.rules.alias_mutated_in_place import AliasMutatedInPlace
from torchcopylint.rules.base import Finding, NodeFix, Rule
from torchcopylint.rules.clone_detach_order import CloneDetachOrder
from torchcopylint.rules.data_write_under_autograd import DataWriteUnderAutograd
from torchcopylint.rules.detached_alias_mutated import DetachedAliasMutated
from torchcopylint.rules.discriminator_without_detach import DiscriminatorWithoutDetach
from torchcopylint.rules.graph_kept_alive import GraphKeptAlive
from torchcopylint.rules.inplace_on_leaf import InplaceOnLeaf
from torchcopylint.rules.leaf_lost_by_copy import LeafLostByCopy
from torchcopylint.rules.numpy_of_grad_tensor import NumpyOfGradTensor
from torchcopylint.rules.redundant_clone import RedundantClone
from torchcopylint.rules.retain_graph_workaround import RetainGraphWorkaround
from torchcopylint.rules.tensor_copy_construct import TensorCopyConstruct

ALL_RULES: tuple[Rule, ...] = (
    RedundantClone(),
    AliasMutatedInPlace(),
    DiscriminatorWithoutDetach(),
    InplaceOnLeaf(),
    CloneDetachOrder(),
    DetachedAliasMutated(),
    GraphKeptAlive(),
    TensorCopyConstruct(),
    NumpyOfGradTensor(),
    DataWriteUnderAutograd(),
    RetainGraphWorkaround(),
    LeafLostByCopy(),
)


def rule_by_code(code: str) -> Optional[Rule]:
    for rule in ALL_RULES:
        if rule.code == code.upper():
            return rule
    return None


__all__ = ["ALL_RULES", "Finding", "NodeFix", "Rule", "rule_by_code"]
