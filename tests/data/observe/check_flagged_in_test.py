"""A pytest test module with a flagged line of its own (TCL008), run as `pytest check_flagged_in_test.py`.

Named so that the project's own test run does not collect it.
"""

import torch


def test_copy_construct():
    t = torch.ones(2)
    u = torch.tensor(t)
    assert u.sum().item() == 2
