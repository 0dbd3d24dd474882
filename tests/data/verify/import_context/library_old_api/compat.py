"""Python 2/3 names as torch once kept them."""

from torch._six import string_classes  # noqa: F401
