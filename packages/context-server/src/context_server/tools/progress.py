"""Indexing progress reported to the client while a large project is parsed."""

from __future__ import annotations

from collections.abc import Callable

from mcp_common import ToolContext


def indexing_progress(context: ToolContext) -> Callable[[int, int], None]:
    """A callback reporting ``done`` of ``total`` source files parsed."""

    def report(done: int, total: int) -> None:
        context.report_progress(done, total, f"indexed {done} of {total} source files")

    return report
