"""Make the example modules importable as `models.resnet_blocks`, `train.dcgan`, ...

The examples directory is not a package; its parent is put first on sys.path so
that the tests import the example files through the ordinary import system (which
is what `torchcopylint --verify --run "pytest examples/tests"` hooks into).
"""

import sys
from pathlib import Path

EXAMPLES = str(Path(__file__).resolve().parent.parent)
if EXAMPLES not in sys.path:
    sys.path.insert(0, EXAMPLES)
