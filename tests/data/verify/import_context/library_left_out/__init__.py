"""A package whose repository left out a module its base class imports (`models`, never committed)."""
