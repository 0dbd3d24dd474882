"""A package that checks for the packages it needs as it is imported, and exits when one is missing
(as research packages do): `--verify` gives the missing ones stand-ins instead of stopping there."""
import sys

missing = []
for package in ("yaml_not_installed_for_the_exit_test", "torch"):
    try:
        __import__(package)
    except ImportError:
        missing.append(package)

if missing:
    print(f"missing packages: {missing}; install them first")
    sys.exit(1)
