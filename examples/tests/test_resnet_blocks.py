"""Forward and backward through each residual block of models/resnet_blocks.py.

Run with `pytest examples/tests`. The blocks get a small non-leaf batch, as
inside a network (an input that is itself a leaf would turn the in-place ReLUs
of the pre-activation blocks into errors).
"""

import pytest
import torch

from models import resnet_blocks

PLANES = 8
BLOCKS = {
    "CloningBasicBlock": lambda: resnet_blocks.CloningBasicBlock(PLANES),
    "PreActAliasBlock": lambda: resnet_blocks.PreActAliasBlock(PLANES),
    "PreActSequentialBlock": lambda: resnet_blocks.PreActSequentialBlock(PLANES),
    "PreActClonedBlock": lambda: resnet_blocks.PreActClonedBlock(PLANES),
    "RebindingBasicBlock": lambda: resnet_blocks.RebindingBasicBlock(PLANES),
    "Bottleneck": lambda: resnet_blocks.make_bottleneck(PLANES, 4, stride=2),
}
OUTPUT_SHAPES = {"Bottleneck": (2, 16, 4, 4)}


def batch():
    leaf = torch.randn(2, PLANES, 8, 8, requires_grad=True)
    return leaf, leaf * 1.0


@pytest.mark.parametrize("name", sorted(BLOCKS))
@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
def test_forward_backward(name, training):
    torch.manual_seed(0)
    block = BLOCKS[name]()
    block.train(training)
    leaf, inputs = batch()

    out = block(inputs)
    assert tuple(out.shape) == OUTPUT_SHAPES.get(name, (2, PLANES, 8, 8))
    assert torch.isfinite(out).all()

    out.square().mean().backward()
    assert leaf.grad is not None and torch.isfinite(leaf.grad).all()
    assert leaf.grad.abs().sum() > 0
    for parameter_name, parameter in block.named_parameters():
        assert parameter.grad is not None, f"{name}.{parameter_name} got no gradient"
        assert torch.isfinite(parameter.grad).all()


@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_eval_is_deterministic(name):
    torch.manual_seed(0)
    block = BLOCKS[name]().eval()
    _, first_inputs = batch()
    second_inputs = first_inputs.detach() * 1.0
    with torch.no_grad():
        first = block(first_inputs.detach() * 1.0)
        second = block(second_inputs)
    assert torch.equal(first, second)


def test_alias_blocks_add_the_rectified_input():
    """What TCL002 predicts: the in-place ReLU rewrites the shortcut, so the
    block's output no longer depends on the negative part of its input."""
    torch.manual_seed(0)
    for block in (resnet_blocks.PreActAliasBlock(PLANES).eval(),
                  resnet_blocks.PreActSequentialBlock(PLANES).eval()):
        inputs = torch.randn(2, PLANES, 8, 8)
        with torch.no_grad():
            rectified = block(inputs.relu())
            as_given = block(inputs * 1.0)
        assert torch.equal(rectified, as_given)


def test_cloned_block_keeps_the_input():
    """The correct look-alike: its clone keeps the negative part of the shortcut."""
    torch.manual_seed(0)
    block = resnet_blocks.PreActClonedBlock(PLANES).eval()
    inputs = torch.randn(2, PLANES, 8, 8)
    with torch.no_grad():
        rectified = block(inputs.relu())
        as_given = block(inputs * 1.0)
    assert not torch.equal(rectified, as_given)
