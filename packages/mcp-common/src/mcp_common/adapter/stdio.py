"""The stdio transport: JSON-RPC on the real stdout, and nothing else.

Before serving, the process's file descriptor 1 is pointed at stderr and the wire keeps a
private duplicate of the original stdout. Stray ``print()`` calls and C-level writes of any
library therefore land on stderr, never between two JSON-RPC messages.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import re
import signal
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import TracebackType
from typing import Any, Self, cast

import anyio
import anyio.to_thread
from mcp.server import Server
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError

from mcp_common.settings import DEFAULT_MAX_MESSAGE_BYTES

_log = logging.getLogger("mcp_common.adapter")

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
"""The signals that stop a server (calls cancelled, then exit)."""

MESSAGE_DEPTH_LIMIT = 200
"""JSON nesting levels a message may have (the SDK's JSON parser stops there); a deeper one
is answered with a parse error. Tool arguments are refused far earlier, at 32 levels."""


def claim_stdin() -> int:
    """Take the real stdin for the wire (a private descriptor, returned) and point fd 0 at
    the null device, so no child process or library reads the client's messages."""
    wire_fd = os.dup(0)
    null_fd = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null_fd, 0)
    os.close(null_fd)
    return wire_fd


class StdinLines:
    """The wire's lines, read without a blocked thread: waiting for input is an event-loop
    wait, so cancelling the server (a signal) never waits for the client to write.

    A line longer than ``limit`` bytes is never held: its bytes are dropped as they arrive
    and :data:`OVERSIZED` takes its place (answered with a parse error naming the limit), its
    JSON-RPC id kept when the line's first or last bytes show it.
    """

    _CHUNK = 1 << 16
    _EDGE = 256  # bytes kept from each end of a dropped line, to find its id

    def __init__(self, fd: int, limit: int = DEFAULT_MAX_MESSAGE_BYTES) -> None:
        self._fd = fd
        self._limit = limit
        self._buffer = bytearray()
        self._scanned = 0  # the buffer holds no newline before this offset
        self._eof = False
        self._pollable = True
        self._head: bytes | None = None  # set while the rest of an oversized line is dropped
        self._tail = b""

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> str:
        while True:
            end = self._buffer.find(b"\n", self._scanned)
            if end >= 0:
                return self._take(end + 1)
            self._scanned = len(self._buffer)
            if self._eof:
                if not self._buffer and self._head is None:
                    raise StopAsyncIteration
                return self._take(len(self._buffer))
            if self._head is None and len(self._buffer) > self._limit:
                self._head = bytes(self._buffer[: self._EDGE])
                self._drop_buffer()
            chunk = await self._read()
            if chunk:
                self._buffer += chunk
            else:
                self._eof = True

    def _take(self, size: int) -> str:
        line = bytes(self._buffer[:size])
        del self._buffer[:size]
        self._scanned = 0
        if self._head is None and len(line.rstrip(b"\r\n")) <= self._limit:
            return line.decode("utf-8", errors="replace")
        head = self._head if self._head is not None else line[: self._EDGE]
        tail = (self._tail + line)[-self._EDGE :]
        self._head, self._tail = None, b""
        return oversized_line(head, tail)

    def _drop_buffer(self) -> None:
        self._tail = (self._tail + bytes(self._buffer))[-self._EDGE :]
        self._buffer.clear()
        self._scanned = 0

    async def _read(self) -> bytes:
        if self._head is not None:
            self._drop_buffer()
        if self._pollable:
            try:
                await anyio.wait_readable(self._fd)
            except OSError:
                # a regular file or the null device cannot be polled; reading one never
                # waits for a client, so a worker thread is harmless there
                self._pollable = False
            else:
                return os.read(self._fd, self._CHUNK)
        return await anyio.to_thread.run_sync(os.read, self._fd, self._CHUNK)


OVERSIZED = "\x00oversized"
"""The start of the line standing in for a dropped oversized line: never valid JSON, so the
SDK hands it on as a parse failure, which :func:`rejection` recognises."""

_ID = r'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")'
_HEAD_ID = re.compile(rb'\A\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?' + _ID.encode())
_TAIL_ID = re.compile(rb",\s*" + _ID.encode() + rb"\s*\}\s*\Z")


def oversized_line(head: bytes, tail: bytes) -> str:
    """The stand-in for a dropped line: :data:`OVERSIZED` and, when the line's first or last
    bytes show its top-level id (where SDKs write it: first after ``jsonrpc``, or last), that
    id as JSON text."""
    found = _HEAD_ID.match(head) or _TAIL_ID.search(tail)
    return OVERSIZED + (" " + found.group(1).decode("utf-8", errors="replace") if found else "")


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


def rejection(
    error: ValidationError, limit: int = DEFAULT_MAX_MESSAGE_BYTES
) -> JSONRPCError | None:
    """The JSON-RPC error answering a line the SDK could not read as a message (None for a
    blank line): malformed or too deeply nested JSON, or a line over ``limit`` bytes, is a
    parse error (-32700), JSON that is no JSON-RPC message an invalid request (-32600); both
    carry the line's id when it can be told."""
    first = error.errors(include_url=False)[0]
    if first["type"] == "json_invalid":
        text = first.get("input")
        if isinstance(text, str) and text.startswith(OVERSIZED):
            return _too_large(text.removeprefix(OVERSIZED), limit)
        if isinstance(text, str | bytes) and not text.strip():
            return None
        detail = str((first.get("ctx") or {}).get("error", "invalid JSON"))
        if "recursion limit" in detail:
            detail = f"nested more than {MESSAGE_DEPTH_LIMIT} levels deep"
        message = f"Parse error: not valid JSON ({detail})"
        return JSONRPCError(
            jsonrpc="2.0", id=None, error=ErrorData(code=PARSE_ERROR, message=message)
        )
    request_id = None
    for problem in error.errors(include_url=False):
        given = problem.get("input")
        if isinstance(given, Mapping):
            candidate = given.get("id")
            if isinstance(candidate, str | int) and not isinstance(candidate, bool):
                request_id = candidate
            break
    message = "Invalid Request: not a JSON-RPC 2.0 request, notification or response"
    return JSONRPCError(
        jsonrpc="2.0", id=request_id, error=ErrorData(code=INVALID_REQUEST, message=message)
    )


def _too_large(found_id: str, limit: int) -> JSONRPCError:
    request_id: str | int | None = None
    if found_id.strip():
        try:
            candidate = json.loads(found_id)
        except ValueError:
            candidate = None
        if isinstance(candidate, str | int) and not isinstance(candidate, bool):
            request_id = candidate
    message = (
        f"Parse error: the message is larger than the {limit:,} byte limit "
        "(the server's --max-message-bytes)"
    )
    return JSONRPCError(
        jsonrpc="2.0", id=request_id, error=ErrorData(code=PARSE_ERROR, message=message)
    )


class AnsweringReader:
    """The read side the server loop sees over stdio.

    The SDK's stdio reader passes a line it cannot parse on as an exception, which the server
    loop drops without a word: the client waits forever. This wrapper answers such a line with
    a JSON-RPC error itself (and logs it, bounded) and hands the loop only messages.
    """

    def __init__(self, inner: Any, write: Any, limit: int = DEFAULT_MAX_MESSAGE_BYTES) -> None:
        self._inner = inner
        self._write = write
        self._limit = limit

    @property
    def last_context(self) -> Any:
        """The sender's context of the last item (the SDK's context-carrying streams)."""
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        """The next message (or non-parse exception) for the server loop."""
        while True:
            item = await self._inner.receive()
            if not isinstance(item, ValidationError):
                return item
            answer = rejection(item, self._limit)
            if answer is None:
                continue
            _log.warning("refused a stdio line: %s", answer.error.message)
            await self._write.send(SessionMessage(answer))

    async def aclose(self) -> None:
        """Close the underlying stream."""
        await self._inner.aclose()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()


@contextmanager
def _stop_on_signal(scope: anyio.CancelScope) -> Iterator[None]:
    """SIGINT and SIGTERM cancel ``scope``. Installed with :func:`signal.signal` (not the
    loop's ``add_signal_handler``, which would take the wakeup descriptor the watchdog
    listens on); the handler runs in the loop's thread, which it wakes."""
    loop = asyncio.get_running_loop()

    def stop(signum: int) -> None:
        _log.info("%s received; shutting down", signal.Signals(signum).name)
        scope.cancel()

    def handler(signum: int, _frame: object) -> None:
        loop.call_soon_threadsafe(stop, signum)

    previous = {signum: signal.signal(signum, handler) for signum in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, action in previous.items():
            signal.signal(signum, action)


def run_stdio(
    server: Server[Any], wire: io.TextIOWrapper, limit: int = DEFAULT_MAX_MESSAGE_BYTES
) -> None:
    """Serve ``server`` over stdin and the claimed stdout until stdin closes or SIGINT or
    SIGTERM arrives; either way the running calls are cancelled. A line over ``limit`` bytes
    is answered with a parse error."""
    writer = cast("anyio.AsyncFile[str]", WireWriter(wire))
    lines = cast("anyio.AsyncFile[str]", StdinLines(claim_stdin(), limit))

    async def main() -> None:
        with anyio.CancelScope() as scope, _stop_on_signal(scope):
            async with stdio_server(stdin=lines, stdout=writer) as (read, write):
                reader = AnsweringReader(read, write, limit)
                await server.run(reader, write, server.create_initialization_options())
            _log.info("the client closed stdin; shutting down")

    anyio.run(main)
