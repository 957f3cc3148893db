"""The stdio transport: JSON-RPC on the real stdout, and nothing else.

Before serving, the process's file descriptor 1 is pointed at stderr and the wire keeps a
private duplicate of the original stdout. Stray ``print()`` calls and C-level writes of any
library therefore land on stderr, never between two JSON-RPC messages.
"""

from __future__ import annotations

import io
import os
import sys
from typing import Any, cast

import anyio
import anyio.to_thread
from mcp.server import Server
from mcp.server.stdio import stdio_server


def claim_stdout() -> io.TextIOWrapper:
    """Take the real stdout for the wire and divert fd 1 (and ``sys.stdout``) to stderr."""
    sys.stdout.flush()
    wire_fd = os.dup(1)
    os.dup2(2, 1)
    return io.TextIOWrapper(os.fdopen(wire_fd, "wb"), encoding="utf-8", newline="\n")


class WireWriter:
    """The async text sink the SDK's stdio writer needs (``write`` then ``flush`` per message).

    ``write`` writes and flushes the whole message in one worker-thread call (a client that
    stops reading never blocks the event loop), so ``flush`` has nothing left to do: one
    thread hop per message where ``anyio.wrap_file`` takes two.
    """

    def __init__(self, wire: io.TextIOWrapper) -> None:
        self._wire = wire

    def _write_all(self, text: str) -> int:
        try:
            written = self._wire.write(text)
            self._wire.flush()
        except (BrokenPipeError, ConnectionResetError) as gone:
            # the client went away: end the writer quietly, as the SDK does for a closed stream
            raise anyio.ClosedResourceError from gone
        return written

    async def write(self, text: str) -> int:
        return await anyio.to_thread.run_sync(self._write_all, text)

    async def flush(self) -> None:
        """Nothing is left buffered after :meth:`write`."""


def run_stdio(server: Server[Any], wire: io.TextIOWrapper) -> None:
    """Serve ``server`` over stdin and the claimed stdout until stdin closes."""
    writer = cast("anyio.AsyncFile[str]", WireWriter(wire))

    async def main() -> None:
        async with stdio_server(stdout=writer) as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
