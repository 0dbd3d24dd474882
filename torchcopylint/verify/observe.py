"""`--verify --run CMD`: run the user's own command with probes on the flagged statements.

The command runs with hook/ on PYTHONPATH (its sitecustomize installs the import
hook in every Python process) and a plan saying which statements of which files
to probe. Each process writes what its probes saw to a file in a temporary
directory; verdicts are read from there.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from torchcopylint.diagnostic import Diagnostic, Verdict

HOOK_DIRECTORY = Path(__file__).resolve().parent / "hook"
PACKAGE_ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Observation:
    diagnostics: list[Diagnostic]
    exit_status: int


def probe_roles(diagnostic: Diagnostic) -> Optional[list[tuple[int, str, str, dict]]]:
    """(line, before/after, role, facts) for each probe a diagnosis needs; None if it has none."""
    line, context = diagnostic.location.line, diagnostic.context
    code = diagnostic.code
    if code == "TCL001":
        if "copy" not in context or "read_line" not in context:
            return None  # a copy no name holds (fed into an op, handed to a callee, indexed): nothing to watch
        facts = {"source": context["source"], "copy": context["copy"]}
        return [(line, "after", "copy_made", facts), (context["read_line"], "before", "copy_read", facts)]
    if code == "TCL002":
        facts = {"alias": context["alias"]}
        return [(line, "after", "alias_made", facts), (context["read_line"], "before", "alias_read", facts)]
    if code == "TCL003":
        facts = {"generator": context["generator"]}
        return [(line, "before", "discriminator_call", facts), (context["step_line"], "before", "discriminator_step", facts)]
    if code == "TCL004":
        return [(line, "before", "leaf_write", {"target": context["target"]})]
    if code == "TCL005":
        return [(line, "before", "clone_detach", {"source": context["source"]})]
    if code == "TCL006":
        facts = {"source": context["source"]}
        return [(line, "after", "detached_made", facts), (context["write_line"], "after", "detached_written", facts)]
    if code == "TCL007":
        return [(line, "after", "accumulated", {"accumulator": context["accumulator"]})]
    if code == "TCL008":
        return [(line, "before", "copy_construct", {"source": context["source"]})]
    return None


def observe(diagnostics: list[Diagnostic], command: str, stop_when_decided: bool = False) -> Observation:
    plan: dict = {"files": {}, "probes": {}, "diagnoses": {}, "stop_when_decided": stop_when_decided}
    for index, diagnostic in enumerate(diagnostics):
        roles = probe_roles(diagnostic) if not diagnostic.code.startswith("TCL9") else None
        if not roles:
            continue
        path = os.path.realpath(diagnostic.path)
        plan["diagnoses"][str(index)] = {"code": diagnostic.code}
        for line, when, role, facts in roles:
            probe_id = len(plan["probes"])
            plan["probes"][str(probe_id)] = {"diagnosis": index, "role": role, "line": line, **facts}
            plan["files"].setdefault(path, []).append([probe_id, line, when])
    with tempfile.TemporaryDirectory(prefix="torchcopylint-run-") as directory:
        plan_path = Path(directory, "plan.json")
        plan_path.write_text(json.dumps(plan), encoding="utf-8")
        output = Path(directory, "observations")
        output.mkdir()
        environment = dict(os.environ)
        # Only the hook goes on PYTHONPATH; it imports the probes from our package root and takes
        # that off sys.path again, so the program sees its own packages, not ours.
        environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HOOK_DIRECTORY), environment.get("PYTHONPATH")]))
        environment["TORCHCOPYLINT_PACKAGE_ROOT"] = str(PACKAGE_ROOT)
        environment["TORCHCOPYLINT_PROBE_PLAN"] = str(plan_path)
        environment["TORCHCOPYLINT_PROBE_OUT"] = str(output)
        sys.stderr.flush()
        # The command's own output goes to stderr: stdout carries the verdicts.
        completed = subprocess.run(command, shell=True, env=environment, stdin=subprocess.DEVNULL,
                                   stdout=sys.stderr.fileno(), stderr=sys.stderr.fileno())
        merged = _merge(output)
    verdicts = {int(index): _verdict(diagnostics[int(index)].code, merged.get(index), diagnostics[int(index)].path)
                for index in plan["diagnoses"]}
    return Observation([dataclasses.replace(d, verdict=verdicts[i]) if i in verdicts else d
                        for i, d in enumerate(diagnostics)], completed.returncode)


def _merge(directory: Path) -> dict:
    merged: dict = {}
    for path in sorted(directory.glob("probe-*.json")):
        try:
            observations = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for index, seen in observations.items():
            total = merged.setdefault(index, {"reached": 0, "executions": 0, "confirmed": 0, "refuted": 0,
                                              "confirmed_evidence": "", "refuted_evidence": "", "failures": []})
            for key in ("reached", "executions", "confirmed", "refuted"):
                total[key] += seen.get(key, 0)
            for key in ("confirmed_evidence", "refuted_evidence"):
                total[key] = total[key] or seen.get(key, "")
            total["failures"].extend(seen.get("failures", []))
    return merged


def _verdict(code: str, seen: Optional[dict], path: str) -> Verdict:
    if seen and seen["failures"] and not seen["reached"]:
        return Verdict("unverified", seen["failures"][0])
    if not seen or not seen["reached"]:
        name = Path(path).name
        if name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py":
            # pytest imports its test modules with its own import hook, which the probes cannot reach.
            return Verdict("unverified", "not observed: pytest loads test modules and conftest.py itself; "
                                         "--run observes the code they import")
        return Verdict("not reached", "the flagged line never ran")
    runs = f"{seen['executions']} execution(s) observed"
    if code == "TCL001" and seen["refuted"]:
        # One execution where the clone was needed is enough to keep it.
        return Verdict("refuted", f"{seen['refuted_evidence']} ({seen['refuted']} of {runs})")
    if seen["confirmed"]:
        return Verdict("confirmed", f"{seen['confirmed_evidence']} ({runs})")
    if seen["refuted"]:
        return Verdict("refuted", f"{seen['refuted_evidence']} ({runs})")
    failure = seen["failures"][0] if seen["failures"] else "the probes could not decide"
    return Verdict("unverified", f"reached, but undecided: {failure}")
