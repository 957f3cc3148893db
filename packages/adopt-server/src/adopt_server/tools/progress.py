"""Forwards pipeline progress to the client and the client's cancellation to the pipeline."""

from __future__ import annotations

import threading

from mcp_common import ToolContext, redact

from adopt_server.pipeline import RepositoryReport


class ProgressObserver:
    """One progress notification per step and per finished repository (thread-safe); the
    total counts every step plus one unit per repository, so progress only ever grows."""

    def __init__(self, context: ToolContext, repositories: int, steps: int) -> None:
        self._context = context
        self._total = float(repositories * (steps + 1))
        self._repositories = repositories
        self._done = 0.0
        self._finished = 0
        self._lock = threading.Lock()

    def _advance(self, message: str, *, finished: bool = False) -> None:
        with self._lock:
            self._done += 1
            if finished:
                self._finished += 1
            progress, count = self._done, self._finished
        if finished:
            message = f"{message} ({count} of {self._repositories} repositories)"
        self._context.report_progress(progress, self._total, redact(message))

    def step_started(self, repository: int, url: str, step: str, index: int, count: int) -> None:
        """Report ``<url>: step i/N <name>``."""
        self._advance(f"{url}: step {index}/{count} {step}")

    def repository_finished(self, repository: int, report: RepositoryReport) -> None:
        """Report a repository's outcome."""
        outcome = "done" if report.succeeded else "failed"
        self._advance(f"{report.to_json()['repositoryUrl']}: {outcome}", finished=True)

    def cancelled(self) -> bool:
        """Whether the client cancelled the call."""
        return self._context.cancelled
