"""Facts about a module, computed once and read by every rule."""
