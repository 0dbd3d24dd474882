"""One finding's `--verify`, for the editor server: a JSON job on stdin (the document's text, a
notebook's JSON included, and the diagnostic as the server published it), the verdict as JSON on
stdout.

The server starts this in a process group of its own, so that cancelling the command ends it
and the experiment process it starts; the experiment itself runs as `--verify` runs it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from torchcopylint.diagnostic import Diagnostic, Verdict
from torchcopylint.verify.documents import verify_documents
from torchcopylint.verify.runner import VerifyError, VerifyOptions, resolve_device


def main() -> int:
    job = json.load(sys.stdin)
    diagnostic = Diagnostic.from_dict(job["diagnostic"])
    try:
        options = VerifyOptions(device=resolve_device(job["device"]), timeout=job["timeout"],
                                factories=job.get("factories", {}),
                                pythonpath=[Path(entry) for entry in job.get("pythonpath", [])], jobs=1)
        [checked] = verify_documents([diagnostic], {diagnostic.path: job["source"]}, options)
        verdict = checked.verdict or Verdict("unverified", "no experiment was run for this finding")
    except VerifyError as error:
        verdict = Verdict("unverified", str(error))
    json.dump({"status": verdict.status, "evidence": verdict.evidence}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
