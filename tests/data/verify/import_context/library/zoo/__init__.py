"""An attack zoo whose package import files every attack in a registry, and pulls in a detection
module built on a detector library that is not installed (a registry decorator and a base class
of it, used only there)."""

from .registry import ATTACKS
from .fgm import FastGradient
from .detection import *
