"""TCL003 discriminator-without-detach: the discriminator's step backpropagates into the generator.

The pairing of the GAN's roles (which call feeds the discriminator the generator's output, in which
step, through which wrapper, container or helper) is a fact of the analysis
(`ModuleFacts.gan_steps`, analysis/gan_steps.py), shared with TCL011; this rule words it and
offers the detach."""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from torchcopylint.analysis.facts import ModuleFacts
from torchcopylint.analysis.gan_steps import UndetachedFake
from torchcopylint.rules.base import Finding, Rule
from torchcopylint.rules.edits import method_call

SECOND_BACKWARD = "RuntimeError: Trying to backward through the graph a second time"
MODIFIED_IN_PLACE = ("RuntimeError: one of the variables needed for gradient computation has been modified by an "
                     "inplace operation")


class DiscriminatorWithoutDetach(Rule):
    code = "TCL003"
    name = "discriminator-without-detach"
    summary = "The discriminator's loss backpropagates through the generator: detach the fake batch"
    fix_availability = "sometimes"
    triggers = (b"step(",)

    def check(self, facts: ModuleFacts) -> Iterator[Finding]:
        for fake in facts.gan_steps.all():
            yield self._finding(facts, fake)

    def _finding(self, facts: ModuleFacts, fake: UndetachedFake) -> Finding:
        argument = fake.argument
        detached = _detached(argument)
        source = f"`{_one_line(facts, fake.source.func)}(...)`"
        generator = f"the output of {source} (line {facts.line_of(fake.source)}"
        generator += f"; {fake.generator_via})" if fake.generator_via else ")"
        if fake.helper is not None:
            inner = fake.inner_call
            via = f" ({fake.discriminator_via})" if fake.discriminator_via else ""
            message = (
                f"`{_one_line(facts, fake.call)}` hands {generator} to the discriminator step in the {fake.helper} "
                f"(line {facts.line_of(fake.helper_node)}) without `.detach()`: there "
                f"`{_one_line(facts, inner)}`{via} (line {facts.line_of(inner)}) is backpropagated at line "
                f"{facts.line_of(fake.backward_statement)} for `{fake.optimizer}` (step at line "
                f"{facts.line_of(fake.step_statement)}), through the whole generator, which fills its `.grad`"
            )
        elif fake.target_of is not None:
            discriminator = f" ({fake.discriminator_via})" if fake.discriminator_via else ""
            message = (
                f"`{_one_line(facts, argument)}`, {generator}, enters the discriminator's loss without "
                f"`.detach()` beside `{_one_line(facts, fake.target_of)}`{discriminator} (line "
                f"{facts.line_of(fake.target_of)}), whose input is detached: the backward at line "
                f"{facts.line_of(fake.backward_statement)} for `{fake.optimizer}` (step at line "
                f"{facts.line_of(fake.step_statement)}) still runs through the whole generator through this "
                f"`{_one_line(facts, argument)}` and fills its `.grad`"
            )
        else:
            discriminator = f" ({fake.discriminator_via})" if fake.discriminator_via else ""
            message = (
                f"`{_one_line(facts, fake.call)}` feeds the discriminator{discriminator} {generator} without "
                f"`.detach()`: the backward at line {facts.line_of(fake.backward_statement)} for "
                f"`{fake.optimizer}` (step at line {facts.line_of(fake.step_statement)}) runs through the whole "
                f"generator and fills its `.grad`"
            )
        if fake.generator_stepped_on is not None:
            message += (
                f", and `{fake.generator_stepped_on.optimizer}` steps at line "
                f"{facts.line_of(fake.generator_stepped_on.statement)} before anything zeroes that `.grad`: the "
                f"generator's update adds this loss's gradient to its own"
            )
        if fake.generator_step is not None:
            message += (
                f", and `{fake.generator_step.optimizer}` steps at line {facts.line_of(fake.generator_step.statement)} "
                f"on those gradients before anything zeroes them: the generator, which has a step and a loss of "
                f"its own, is also trained to help the discriminator"
            )
        crash = fake.later_backward if not fake.retains_graph else None
        if fake.freed_by is not None:
            crash = None
            message += (
                f"; the backward at line {facts.line_of(fake.freed_by.statement)} already ran through the same "
                f"{source} output and freed its graph, so this backward fails with `{SECOND_BACKWARD}`"
            )
        elif crash is not None and crash.statement is fake.loss_statement:
            loop = fake.function.loops_of[fake.loss_statement][-1]
            message += (
                f", and frees its graph: when the loop at line {facts.line_of(loop)} runs it again, the same "
                f"backward goes through the same {source} output again and fails with `{SECOND_BACKWARD}`"
            )
        elif crash is not None:
            message += (
                f", and frees its graph: the backward at line {facts.line_of(crash.statement)} goes through the "
                f"same {source} output again and fails with `{SECOND_BACKWARD}`"
            )
        if fake.reused_after_step is not None:
            message += (
                f"; the backward at line {facts.line_of(fake.reused_after_step.statement)} then runs through the "
                f"retained graph after the optimizer step(s) changed the weights it saved, and fails with "
                f"`{MODIFIED_IN_PLACE}` (TCL011 at line {facts.line_of(fake.loss_statement)})"
            )
        message += f"; use `{_one_line(facts, detached)}`"
        if fake.detach_is_safe:
            fix = self.safe_fix("Detach the generator output", argument, detached)
        else:
            reason = fake.unsafe_reason
            why = reason[0].format(line=facts.line_of(reason[1])) if reason is not None else "it could change other steps"
            message += f" (the fix is unsafe here: {why})"
            fix = self.unsafe_fix("Detach the generator output", argument, detached)
        if fake.retains_graph and fake.later_backward is not None:
            # TCL011 reports that backward, and names this finding.
            if fake.reused_after_step is None:
                message += (f"; `retain_graph=True` on that backward only hides the second-backward error of the "
                            f"backward at line {facts.line_of(fake.later_backward.statement)} (TCL011 at line "
                            f"{facts.line_of(fake.loss_statement)})")
        return self.finding(argument, message, fix,
                            generator=fake.generator, discriminator=fake.discriminator,
                            generator_line=facts.line_of(fake.source), backward_line=facts.line_of(fake.loss_statement),
                            step_line=facts.line_of(fake.step_statement),
                            second_backward_line=facts.line_of(crash.statement) if crash is not None else None,
                            # A step in a helper: --verify measures the helper's own backward, run from backward_line.
                            helper_backward_line=facts.line_of(fake.backward_statement) if fake.helper else None)


def _one_line(facts: ModuleFacts, node: cst.CSTNode, limit: int = 80) -> str:
    text = " ".join(facts.code_for(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _detached(argument: cst.BaseExpression) -> cst.BaseExpression:
    """`fake.detach()`; for a list or tuple of the generator's outputs (`D((fake_a, fake_b))`: a list
    has no `.detach()`), the same list with each element detached."""
    if isinstance(argument, (cst.List, cst.Tuple)) and argument.elements:
        return argument.with_changes(elements=[
            element.with_changes(value=method_call(element.value, "detach")) for element in argument.elements])
    return method_call(argument, "detach")
