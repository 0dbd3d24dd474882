"""The verification child process: imports torch once, runs each diagnosis's experiment under a time limit.

Usage (by torchcopylint itself): python -m torchcopylint.verify.child JOB.json RESULTS.jsonl
Results are appended one JSON line per diagnosis as soon as each is decided, so a
crash or a hang loses only the diagnosis it happened in.
"""

from __future__ import annotations

from torchcopylint import drop_working_directory_from_path

drop_working_directory_from_path()  # before any other import: the project's `json.py` must not shadow Python's

import contextlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402


class ExperimentTimeout(BaseException):  # not Exception: the code under test catches those
    pass


@contextlib.contextmanager
def time_limit(seconds: float):
    def expire(signum, frame):
        raise ExperimentTimeout()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def decided_as_written(experiment, isolated, as_written, job_of, cannot_run, limit):
    """The experiment on the isolated code (the other findings of the function fixed); when that does
    not confirm it, on the code as written, whose confirmation counts (the program shows the effect);
    not its refutation or `not reached`, which another finding there may have caused. An isolated
    refutation is checked so too: another finding's fix may remove this one's cause (interpolates made
    from a fake whose own finding's fix detaches it). Each run has its own time `limit`; however the
    second ends, the first one's verdict or reason stands unless it confirms."""
    try:
        with limit():
            outcome = experiment(isolated)
    except cannot_run as reason:
        if not as_written:
            raise
        outcome, failure = None, reason
    if outcome is not None and (outcome.status == "confirmed" or not as_written):
        return outcome
    try:
        with limit():
            written = experiment(job_of(as_written["source"], as_written["fixed_source"]))
    except KeyboardInterrupt:
        raise
    except BaseException:  # noqa: BLE001 - the code as written failed or ran out of time: it shows nothing
        written = None
    if written is not None and written.status == "confirmed":
        return written
    if outcome is None:
        raise failure  # the isolated code's reason: the one the user can act on first
    return outcome


# How many of a function's top-level calls (verify/experiments.py call_sites) an experiment tries.
MOST_CALL_SITES = 3


def decided_over_call_sites(decide, site_count: int, cannot_run):
    """`decide(choice)` with the arguments of the flagged function's first top-level call; when that
    does not confirm, with those of its next calls: a helper that several scripts call, each with its
    own loss (a homework's `train_model(gen, disc, disc_loss_fn=...)` per question), may show the effect
    through one of them only, and one caller's values do not refute what another's show. The first
    call's verdict or reason stands unless another confirms."""
    try:
        outcome = decide(0)
    except cannot_run as reason:
        outcome, failure = None, reason
    if outcome is None or outcome.status != "confirmed":
        for choice in range(1, min(site_count, MOST_CALL_SITES)):
            try:
                other = decide(choice)
            except KeyboardInterrupt:
                raise
            except BaseException:  # noqa: BLE001 - this call's run failed or ran out of time: the first one's stands
                continue
            if other.status == "confirmed":
                return other
    if outcome is None:
        raise failure
    return outcome


def main(job_path: str, results_path: str) -> int:
    with open(job_path, encoding="utf-8") as handle:
        job = json.load(handle)
    results = open(results_path, "a", encoding="utf-8")

    def record(index: int, status: str, evidence: str, seconds: float = 0.0) -> None:
        entry = {"index": index, "status": status, "evidence": evidence, "seconds": round(seconds, 4)}
        results.write(json.dumps(entry) + "\n")
        results.flush()

    try:
        import torch  # noqa: F401 - imported once per file, here
        from torchcopylint.verify.absent import AbsentPackageUsed
        from torchcopylint.verify.experiments import EXPERIMENTS, CannotRun, Job, call_sites
        from torchcopylint.verify import sandbox
        from torchcopylint.verify.importing import OtherCaseFinder, describe_error, enter, import_context, project_root
        from torchcopylint.verify.inputs import Factories
    except ImportError as error:
        for diagnosis in job["diagnostics"]:
            record(diagnosis["index"], "unverified", f"torch is not importable ({error}); "
                                                       f"install torchcopylint[verify]")
        return 0
    if job["device"] == "cuda":
        torch.set_default_device("cuda")
        # Bitwise comparisons need deterministic kernels (some cuDNN backward algorithms are not).
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
    if "optim" in job["source"]:
        # The first optimizer imports torch._dynamo (seconds): pay it before any time limit starts.
        import torch.optim  # noqa: F401
        try:
            import torch._dynamo  # noqa: F401
        except Exception:  # noqa: BLE001 - only a warm-up
            pass
    # Import the file as its project does (package, script folder, project root, configured
    # folders), after torch: a sibling named like a module torch needs cannot shadow it then.
    enter(import_context(job["path"], job.get("pythonpath", ())))
    if os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())
    # As `python script.py` with no arguments: an argparse parser in the code gets its defaults,
    # not this process's own arguments; a script that reads `sys.argv[1]` gets a value for it.
    from torchcopylint.verify.script import fill_required_options, script_arguments

    sys.argv = script_arguments(job["source"], job["path"])
    fill_required_options()  # ...and its required options get values of their declared types, named
    torch.set_num_threads(job.get("threads", 1))  # the parent's share of the CPUs (runner.torch_threads)
    if job["device"] == "cpu":
        from torchcopylint.verify.script import cuda_on_cpu

        # Code written for a GPU runs on the CPU too, where the stand-ins are (with a GPU present, a
        # `.cuda()` would split the run over two devices); the evidence says so.
        cuda_on_cpu(job["source"], job["path"])
    from torchcopylint.verify import backbones, checkpoints, distributed, script
    from torchcopylint.verify.batches import loaders_in_process, loaders_over_absent_data
    from torchcopylint.verify.legacy import install_old_apis

    install_old_apis()  # pre-1.0 spellings that fail today run as they did (each named in the evidence)
    checkpoints.install()  # a checkpoint the code loads is never read: the networks keep their weights
    distributed.install(script.note)  # a process group of one: code launched on several runs here
    loaders_in_process()  # no DataLoader worker processes: a failure shows as itself
    script.loaders_of_several_batches()  # a loop over a small stand-in dataset runs more than once
    loaders_over_absent_data()  # a loader over data that is not here, made where the rewrite did not see it
    backbones.hub_loads_standing_in(torch.hub)  # torchvision's classifiers from the hub: nothing is downloaded
    # No network, no reads of the user's data, no writes into the project (verify/sandbox.py).
    folder = os.path.dirname(os.path.abspath(job["path"]))
    root = project_root(folder) or folder
    if root in (os.path.abspath(os.sep), os.path.expanduser("~")):
        root = folder  # a marker at / or in the home folder does not make all of it the project
    sandbox.install(root, job["path"])
    sys.meta_path.append(OtherCaseFinder(root, script.note))  # `import ResNet` of the project's resnet.py
    factories = Factories(job.get("factories", {}))
    for diagnosis in job["diagnostics"]:
        experiment = EXPERIMENTS.get(diagnosis["code"])
        if experiment is None:
            record(diagnosis["index"], "unverified", f"no experiment for {diagnosis['code']}")
            continue
        span = diagnosis.get("span")

        def job_of(source: str, fixed_source, site_choice: int = 0) -> Job:
            return Job(job["path"], source, fixed_source, diagnosis["code"], diagnosis["line"],
                       diagnosis.get("context", {}), job["device"], factories, tuple(span) if span else None,
                       importers=tuple((path, text, tuple(map(tuple, cells)))
                                       for path, text, cells in job.get("importers", ())),
                       site_choice=site_choice)

        def decide(site_choice: int):
            as_written = diagnosis.get("as_written")
            return decided_as_written(
                experiment, job_of(diagnosis.get("source", job["source"]), diagnosis.get("fixed_source"), site_choice),
                as_written, lambda source, fixed: job_of(source, fixed, site_choice), CannotRun,
                limit=lambda: time_limit(job["timeout"]))

        started = time.perf_counter()
        try:
            # What the user's code prints must not mix with our results.
            with contextlib.redirect_stdout(sys.stderr):
                outcome = decided_over_call_sites(decide, len(call_sites(job_of(job["source"], None))), CannotRun)
            record(diagnosis["index"], outcome.status, outcome.evidence, time.perf_counter() - started)
        except ExperimentTimeout:
            record(diagnosis["index"], "unverified", f"timed out after {job['timeout']:g} s")
        except SystemExit as stop:  # the user's code called sys.exit(): this diagnosis only is lost
            record(diagnosis["index"], "unverified", f"the code called sys.exit({stop.code!r})")
        except CannotRun as reason:
            record(diagnosis["index"], "unverified", str(reason))
        except AbsentPackageUsed as used:  # the code used a package that is not installed
            record(diagnosis["index"], "unverified", str(used))
        except Exception as error:  # noqa: BLE001 - the user's code may raise anything
            record(diagnosis["index"], "unverified", f"the experiment failed: {describe_error(error, job['path'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
