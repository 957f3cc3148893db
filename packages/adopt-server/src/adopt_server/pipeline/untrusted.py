"""Running the checks of repository content where they can be stopped.

The checker matches patterns against files a repository wrote (its CLAUDE.md, its
``.claude/agent-config-check.json``), so one hostile file can keep a check inside the
regular-expression engine for hours, holding the interpreter lock: inside the server that
would stop every other call, every ping and every cancel. So each check of
:mod:`adopt_server.checks` runs through :func:`mcp_common.run_isolated`: a fresh child process
with a time and a memory limit, killed as soon as the call is cancelled or the server shuts
down.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp_common import (
    IsolatedWorkError,
    IsolationLimits,
    ToolCancelledError,
    ToolContext,
    ToolError,
    run_isolated,
)

from adopt_server.pipeline.errors import StepError

CHECK_SECONDS = 120.0
"""The longest one check of a repository may run (a real one takes well under a second)."""
CHECK_MEMORY_BYTES = 1024 * 1024 * 1024
"""The memory one check may use."""


class _CallContext(ToolContext):
    """The call's cancellation as the isolation reads it: asked of the pipeline's observer."""

    def __init__(self, cancelled: Callable[[], bool]) -> None:
        super().__init__()
        self._asked = cancelled

    @property
    def cancelled(self) -> bool:
        """Whether the caller wants the run to stop."""
        return self._asked()

    def check_cancelled(self) -> None:
        """Raise :class:`ToolCancelledError` once the caller wants the run to stop."""
        if self._asked():
            raise ToolCancelledError


def run_untrusted(
    step: str,
    cancelled: Callable[[], bool],
    function: Callable[..., Any],
    *args: object,
    what: str,
) -> Any:
    """``function(*args)`` in an isolated child limited to :data:`CHECK_SECONDS` and
    :data:`CHECK_MEMORY_BYTES`, killed as soon as ``cancelled()`` is true. A limit reached or
    a failure is the ``step``'s :class:`StepError` naming it; a cancel fails the step as
    ``cancelled``."""
    limits = IsolationLimits(seconds=CHECK_SECONDS, memory_bytes=CHECK_MEMORY_BYTES)
    try:
        return run_isolated(
            function, *args, context=_CallContext(cancelled), limits=limits, what=what
        )
    except ToolCancelledError:
        raise StepError("cancelled") from None
    except (IsolatedWorkError, ToolError) as error:
        raise StepError(f"{step} failed: {error}") from None
