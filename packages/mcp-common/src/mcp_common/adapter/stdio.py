"""The stdio transport: JSON-RPC on the real stdout, and nothing else.

Before serving, the process's file descriptor 1 is pointed at stderr and the wire keeps a
private duplicate of the original stdout. Stray ``print()`` calls and C-level writes of any
library therefore land on stderr, never between two JSON-RPC messages.
"""

from __future__ import annotations

import io
import os
import sys
from typing import Any

import anyio
from mcp.server import Server
from mcp.server.stdio import stdio_server


def claim_stdout() -> io.TextIOWrapper:
    """Take the real stdout for the wire and divert fd 1 (and ``sys.stdout``) to stderr."""
    sys.stdout.flush()
    wire_fd = os.dup(1)
    os.dup2(2, 1)
    binary = os.fdopen(wire_fd, "wb", buffering=0)
    return io.TextIOWrapper(binary, encoding="utf-8", newline="\n", write_through=True)


def run_stdio(server: Server[Any], wire: io.TextIOWrapper) -> None:
    """Serve ``server`` over stdin and the claimed stdout until stdin closes."""

    async def main() -> None:
        async with stdio_server(stdout=anyio.wrap_file(wire)) as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
