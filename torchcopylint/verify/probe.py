"""A line probe: run code and call back before or after given lines of one file execute.

Built on sys.settrace with a local trace only for frames of the probed file, so
the rest of the program (torch included) runs at full speed.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from typing import Callable, Optional

FrameCallback = Callable[[object], None]


class StopRun(Exception):
    """Raised by a callback once the experiment has what it needs."""


class LineProbe:
    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.before: dict[int, list[FrameCallback]] = defaultdict(list)
        self.after: dict[int, list[FrameCallback]] = defaultdict(list)
        self.executed: dict[int, int] = defaultdict(int)  # line -> times it started
        # (line, exception) for every exception raised at a line of the file, even if caught later
        self.raised: list[tuple[int, BaseException]] = []
        self.kept_line: Optional[int] = None
        # The locals of the last frame that ran `kept_line`, as it returned (keep_locals_of).
        self.locals_at_return: dict = {}
        # Callbacks for the return of a frame that ran a given line (on_return_of).
        self.returning: dict[int, list[FrameCallback]] = defaultdict(list)
        self.restarting: list[Callable[[], None]] = []  # on_restart

    def on_restart(self, callback: Callable[[], None]) -> None:
        """Call back when the run starts over (a script run again on other stand-in data): what an
        experiment measured in the abandoned run must not mix with the new run's measurements."""
        self.restarting.append(callback)

    def restart(self) -> None:
        """The run starts over: forget what ran, and tell the experiment."""
        self.executed.clear()
        self.raised.clear()
        for callback in self.restarting:
            callback()

    def keep_locals_of(self, line: int) -> None:
        """Keep the locals of the frame that runs `line` when it returns: what a function that returns
        nothing computed (a test's tensors, a plot's data)."""
        self.kept_line = line

    def on_before(self, line: int, callback: FrameCallback) -> None:
        self.before[line].append(callback)

    def on_after(self, line: int, callback: FrameCallback) -> None:
        self.after[line].append(callback)

    def on_return_of(self, line: int, callback: FrameCallback) -> None:
        """Call back when a frame that ran `line` returns (not when an exception leaves it)."""
        self.returning[line].append(callback)

    def run(self, function: Callable, *args, **kwargs):
        previous = sys.gettrace()
        sys.settrace(self._global_trace)
        try:
            return function(*args, **kwargs)
        finally:
            sys.settrace(previous)

    def _global_trace(self, frame, event, arg):
        if event == "call" and frame.f_code.co_filename == self.filename:
            last_line: list[Optional[int]] = [None]
            ran_kept_line = [False]
            ran_watched: set = set()  # the lines of `returning` this frame ran
            raising = [False]  # an exception is on its way out of the frame (no line has run since)

            def local_trace(frame, event, arg):
                if event == "exception":
                    raising[0] = True
                    if isinstance(arg, tuple) and len(arg) >= 2:
                        self.raised.append((frame.f_lineno, arg[1]))
                    # The line did not finish: its after-callbacks must not run, neither at the
                    # handler's next line nor at the "return" event of the frame the error leaves
                    # (a backward that raised would otherwise look like one that computed nothing).
                    last_line[0] = None
                    return local_trace
                if event in ("line", "return", "exception"):
                    finished = last_line[0]
                    if finished is not None:
                        for callback in self.after.get(finished, ()):
                            callback(frame)
                    if event == "line":
                        raising[0] = False  # caught: the frame goes on
                        self.executed[frame.f_lineno] += 1
                        ran_kept_line[0] = ran_kept_line[0] or frame.f_lineno == self.kept_line
                        if frame.f_lineno in self.returning:
                            ran_watched.add(frame.f_lineno)
                        for callback in self.before.get(frame.f_lineno, ()):
                            callback(frame)
                        last_line[0] = frame.f_lineno
                    elif event == "return":
                        last_line[0] = None
                        if ran_kept_line[0]:
                            self.locals_at_return = dict(frame.f_locals)
                        for line in sorted(ran_watched) if not raising[0] else ():
                            for callback in self.returning[line]:
                                callback(frame)
                return local_trace

            return local_trace
        return None
