"""Work nobody waits for stops: a cancelled, abandoned or interrupted server stops its calls
and (for stdio and signals) exits, over real subprocesses."""

from __future__ import annotations

import signal
import sys
import textwrap
import time
from pathlib import Path

import httpx
import pytest

from .e2e_support import INITIALIZE, HttpServers, RunningServer
from .raw_stdio import RawStdioServer

STOPPED = "slow: stopped at step 1 of 2 after cancellation"
EXIT_TIMEOUT = 20  # generous on a loaded machine; the point is that it exits at all


def start_slow_call(server: RawStdioServer) -> None:
    server.initialize()
    server.call(1, "slow", {"seconds": 60, "steps": 2})
    # the first progress notification is 30 s away; wait until the call is surely running
    time.sleep(1.0)


def wait_for_log(read_log: object, text: str, timeout: float = EXIT_TIMEOUT) -> None:
    assert callable(read_log)
    deadline = time.monotonic() + timeout
    while text not in read_log():
        assert time.monotonic() < deadline, f"{text!r} not logged:\n{read_log()}"
        time.sleep(0.1)


@pytest.mark.parametrize("how", ["stdin-closed", "SIGINT", "SIGTERM"])
def test_stdio_server_stops_its_calls_and_exits(tmp_path: Path, how: str) -> None:
    server = RawStdioServer(tmp_path / "stdio.log")
    try:
        start_slow_call(server)
        if how == "stdin-closed":
            server.close_stdin()  # SIGINT/SIGTERM: stdin stays open, the client is still there
        else:
            server.process.send_signal(getattr(signal, how))
        assert server.process.wait(timeout=EXIT_TIMEOUT) == 0
        log = server.log()
        assert STOPPED in log
        if how != "stdin-closed":
            assert f"{how} received; shutting down" in log
    finally:
        server.stop()


STUBBORN_SERVER = textwrap.dedent(
    """
    import time
    from mcp_common import NoArguments, ServerSettings, ToolAnnotations, ToolDefinition, ToolResult
    from mcp_common.adapter import ServerApp, serve

    class Stubborn:
        definition = ToolDefinition(
            name="stubborn",
            description="Ignore cancellation for a minute.",
            arguments=NoArguments,
            annotations=ToolAnnotations.read_only_tool(),
        )

        def call(self, arguments, context):
            time.sleep(60)
            return ToolResult.success("done")

    tools = lambda settings: [Stubborn()]
    serve(ServerApp("stubborn", "mcp-tools-common", "d", "", ServerSettings, tools))
    """
)


def test_a_tool_ignoring_cancellation_does_not_keep_the_process_alive(tmp_path: Path) -> None:
    script = tmp_path / "stubborn_server.py"
    script.write_text(STUBBORN_SERVER)
    server = RawStdioServer(tmp_path / "stubborn.log", command=[sys.executable, str(script)])
    try:
        server.initialize()
        server.call(1, "stubborn", {})
        time.sleep(1.0)
        server.close_stdin()
        assert server.process.wait(timeout=EXIT_TIMEOUT) == 0
        assert "1 call(s) still running 0.8 s after shutdown; exiting without them" in server.log()
    finally:
        server.stop()


SLOW_CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "slow", "arguments": {"seconds": 60, "steps": 2}},
}


def session_headers(client: httpx.Client, server: RunningServer) -> dict[str, str]:
    """Initialize over HTTP; the headers later requests of this session carry."""
    url = server.url
    response = client.post(url, json=INITIALIZE, headers=server.headers)
    assert response.status_code == 200
    headers = dict(server.headers)
    session = response.headers.get("mcp-session-id")
    if session:
        headers["mcp-session-id"] = session
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        client.post(url, json=initialized, headers=headers)
    return headers


@pytest.mark.parametrize("transport", ["streamable-http", "stateless-http"])
def test_http_client_disconnect_cancels_its_call(http_servers: HttpServers, transport: str) -> None:
    server = http_servers.start(transport)
    with httpx.Client(timeout=60) as client:
        headers = session_headers(client, server)
        with client.stream("POST", server.url, json=SLOW_CALL, headers=headers) as response:
            assert response.status_code == 200
            time.sleep(1.0)
        # leaving the block closes the connection before the answer came
    wait_for_log(server.log, STOPPED)
    assert server.process.poll() is None  # and the server keeps serving


@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("transport", ["streamable-http", "stateless-http"])
def test_http_server_ends_promptly_on_a_signal_with_a_call_running(
    http_servers: HttpServers, transport: str, how: str
) -> None:
    server = http_servers.start(transport)
    with httpx.Client(timeout=60) as client:
        headers = session_headers(client, server)
        with client.stream("POST", server.url, json=SLOW_CALL, headers=headers):
            time.sleep(1.0)
            server.process.send_signal(getattr(signal, how))
            server.process.wait(timeout=EXIT_TIMEOUT)
    assert STOPPED in server.log()
