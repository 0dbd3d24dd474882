"""Starts a second Python process (no torch here) that imports and runs worker_module.

Under `torchcopylint --verify --run "python spawner.py"`, the flagged module runs
in a grandchild of torchcopylint; its verdicts must still come back.
"""

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

if __name__ == "__main__":
    completed = subprocess.run([sys.executable, "-c", "import worker_module; worker_module.main()"],
                               cwd=HERE, check=False)
    print(f"spawner: worker exited with status {completed.returncode}")
    sys.exit(completed.returncode)
