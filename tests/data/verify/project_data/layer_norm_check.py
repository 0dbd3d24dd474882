"""A vendored test (apex's layer norm): torch 1.x's `torch._six`, and a dtype passed in by its caller."""

import torch
from torch._six import string_classes


class LayerNormCheck:
    def check(self, dtype, atol):
        x = torch.randn(4, 8, dtype=dtype, device="cpu")
        x.requires_grad = True
        x2 = x.clone().detach()  # expect: TCL005
        assert not isinstance(atol, string_classes)
        return (torch.nn.functional.layer_norm(x, [8]) - torch.nn.functional.layer_norm(x2, [8])).abs().max() <= atol
