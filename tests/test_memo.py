"""Answers kept per question only where keeping them cannot make a verdict depend on question order."""

from __future__ import annotations

from torchcopylint.analysis.memo import Memo


def test_an_answer_is_kept_and_a_cycle_answers_provisionally():
    memo = Memo()
    assert memo.answer("plain", lambda: 42) == 42 and memo.answer("plain", lambda: 0) == 42  # kept
    # A question that reaches itself (`h = h * w` in a loop): answered provisionally inside itself.
    loop = memo.answer("loop", lambda: memo.answer("loop", lambda: "never worked out", "open") + " seen")
    assert loop == "open seen"
    assert memo.answer("loop", lambda: "again") == "open seen"  # its own cycle only: kept


def test_an_answer_read_from_an_open_question_further_up_is_not_kept():
    memo = Memo()
    # "outer" asks "inner", which asks "outer" again: inner's answer rests on outer's provisional one,
    # and would differ had inner been asked first. It is given, not kept; outer's is kept.
    def inner():
        return "inner saw " + str(memo.answer("outer", lambda: "unused", provisional=None))

    assert memo.answer("outer", lambda: memo.answer("inner", inner)) == "inner saw None"
    assert memo.answer("inner", lambda: "inner on its own") == "inner on its own"
    assert memo.answer("outer", lambda: "again") == "inner saw None"


def test_an_answer_cut_by_a_depth_limit_is_not_kept_anywhere_up_the_chain():
    memo = Memo()

    def deep():
        memo.cut()
        return False

    assert memo.answer("top", lambda: memo.answer("middle", lambda: memo.answer("bottom", deep))) is False
    for question in ("top", "middle", "bottom"):
        assert memo.answer(question, lambda: True) is True  # asked afresh: worked out again
