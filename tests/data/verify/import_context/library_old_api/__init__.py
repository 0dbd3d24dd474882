"""A vendored attack library written for an older torch: its package imports every module, and two of
them import what torch 2 no longer has (`torch.rfft`, removed in 1.8; the `torch._six` module)."""

from .spectral import *  # noqa: F401,F403
from .compat import string_classes  # noqa: F401
from .attacks import gradient
