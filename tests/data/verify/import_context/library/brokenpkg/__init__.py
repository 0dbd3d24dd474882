"""A package whose __init__ imports its subpackage, then uses a package that is not installed."""

from . import models  # noqa: F401
import plotting_lib_not_installed

plotting_lib_not_installed.use("Agg")
