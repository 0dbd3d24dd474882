"""Answers kept per question, where keeping them cannot make a verdict depend on question order.

The analysis answers questions about names recursively (does this binding require grad? is it a
batch of a loader?), and a question can reach itself through a loop (`h = h * w`) or stop at a
depth limit. Inside such a cycle the question still open answers provisionally (None, False), and
an answer worked out from a provisional one, or from a cut-off search, depends on which question
was asked first, which depends on the order sets iterate in, which changes from run to run with
Python's hash seed. Such answers are given but not kept; the others are. (Tarjan's lowlink: an
answer is kept when nothing it read was open further up the chain of questions.)
"""

from __future__ import annotations

from typing import Any, Callable, Hashable

CUT = -1  # a search stopped at a depth limit: nothing open above it may keep its answer


class Memo:
    def __init__(self) -> None:
        self._answers: dict = {}
        self._open: dict = {}  # question -> its position in the chain of open questions
        self._lowest = float("inf")  # the lowest position a provisional answer came from, in this question

    def answer(self, question: Hashable, work_out: Callable[[], Any], provisional: Any = None) -> Any:
        if question in self._answers:
            return self._answers[question]
        if question in self._open:
            self._lowest = min(self._lowest, self._open[question])
            return provisional
        position = len(self._open)
        self._open[question] = position
        outer, self._lowest = self._lowest, float("inf")
        try:
            found = work_out()
        finally:
            del self._open[question]
        if self._lowest >= position:
            self._answers[question] = found
        self._lowest = min(outer, self._lowest)
        return found

    def cut(self) -> None:
        """The question being worked out stopped at a depth limit: its answer, and those of every
        question still open, depend on how deep they were asked."""
        self._lowest = CUT
