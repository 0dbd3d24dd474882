# A folder of scripts with an __init__.py that does not parse (a hyphenated folder imported by name):
# the scripts import their siblings as scripts do, and never the package.
from yolo2-master.detect import detect
