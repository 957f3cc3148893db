"""The transport-neutral context a tool receives: progress reporting and cancellation."""

from __future__ import annotations

import threading
from collections.abc import Callable

from mcp_common.result import ToolCancelledError

ProgressSink = Callable[[float, float | None, str | None], None]


class ToolContext:
    """Progress and cancellation for one tool call, safe to use from a worker thread.

    The adapter supplies a sink that forwards progress to the client (when the client asked
    for it) and sets the cancellation flag when the client cancels. Plain Python callers use
    ``ToolContext()``, which reports nowhere and is never cancelled.
    """

    def __init__(self, progress_sink: ProgressSink | None = None) -> None:
        self._sink = progress_sink
        self._cancelled = threading.Event()

    def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Tell the client how far the call has come; a no-op without a listening client."""
        if self._sink is not None and not self._cancelled.is_set():
            self._sink(progress, total, message)

    def cancel(self) -> None:
        """Mark the call cancelled; the tool stops at its next ``check_cancelled``."""
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        """Whether the client cancelled this call."""
        return self._cancelled.is_set()

    def check_cancelled(self) -> None:
        """Raise :class:`ToolCancelledError` if the client cancelled this call."""
        if self._cancelled.is_set():
            raise ToolCancelledError
