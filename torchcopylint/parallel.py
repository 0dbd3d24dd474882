"""Run per-file work in a pool of processes: paths go out in chunks, plain data comes back.

`run(tasks, work, jobs)` yields one result per task, in completion order (the caller
sorts). `work(chunk, options)` runs in a worker on a list of tasks and returns a list of
results; every task and result is plain, picklable data (tuples, dicts, strings).

- Start method: "fork" where the platform has it and the parent has no other thread
  (cheapest: the workers inherit the imported modules), else the platform default.
- Scheduling: biggest files first (a large file started last would leave the other
  workers idle at the end), in chunks small enough to balance and large enough that
  the per-chunk round trip does not matter.
- A worker that dies (a segfault in a native parser, the kernel's OOM killer) does
  not end the run: each worker writes the path it is working on to a marker file
  before starting it, so when the pool breaks, the files that were in progress are
  re-run alone, each in a fresh one-process pool, and a file that kills its worker
  again is reported through `crashed(task)`; the rest are re-queued in a new pool.
- Ctrl-C: the workers ignore SIGINT; the parent stops them and re-raises.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import TYPE_CHECKING, Any, Callable, Iterator, Optional, Sequence

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

# multiprocessing and concurrent.futures are imported when a pool is started: a run answered
# from the cache, or small enough to stay in one process, does not pay for them.

# A task is a tuple whose first item is the file's path and second its size in bytes.
Task = tuple
# Files per chunk at most, and bytes per chunk at most (a chunk holds at least one file).
CHUNK_FILES = 16
CHUNK_BYTES = 256 * 1024

_marker_fd: Optional[int] = None


def default_jobs() -> int:
    """The number of CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def chunked(tasks: Sequence[Task], jobs: int) -> list[list[Task]]:
    """Biggest first; each chunk at most CHUNK_FILES files and CHUNK_BYTES bytes, and at
    least about eight chunks per worker so that the last ones balance."""
    ordered = sorted(tasks, key=lambda task: (-task[1], task[0]))
    total = sum(task[1] for task in ordered)
    budget = max(1, min(CHUNK_BYTES, total // max(1, jobs * 8)))
    chunks: list[list[Task]] = []
    current: list[Task] = []
    size = 0
    for task in ordered:
        if current and (len(current) >= CHUNK_FILES or size + task[1] > budget):
            chunks.append(current)
            current, size = [], 0
        current.append(task)
        size += task[1]
    if current:
        chunks.append(current)
    return chunks


def _context() -> Any:
    import multiprocessing
    import threading

    methods = multiprocessing.get_all_start_methods()
    # fork after threads were started can deadlock the child; macOS's system libraries dislike fork.
    if "fork" in methods and sys.platform != "darwin" and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def _initialize(marker_dir: str) -> None:
    global _marker_fd
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _marker_fd = os.open(os.path.join(marker_dir, str(os.getpid())), os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)


def starting(path: str) -> None:
    """Called by a worker before each file: the file to blame if the process dies."""
    if _marker_fd is not None:
        os.ftruncate(_marker_fd, 0)
        if hasattr(os, "pwrite"):
            os.pwrite(_marker_fd, os.fsencode(path), 0)
        else:  # Windows
            os.lseek(_marker_fd, 0, os.SEEK_SET)
            os.write(_marker_fd, os.fsencode(path))


def finished() -> None:
    if _marker_fd is not None:
        os.ftruncate(_marker_fd, 0)


def _call(work: Callable[[list[Task], Any], list], chunk: list[Task], options: Any) -> list:
    try:
        return work(chunk, options)
    finally:
        finished()


def _in_progress(marker_dir: str) -> set[str]:
    paths = set()
    for name in os.listdir(marker_dir):
        marker = os.path.join(marker_dir, name)
        try:
            with open(marker, "rb") as handle:
                content = handle.read()
            os.unlink(marker)
        except OSError:
            continue
        if content:
            paths.add(os.fsdecode(content))
    return paths


def _stop(executor: "ProcessPoolExecutor") -> None:
    """Shut the pool down now: cancel what has not started, terminate the workers."""
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        try:
            process.terminate()
        except (OSError, AttributeError):
            pass


def run(tasks: Sequence[Task], work: Callable[[list[Task], Any], list], jobs: int, options: Any = None, *,
        crashed: Callable[[Task], Any], on_done: Optional[Callable[[int], None]] = None) -> Iterator[Any]:
    """Yield work's results for every task; `crashed(task)` stands for a task whose worker died twice.

    `on_done(n)` is called as chunks of n tasks complete (for a progress bar).
    """
    import tempfile
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    context = _context()
    with tempfile.TemporaryDirectory(prefix="torchcopylint-") as marker_dir:
        pending = chunked(tasks, jobs)
        suspects: list[Task] = []
        while pending:
            broken: list[Task] = []
            workers = max(1, min(jobs, len(pending)))
            executor = ProcessPoolExecutor(workers, mp_context=context, initializer=_initialize,
                                           initargs=(marker_dir,))
            try:
                futures: "dict[Future, list[Task]]" = {
                    executor.submit(_call, work, chunk, options): chunk for chunk in pending}
                remaining = set(futures)
                while remaining:
                    done, remaining = wait(remaining, return_when=FIRST_COMPLETED)
                    for future in done:
                        try:
                            results = future.result()
                        except BrokenProcessPool:
                            broken.extend(futures[future])
                            continue
                        yield from results
                        if on_done is not None:
                            on_done(len(futures[future]))
            except BaseException:
                _stop(executor)
                raise
            executor.shutdown(wait=True)
            pending = []
            if broken:
                blamed = _in_progress(marker_dir)
                # A pool that broke with nobody in progress (a worker died between files):
                # run everything it left alone rather than loop.
                isolate = [task for task in broken if task[0] in blamed] or broken
                suspects.extend(isolate)
                retry = [task for task in broken if task not in isolate]
                pending = chunked(retry, jobs) if retry else []
        for task in suspects:
            yield from _alone(task, work, options, context, marker_dir, crashed)
            if on_done is not None:
                on_done(1)


def _alone(task: Task, work: Callable, options: Any, context: Any, marker_dir: str,
           crashed: Callable[[Task], Any]) -> list:
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    executor = ProcessPoolExecutor(1, mp_context=context, initializer=_initialize, initargs=(marker_dir,))
    try:
        return executor.submit(_call, work, [task], options).result()
    except BrokenProcessPool:
        return [crashed(task)]
    except BaseException:
        _stop(executor)
        raise
    finally:
        executor.shutdown(wait=True)
        _in_progress(marker_dir)  # clear the marker of the dead worker
