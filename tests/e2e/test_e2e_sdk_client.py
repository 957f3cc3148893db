"""The example server as a real subprocess, driven by the SDK client over every transport."""

from __future__ import annotations

import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from .e2e_support import REPO_ROOT, HttpServers, RunningServer, sdk_client, server_env

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

TRANSPORTS = ["stdio", "streamable-http", "stateless-http"]
MODES = ["legacy", "auto"]


@asynccontextmanager
async def connect(
    transport: str, mode: str, http_servers: HttpServers, log_file: Path
) -> AsyncIterator[tuple[Client, RunningServer | None]]:
    """A client connected to a fresh example server over ``transport``."""
    if transport == "stdio":
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "example_server", "--log-file", str(log_file)],
            env=server_env(),
            cwd=REPO_ROOT,
        )
        async with Client(params, mode=mode) as client:
            yield client, None
    else:
        running = http_servers.start(transport)
        async with sdk_client(running, mode) as client:
            yield client, running


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def server_log(running: RunningServer | None, log_file: Path) -> str:
    return running.log() if running is not None else log_file.read_text()


async def wait_for(predicate: Any, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        await anyio.sleep(0.05)
    return bool(predicate())


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_list_call_fail_and_progress(
    transport: str, mode: str, http_servers: HttpServers, tmp_path: Path
) -> None:
    log_file = tmp_path / "stdio.log"
    async with connect(transport, mode, http_servers, log_file) as (client, running):
        if mode == "auto":
            assert client.protocol_version == "2026-07-28"
        else:
            assert client.server_info is not None
            assert client.server_info.name == "example-server"

        listed = await client.list_tools()
        assert [t.name for t in listed.tools] == ["echo", "slow", "boom"]
        echo = listed.tools[0]
        assert echo.annotations is not None
        assert echo.annotations.read_only_hint is True
        assert echo.output_schema is not None

        result = await client.call_tool("echo", {"text": "hi", "times": 2})
        assert not result.is_error
        assert text_of(result) == "hi hi"
        assert result.structured_content == {"text": "hi hi"}

        failed = await client.call_tool("boom", {})
        assert failed.is_error
        text = text_of(failed)
        assert text.startswith("boom failed: cannot connect to https://***@db.example.com/x")
        assert "secret" not in text
        assert "/srv/private" not in text
        assert "Traceback" not in text

        bad = await client.call_tool("echo", {"txt": "hi"})
        assert bad.is_error
        assert "Did you mean 'text'?" in text_of(bad)

        seen: list[tuple[float, float | None, str | None]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append((progress, total, message))

        slow = await client.call_tool(
            "slow", {"seconds": 0.2, "steps": 3}, progress_callback=on_progress
        )
        assert text_of(slow) == "waited 0.2 seconds"
        assert seen == [(1, 3, "step 1 of 3"), (2, 3, "step 2 of 3"), (3, 3, "step 3 of 3")]

    log = server_log(running, log_file)
    assert "boom failed; arguments={}" in log
    assert "Traceback" in log
    assert "/srv/private/data/file.csv" in log  # the log keeps paths ...
    assert "user:secret" not in log  # ... but never credentials


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_cancelled_call_stops_the_tool_and_the_server_keeps_serving(
    transport: str, mode: str, http_servers: HttpServers, tmp_path: Path
) -> None:
    log_file = tmp_path / "stdio.log"
    async with connect(transport, mode, http_servers, log_file) as (client, running):
        started = anyio.Event()

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            started.set()

        async with anyio.create_task_group() as group:
            group.start_soon(
                lambda: client.call_tool(
                    "slow", {"seconds": 30, "steps": 100}, progress_callback=on_progress
                )
            )
            with anyio.fail_after(15):
                await started.wait()
            group.cancel_scope.cancel()

        with anyio.fail_after(10):
            after = await client.call_tool("echo", {"text": "still here"})
        assert text_of(after) == "still here"
        if transport != "stateless-http":
            assert await wait_for(lambda: "after cancellation" in server_log(running, log_file))
    if transport == "stateless-http":
        # Stateless HTTP has no session to route the client's notifications/cancelled to the
        # running request; the call is cancelled when the client drops its connection.
        assert await wait_for(lambda: "after cancellation" in server_log(running, log_file))


@pytest.mark.parametrize("transport", ["streamable-http", "stateless-http"])
async def test_a_slow_call_does_not_block_a_fast_one(
    transport: str, http_servers: HttpServers, tmp_path: Path
) -> None:
    running = http_servers.start(transport)
    async with (
        sdk_client(running) as slow_client,
        sdk_client(running) as fast_client,
    ):
        finished: dict[str, float] = {}

        async def slow_call() -> None:
            await slow_client.call_tool("slow", {"seconds": 3, "steps": 3})
            finished["slow"] = time.monotonic()

        begin = time.monotonic()
        async with anyio.create_task_group() as group:
            group.start_soon(slow_call)
            await anyio.sleep(0.3)
            result = await fast_client.call_tool("echo", {"text": "fast"})
            finished["fast"] = time.monotonic()
            assert text_of(result) == "fast"
        assert finished["fast"] - begin < 2.0
        assert finished["fast"] < finished["slow"]
