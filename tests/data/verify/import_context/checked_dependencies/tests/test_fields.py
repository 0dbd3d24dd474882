"""The project's own test module, written for pytest (not installed where --verify runs)."""
import pytest
import torch

from checked_dependencies.fields import as_leaf


@pytest.fixture(scope="module")
def points():
    return torch.rand(8, 3)


@pytest.mark.parametrize("width", [4, 8])
def test_as_leaf_keeps_the_values(width):
    points = torch.rand(8, 3)
    weights = torch.randn(3, width, requires_grad=True)
    kept = (points @ weights).clone().detach()  # expect: TCL005
    assert kept.shape == (8, width)
