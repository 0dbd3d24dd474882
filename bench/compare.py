"""Time torchcopylint against a bare libcst parse and against its peers, on pinned real code.

    python bench/compare.py                                   # timm and transformers/models, 3 rounds, 2 processes
    python bench/compare.py --corpus timm --repeat 5 --json bench/results/compare.json
    python bench/compare.py --corpus torch --repeat 1 --only cold    # findings and errors on torch/
    python bench/compare.py --peers-bin /path/to/venv/bin     # where flake8 (+TorchFix), torchfix, fixit live

Each corpus (bench/corpora.py fetches and unpacks the pinned wheels) is copied to a
scratch directory, and these commands run interleaved, round after round, so that a
change in the machine's load hits all of them alike:

- parse:   a bare `libcst.parse_module` of every file, in a pool of --jobs processes (fork)
- cold:    `torchcopylint check -j N` with a fresh, empty cache directory
- warm:    the same with the cache full and nothing changed
- edited:  the same after appending a comment to one file (the median-sized file the
           prefilter lets through), so exactly that file is linted again
- on timm only, the peers: `flake8 --select TOR` (TorchFix's plugin), `torchfix`, `fixit lint`,
  all with N processes where they have the option.

For each run: wall time, CPU time (user + system of the whole process tree, from
wait4), and peak resident memory: of the main process and of the largest worker
(psutil, polled every 20 ms, when installed), and of the largest process of the
tree (wait4's ru_maxrss). The table shows medians, files/s, lines/s and the ratio
to the bare parse in wall time and in CPU time (the latter is the fairer one on a
machine shared with other work). The cold run's findings are counted per rule, and
any internal error (exit status 2, "internal error" on stderr) is reported.

The peers pin old libcst and click versions that torchcopylint's environment does
not want; install bench/requirements.txt into a separate virtual environment and
pass its bin/ with --peers-bin (or TORCHCOPYLINT_PEERS_BIN).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(BENCH))

try:
    import psutil
except ImportError:  # pragma: no cover - the table then lacks the per-process split
    psutil = None

DEFAULT_CORPORA = ("timm", "transformers")
PEER_CORPORA = ("timm",)


@dataclass
class Sample:
    corpus: str
    command: str
    round: int
    wall: float
    cpu: float
    rss_tree_mb: float  # the largest process of the tree (wait4)
    rss_main_mb: Optional[float] = None  # psutil: the command's own process
    rss_worker_mb: Optional[float] = None  # psutil: its largest descendant
    status: int = 0
    findings: dict = field(default_factory=dict)
    internal_errors: int = 0


# ---------------------------------------------------------------- running and measuring


class _Poller(threading.Thread):
    """Peak RSS of a process and, separately, of its largest descendant."""

    def __init__(self, pid: int, interval: float = 0.02) -> None:
        super().__init__(daemon=True)
        self.pid, self.interval = pid, interval
        self.main = 0
        self.worker = 0
        self.stopped = threading.Event()

    def run(self) -> None:
        try:
            root = psutil.Process(self.pid)
        except psutil.Error:
            return
        while not self.stopped.is_set():
            try:
                self.main = max(self.main, root.memory_info().rss)
                for child in root.children(recursive=True):
                    try:
                        self.worker = max(self.worker, child.memory_info().rss)
                    except psutil.Error:
                        pass
            except psutil.Error:
                return
            self.stopped.wait(self.interval)


def measure(command: list[str], cwd: Optional[Path] = None) -> tuple[float, float, float, Optional[float],
                                                                       Optional[float], int, str, str]:
    """(wall s, cpu s, tree max RSS MB, main RSS MB, largest worker RSS MB, status, stdout, stderr)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(_code_root),
                                                                         os.environ.get("PYTHONPATH")])))
        process = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env)
        poller = None
        if psutil is not None:
            poller = _Poller(process.pid)
            poller.start()
        _pid, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        if poller is not None:
            poller.stopped.set()
            poller.join()
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    cpu = usage.ru_utime + usage.ru_stime
    main = poller.main / 2**20 if poller is not None and poller.main else None
    worker = poller.worker / 2**20 if poller is not None and poller.worker else None
    return wall, cpu, usage.ru_maxrss / 1024, main, worker, process.returncode, stdout, stderr


_code_root = REPO


def snapshot_code(scratch: Path) -> None:
    """Run a frozen copy of torchcopylint: edits made to the checkout while the benchmark runs
    (they change the cache's code fingerprint) must not turn warm runs cold half-way."""
    global _code_root
    target = scratch / "code"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(REPO / "torchcopylint", target / "torchcopylint", ignore=shutil.ignore_patterns("__pycache__"))
    if (REPO / "rules").is_dir():
        shutil.copytree(REPO / "rules", target / "rules")
    # As an installed package would have it (this environment may set PYTHONDONTWRITEBYTECODE).
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(target / "torchcopylint")], check=False)
    _code_root = target


# ---------------------------------------------------------------- the bare parse (run as a subprocess)


def _parse_one(path: str) -> int:
    import libcst

    try:
        with open(path, "rb") as handle:
            libcst.parse_module(handle.read().decode("utf-8"))
    except Exception:  # a file libcst cannot parse still cost its attempt
        return 0
    return 1


def bare_parse(list_file: Path, jobs: int) -> int:
    import multiprocessing

    files = [line for line in list_file.read_text(encoding="utf-8").splitlines() if line]
    files.sort(key=lambda path: -os.path.getsize(path))  # biggest first, as torchcopylint schedules
    if jobs <= 1:
        parsed = sum(_parse_one(path) for path in files)
    else:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            parsed = sum(pool.imap_unordered(_parse_one, files, chunksize=4))
    print(f"parsed {parsed} of {len(files)} files")
    return 0


# ---------------------------------------------------------------- corpora


def python_files(root: Path) -> list[Path]:
    return sorted(path for path in root.rglob("*.py") if path.is_file())


def prepare(name: str, scratch: Path, wheel_dir: Optional[Path]) -> Path:
    from corpora import corpus_path

    source = corpus_path(name, wheel_dir)
    copy = scratch / name / source.name
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def corpus_facts(root: Path) -> dict:
    from torchcopylint.engine import could_match
    from torchcopylint.rules import ALL_RULES

    files = python_files(root)
    lines = skipped = size = 0
    candidates = []
    for path in files:
        data = path.read_bytes()
        lines += data.count(b"\n")
        size += len(data)
        if could_match(data, ALL_RULES):
            candidates.append((len(data), str(path)))
        else:
            skipped += 1
    candidates.sort()
    edited = candidates[len(candidates) // 2][1] if candidates else str(files[0])
    return {"files": len(files), "lines": lines, "bytes": size, "prefilter_skipped": skipped, "edited": edited}


# ---------------------------------------------------------------- the commands


def torchcopylint_command(root: Path, jobs: int, cache_dir: Path, extra: tuple[str, ...] = ()) -> list[str]:
    return [sys.executable, "-m", "torchcopylint", "check", "--exit-zero", "--output-format", "json",
            "-j", str(jobs), "--cache-dir", str(cache_dir), *extra, str(root)]


def peer_commands(root: Path, jobs: int, peers_bin: Optional[Path]) -> dict[str, list[str]]:
    def tool(name: str) -> Optional[str]:
        if peers_bin is not None and (peers_bin / name).exists():
            return str(peers_bin / name)
        return shutil.which(name)

    commands = {}
    if tool("flake8"):
        commands["flake8 --select TOR"] = [tool("flake8"), "--select", "TOR", "-j", str(jobs), "--exit-zero",
                                           str(root)]
    if tool("torchfix"):
        commands["torchfix"] = [tool("torchfix"), "-j", str(jobs), str(root)]
    if tool("fixit"):
        commands["fixit lint"] = [tool("fixit"), "lint", str(root)]  # no jobs option: one per CPU
    return commands


def findings_of(stdout: str) -> dict:
    try:
        records = json.loads(stdout)
    except ValueError:
        return {}
    return dict(sorted(Counter(record["code"] for record in records).items()))


def run_corpus(name: str, root: Path, facts: dict, args, scratch: Path, samples: list[Sample],
               save=lambda: None) -> list[Sample]:
    jobs = args.jobs
    list_file = scratch / f"{name}.files"
    list_file.write_text("\n".join(str(path) for path in python_files(root)) + "\n", encoding="utf-8")
    warm_cache = scratch / f"{name}.warm-cache"
    only = set(args.only.split(",")) if args.only else None
    peers = peer_commands(root, jobs, args.peers_bin) if name in PEER_CORPORA and not args.no_peers else {}

    def wanted(command: str) -> bool:
        if command == "no-prefilter":  # a second full cold run: only when asked for
            return only is not None and command in only
        return only is None or command in only or (command in peers and "peers" in only)

    edits = 0
    for round_number in range(1, args.repeat + 1):
        plan: list[tuple[str, list[str]]] = []
        if wanted("parse"):
            plan.append(("parse", [sys.executable, str(Path(__file__).resolve()), "--bare-parse", str(list_file),
                                   "--jobs", str(jobs)]))
        if wanted("cold") or wanted("warm") or wanted("edited"):
            # The first cold run fills the warm runs' cache; later ones get a fresh directory each.
            cold_cache = warm_cache if round_number == 1 else scratch / f"{name}.cold-{round_number}"
            plan.append(("cold", torchcopylint_command(root, jobs, cold_cache)))
        if wanted("no-prefilter"):
            plan.append(("cold, no prefilter", torchcopylint_command(
                root, jobs, scratch / f"{name}.noprefilter-{round_number}", ("--no-prefilter",))))
        if wanted("warm"):
            plan.append(("warm", torchcopylint_command(root, jobs, warm_cache)))
        if wanted("edited"):
            plan.append(("warm, 1 file edited", torchcopylint_command(root, jobs, warm_cache)))
        plan.extend(peers.items())
        for label, command in plan:
            if label == "warm, 1 file edited":
                edits += 1
                with open(facts["edited"], "a", encoding="utf-8") as handle:
                    handle.write(f"# edited for the benchmark ({edits})\n")
            # From the scratch directory: `python -m` puts the working directory first on sys.path.
            wall, cpu, tree, main, worker, status, stdout, stderr = measure(command, cwd=scratch)
            sample = Sample(name, label, round_number, wall, cpu, tree, main, worker, status)
            if label.startswith("cold") or label.startswith("warm"):
                sample.findings = findings_of(stdout)
                sample.internal_errors = stderr.count("internal error")
                if status == 2 or sample.internal_errors:
                    print(f"   ! {label}: exit {status}; {stderr.strip()[:2000]}", file=sys.stderr)
            elif status not in (0, 1):
                print(f"   ! {label}: exit {status}; {stderr.strip()[:500]}", file=sys.stderr)
            samples.append(sample)
            save()
            print(f"   round {round_number} {label:22s} {wall:8.2f} s wall {cpu:8.2f} s cpu "
                  f"{tree:7.0f} MB max  (exit {status})", file=sys.stderr, flush=True)
    return samples


# ---------------------------------------------------------------- the table


def _median(values: list) -> Optional[float]:
    values = [value for value in values if value is not None]
    return statistics.median(values) if values else None


def table(samples: list[Sample], facts: dict[str, dict], jobs: int) -> str:
    lines = []
    for corpus, info in facts.items():
        mine = [sample for sample in samples if sample.corpus == corpus]
        if not mine:
            continue
        lines.append(f"\n{corpus}: {info['files']} files, {info['lines']} lines, {info['bytes'] / 2**20:.1f} MiB; "
                     f"prefilter skips {info['prefilter_skipped']}/{info['files']} files; "
                     f"edited file: {Path(info['edited']).name}; {jobs} processes; "
                     f"{max(s.round for s in mine)} round(s), medians")
        header = (f"  {'command':24s} {'wall s':>8s} {'cpu s':>8s} {'files/s':>8s} {'lines/s':>9s} "
                  f"{'x parse':>8s} {'x cpu':>6s} {'main MB':>8s} {'worker MB':>9s} {'max MB':>7s}")
        lines.append(header)
        lines.append("  " + "-" * (len(header) - 2))
        parse = [sample for sample in mine if sample.command == "parse"]
        parse_wall = _median([sample.wall for sample in parse])
        parse_cpu = _median([sample.cpu for sample in parse])
        for command in dict.fromkeys(sample.command for sample in mine):
            group = [sample for sample in mine if sample.command == command]
            wall = _median([sample.wall for sample in group])
            cpu = _median([sample.cpu for sample in group])
            main = _median([sample.rss_main_mb for sample in group])
            worker = _median([sample.rss_worker_mb for sample in group])
            tree = _median([sample.rss_tree_mb for sample in group])
            ratio = f"{wall / parse_wall:8.2f}" if parse_wall else f"{'':8s}"
            cpu_ratio = f"{cpu / parse_cpu:6.2f}" if parse_cpu else f"{'':6s}"
            lines.append(f"  {command:24s} {wall:8.2f} {cpu:8.2f} {info['files'] / wall:8.0f} "
                         f"{info['lines'] / wall:9.0f} {ratio} {cpu_ratio} "
                         f"{main if main is not None else float('nan'):8.0f} "
                         f"{worker if worker is not None else float('nan'):9.0f} {tree:7.0f}")
        cold = [sample for sample in mine if sample.command == "cold"]
        if cold:
            counts = ", ".join(f"{code} {count}" for code, count in cold[-1].findings.items()) or "none"
            errors = max(sample.internal_errors for sample in cold)
            status = sorted({sample.status for sample in cold})
            lines.append(f"  findings (cold run): {counts}; internal errors: {errors}; exit status {status}")
    return "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=",".join(DEFAULT_CORPORA),
                        help="comma-separated corpus names (bench/corpora.py --list)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds (each runs every command once)")
    parser.add_argument("--jobs", type=int, default=2, help="processes for every tool that takes the option")
    parser.add_argument("--only", default="", help="comma-separated subset: parse,cold,warm,edited,no-prefilter,peers")
    parser.add_argument("--no-peers", action="store_true", help="skip flake8/torchfix/fixit")
    parser.add_argument("--peers-bin", type=Path, default=os.environ.get("TORCHCOPYLINT_PEERS_BIN"),
                        help="bin/ of the environment with bench/requirements.txt installed")
    parser.add_argument("--wheel-dir", type=Path, default=None, help="where pinned wheels may already be")
    parser.add_argument("--scratch", type=Path, default=None, help="keep the copies and caches here")
    parser.add_argument("--json", type=Path, default=None,
                        help="also write every sample here (rewritten after each run, so a killed run keeps its data)")
    parser.add_argument("--table", type=Path, nargs="+", default=None,
                        help="print the table of these --json files (combined) and exit")
    parser.add_argument("--bare-parse", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.bare_parse is not None:
        return bare_parse(args.bare_parse, args.jobs)
    if args.table:
        samples, facts = [], {}
        for path in args.table:
            data = json.loads(path.read_text())
            facts.update(data["facts"])
            samples.extend(Sample(**sample) for sample in data["samples"])
        print(table(samples, facts, args.jobs))
        return 0
    if args.peers_bin is not None:
        args.peers_bin = Path(args.peers_bin)

    scratch_owner = None
    if args.scratch is None:
        scratch_owner = tempfile.TemporaryDirectory(prefix="torchcopylint-bench-")
        scratch = Path(scratch_owner.name)
    else:
        scratch = args.scratch
        scratch.mkdir(parents=True, exist_ok=True)
    samples: list[Sample] = []
    facts: dict[str, dict] = {}

    def save() -> None:
        if args.json is not None:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps({"facts": facts, "samples": [asdict(s) for s in samples]}, indent=2) + "\n")

    snapshot_code(scratch)
    try:
        for name in [part.strip() for part in args.corpus.split(",") if part.strip()]:
            print(f"== {name}", file=sys.stderr, flush=True)
            root = prepare(name, scratch, args.wheel_dir)
            facts[name] = corpus_facts(root)
            run_corpus(name, root, facts[name], args, scratch, samples, save)
    finally:
        if scratch_owner is not None:
            scratch_owner.cleanup()
    print(table(samples, facts, args.jobs))
    save()
    failed = any(sample.status == 2 or sample.internal_errors for sample in samples
                 if sample.command.startswith(("cold", "warm")))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
