"""A package whose __init__ needs a package that is not installed, after importing its subpackage."""

from . import models  # noqa: F401
import plotting_lib_not_installed  # noqa: F401
