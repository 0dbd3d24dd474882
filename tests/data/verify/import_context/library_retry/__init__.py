"""A library whose package imports everything: its `norms` first, then `heavy`, which needs a package
that is not installed and, at its own import, reads `library_retry.norms` through the package."""

from .norms import *  # noqa: F401,F403 - binds SCALE, not `norms`
from . import heavy
from .layers import blocks
