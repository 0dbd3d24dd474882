"""An attack library: each attack subclasses `Attack`, whose `__init__` (in base.py) sets what its
helpers read."""
