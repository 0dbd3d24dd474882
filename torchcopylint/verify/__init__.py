"""`--verify`: run the flagged code and attach a verdict (confirmed, refuted, unverified) to each diagnosis.

- runner.py  the parent side: one child process per file, time limits, results read back
- child.py   the child process: imports torch once, runs each experiment under a time limit
- experiments.py, snippet.py, inputs.py, probe.py: what the child runs

Nothing here is imported on the static path, and this package's __init__ imports
nothing, so the child process does not pay for libcst.
"""
