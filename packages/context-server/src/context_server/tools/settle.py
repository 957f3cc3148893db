"""Answers made while the tree changes under them (issue 26, bad input)."""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable
from typing import TypeVar

from mcp_common import ToolContext, ToolResult

from context_server.core.index import SourceChangedError, changed_sources_read_empty

ATTEMPTS = 3
"""A call is answered at most this many times; the last time, a file gone since it was
listed reads as empty (see :func:`changed_sources_read_empty`), so a tree that keeps
changing still gets an answer, never an error about a file that no longer exists."""

_log = logging.getLogger(__name__)
_said = threading.Event()

Tool = TypeVar("Tool")
Arguments = TypeVar("Arguments")


def settled(
    call: Callable[[Tool, Arguments, ToolContext], ToolResult],
) -> Callable[[Tool, Arguments, ToolContext], ToolResult]:
    """Answer again when a file the index listed was removed or replaced while the answer
    was being read from it: the next index follows the change (its watches say so, or a
    walk does), so the answer is that of the tree as it is now, not an error about a file
    that no longer exists. Bounded by :data:`ATTEMPTS`; logged the first time only."""

    @functools.wraps(call)
    def answer(tool: Tool, arguments: Arguments, context: ToolContext) -> ToolResult:
        for _ in range(ATTEMPTS - 1):
            try:
                return call(tool, arguments, context)
            except SourceChangedError as exc:
                if not _said.is_set():
                    _said.set()
                    _log.info("the tree changed during a call (%s): answered again", exc)
        with changed_sources_read_empty():
            return call(tool, arguments, context)

    return answer
