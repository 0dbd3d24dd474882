"""What the analysis knows of a class of the file: its methods and what each `self.` attribute is
assigned (ModuleFacts builds them; the callee effects read them)."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst


@dataclass
class ClassFacts:
    node: cst.ClassDef
    name: str
    base_names: list[str]
    methods: dict[str, cst.FunctionDef] = field(default_factory=dict)
    # `self.<attribute> = <call>` assignments, by attribute; several when reassigned.
    attribute_values: dict[str, list[cst.BaseExpression]] = field(default_factory=dict)
    # each of those values -> the method it is assigned in (to resolve the names it uses)
    assigned_in: dict[cst.BaseExpression, cst.FunctionDef] = field(default_factory=dict)
