"""Progress that keeps coming while a long search works.

A client that resets its timeout whenever progress arrives must hear from a working search
often enough, whatever phase it is in: a long scan, a coding pass, thousands of candidate
checks. :class:`Heartbeat` forwards the search's own reports (phase by phase, level by
level, batch by batch) and, when none came for :data:`BEAT_SECONDS`, repeats the last
message with a slightly higher value (progress must grow with every notification), creeping
toward the end of the current phase without reaching it. A new step is always announced,
even one that starts where the last report stood, so no step passes unseen between beats.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import TracebackType

BEAT_SECONDS = 1.0
_CREEP = 0.05  # share of what is left of the phase a beat adds
_NUDGE = 0.01  # share of what is left of the phase a new step adds when it starts where
# the last one stood (enough to survive the rounding of the value sent)


class Heartbeat:
    """Reports percent (0..100) through ``report``, at least every :data:`BEAT_SECONDS`
    while used as a context manager."""

    def __init__(self, report: Callable[[float, str], None], seconds: float = BEAT_SECONDS):
        self._report = report
        self._seconds = seconds
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._value = -1.0  # nothing reported yet: the first phase's start is
        self._start, self._end = 0.0, 100.0
        self._message = "starting"
        self._thread = threading.Thread(target=self._beat, name="uniqueness-heartbeat", daemon=True)

    def phase(self, start: float, end: float, message: str) -> None:
        """Enter a phase spanning ``start``..``end`` percent."""
        with self._lock:
            self._start, self._end = max(start, self._value), max(end, self._value)
        self.update(0.0, message)

    def update(self, fraction: float, message: str) -> None:
        """Report ``fraction`` (0..1) of the current phase done, with what is being done."""
        with self._lock:
            value = self._start + (self._end - self._start) * min(1.0, max(0.0, fraction))
            if value <= self._value and message != self._message:
                # a new step is announced even when it starts where the last one stood
                # (a fast step could otherwise pass unseen between two beats)
                value = self._value + (self._end - self._value) * _NUDGE
            self._message = message
            if value <= self._value:
                return
            self._value = value
        self._report(value, message)

    def _beat(self) -> None:
        while not self._done.wait(self._seconds):
            with self._lock:
                value = self._value + (self._end - self._value) * _CREEP
                if value <= self._value:
                    continue
                self._value = value
                message = self._message
            self._report(value, message)

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._done.set()
        self._thread.join()
