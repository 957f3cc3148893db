"""A tool burning CPU on hostile input in ``run_isolated`` never freezes its server: over real
stdio the server answers pings and other calls meanwhile, a cancel kills the child, and
SIGTERM or a closed stdin end the server within 2 s, leaving no process behind."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from .e2e_support import INITIALIZE, HttpServers, RunningServer
from .raw_stdio import RawStdioServer

COMMAND = [sys.executable, "-m", "isolation_server"]
BOUND = 2.0  # seconds: a cancel or a shutdown ends the work within this


def gone(pid: int) -> bool:
    return not Path(f"/proc/{pid}").exists()


def children_of(pid: int) -> list[tuple[int, str]]:
    """(pid, state) of every process whose parent is ``pid``, but its watchdog."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == pid and b"_watchdog.py" not in command:
            found.append((int(entry.name), fields[0]))
    return found


def command_line(entry: Path) -> bytes:
    try:
        return (entry / "cmdline").read_bytes() if entry.name.isdigit() else b""
    except OSError:
        return b""


def wait_for_pid(pid_file: Path, server: RawStdioServer | RunningServer) -> int:
    deadline = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text()):
        assert time.monotonic() < deadline, f"the work never started\n{server.log()}"
        time.sleep(0.02)
    return int(pid_file.read_text())


def wait_gone(pid: int, bound: float) -> float:
    started = time.monotonic()
    while not gone(pid):
        assert time.monotonic() - started < bound, f"process {pid} still there after {bound} s"
        time.sleep(0.01)
    return time.monotonic() - started


@pytest.fixture
def server(tmp_path: Path) -> Any:
    running = RawStdioServer(tmp_path / "server.log", command=COMMAND)
    try:
        running.initialize()
        yield running
    finally:
        running.stop()


def start_scan(server: RawStdioServer, tmp_path: Path, request_id: int = 1) -> int:
    pid_file = tmp_path / f"scan-{request_id}.pid"
    server.call(request_id, "scan", {"length": 60, "pidFile": str(pid_file)})
    child = wait_for_pid(pid_file, server)
    time.sleep(0.3)  # deep in the match
    return child


def test_pings_and_other_calls_are_answered_while_a_tool_burns_cpu(
    server: RawStdioServer, tmp_path: Path
) -> None:
    child = start_scan(server, tmp_path)
    for request_id in (10, 11, 12):
        asked = time.monotonic()
        server.request(request_id, "ping", {})
        assert server.reply_to(request_id, timeout=BOUND)["result"] == {}
        assert time.monotonic() - asked < BOUND
    server.call(20, "hello", {})
    assert server.reply_to(20, timeout=BOUND)["result"]["content"][0]["text"] == "hello"
    assert not gone(child)  # the scan is still burning


def test_a_cancel_ends_the_child_within_two_seconds(server: RawStdioServer, tmp_path: Path) -> None:
    child = start_scan(server, tmp_path)
    server.send(
        {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": 1, "reason": "user pressed stop"},
        }
    )
    wait_gone(child, BOUND)
    server.request(2, "ping", {})
    assert server.reply_to(2, timeout=BOUND)["result"] == {}
    assert [state for _, state in children_of(server.process.pid) if state == "Z"] == []


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "stdin-closed"])
def test_the_server_ends_within_two_seconds_with_a_tool_burning_cpu(
    server: RawStdioServer, tmp_path: Path, how: str
) -> None:
    child = start_scan(server, tmp_path)
    asked = time.monotonic()
    if how == "stdin-closed":
        server.close_stdin()
    else:
        server.process.send_signal(getattr(signal, how))
    assert server.process.wait(timeout=10) == 0
    assert time.monotonic() - asked < BOUND
    wait_gone(child, 0.5)


def test_the_memory_limit_is_a_clear_tool_error_and_the_server_serves_on(
    server: RawStdioServer,
) -> None:
    server.call(1, "expand", {"megabytes": 4096})
    reply = server.reply_to(1, timeout=60)["result"]
    assert reply["isError"] is True
    assert reply["content"][0]["text"] == (
        "expand failed: the expansion stopped: it needed more than its 256 MiB memory limit"
    )
    server.call(2, "expand", {"megabytes": 10})
    assert server.reply_to(2, timeout=60)["result"]["content"][0]["text"] == "held 10 MiB"


def test_the_time_limit_is_a_clear_tool_error(server: RawStdioServer, tmp_path: Path) -> None:
    server.call(1, "scan", {"length": 60, "seconds": 1})
    reply = server.reply_to(1, timeout=60)["result"]
    assert reply["isError"] is True
    assert reply["content"][0]["text"] == (
        "scan failed: the pattern scan stopped: it ran past its 1 s time limit"
    )
    assert reply["structuredContent"]["error"]["code"] == "timeout"


def test_no_process_is_left_behind(server: RawStdioServer, tmp_path: Path) -> None:
    for request_id in range(1, 4):
        server.call(request_id, "scan", {"length": 5})
        assert "matched: False" in str(server.reply_to(request_id, timeout=60))
    server.call(9, "scan", {"length": 60, "seconds": 1})
    server.reply_to(9, timeout=60)
    assert children_of(server.process.pid) == []


@pytest.mark.parametrize("how", ["SIGTERM", "stdin-closed"])
def test_a_tool_holding_the_interpreter_cannot_keep_the_server_alive(
    server: RawStdioServer, tmp_path: Path, how: str
) -> None:
    # no run_isolated here: the match runs in the server's own thread and holds the GIL, so
    # neither the event loop nor a Python signal handler can run; the watchdog ends it
    server.call(1, "stuck", {"pidFile": str(tmp_path / "stuck.pid")})
    wait_for_pid(tmp_path / "stuck.pid", server)
    time.sleep(0.3)  # deep in the match
    server.request(2, "ping", {})
    assert server.receive(timeout=0.5) is None  # frozen, as the issue found it
    asked = time.monotonic()
    if how == "stdin-closed":
        server.close_stdin()
    else:
        server.process.send_signal(signal.SIGTERM)
    server.process.wait(timeout=10)
    assert time.monotonic() - asked < BOUND
    cause = "SIGTERM" if how == "SIGTERM" else "the client closed stdin"
    assert (
        f"the server did not stop within 1.7 s of {cause} (a tool is running code that "
        "cannot be interrupted); killing it"
    ) in server.log()


def test_the_watchdog_gets_none_of_the_servers_environment(tmp_path: Path) -> None:
    running = RawStdioServer(
        tmp_path / "server.log",
        command=COMMAND,
        env={"ISOLATION_SERVER_AUTH_TOKEN": "planted-secret", "GH_TOKEN": "ghp_planted"},
    )
    try:
        running.initialize()
        watchdogs = [
            entry
            for entry in Path("/proc").iterdir()
            if b"_watchdog.py" in command_line(entry)
            and str(running.process.pid).encode() in command_line(entry)
        ]
        assert len(watchdogs) == 1
        assert (watchdogs[0] / "environ").read_bytes() == b""
    finally:
        running.stop()


SCAN_CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "scan", "arguments": {"length": 60}},
}
HELLO_CALL = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "hello", "arguments": {}},
}


def post_in_background(url: str, headers: dict[str, str], body: dict[str, Any]) -> None:
    def send() -> None:
        with contextlib.suppress(httpx.HTTPError):
            httpx.post(url, json=body, headers=headers, timeout=60)

    threading.Thread(target=send, daemon=True).start()


def test_over_http_other_clients_are_served_while_a_tool_burns_cpu(
    http_servers: HttpServers, tmp_path: Path
) -> None:
    server = http_servers.start("stateless-http", module="isolation_server")
    scan = {
        **SCAN_CALL,
        "params": {
            "name": "scan",
            "arguments": {"length": 60, "pidFile": str(tmp_path / "scan.pid")},
        },
    }
    post_in_background(server.url, server.headers, scan)
    child = wait_for_pid(tmp_path / "scan.pid", server)
    time.sleep(0.3)  # deep in the match
    asked = time.monotonic()
    answer = httpx.post(server.url, json=HELLO_CALL, headers=server.headers, timeout=30)
    assert answer.status_code == 200
    assert '"text":"hello"' in answer.text
    assert time.monotonic() - asked < BOUND
    assert not gone(child)  # answered while the scan still burns


@pytest.mark.parametrize("workers", ["1", "2"])
def test_over_http_sigterm_ends_a_server_whose_tool_holds_the_interpreter(
    http_servers: HttpServers, tmp_path: Path, workers: str
) -> None:
    server = http_servers.start("stateless-http", "--workers", workers, module="isolation_server")
    stuck = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "stuck", "arguments": {"pidFile": str(tmp_path / "stuck.pid")}},
    }
    post_in_background(server.url, server.headers, stuck)
    wait_for_pid(tmp_path / "stuck.pid", server)
    time.sleep(0.3)  # deep in the match
    asked = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    server.process.wait(timeout=10)
    assert time.monotonic() - asked < BOUND
    if workers == "1":
        assert "the server did not stop within 1.7 s of SIGTERM" in server.log()
    else:
        assert "did not stop within 1.7 s; killing it" in server.log()


def test_over_http_a_cancel_ends_the_child_and_the_session_serves_on(
    http_servers: HttpServers, tmp_path: Path
) -> None:
    server = http_servers.start("streamable-http", module="isolation_server")
    opened = httpx.post(server.url, json=INITIALIZE, headers=server.headers, timeout=30)
    assert opened.status_code == 200
    session = {**server.headers, "mcp-session-id": opened.headers["mcp-session-id"]}
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert httpx.post(server.url, json=initialized, headers=session, timeout=30).is_success
    pid_file = tmp_path / "scan.pid"
    scan = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "scan", "arguments": {"length": 60, "pidFile": str(pid_file)}},
    }
    post_in_background(server.url, session, scan)
    deadline = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text()):
        assert time.monotonic() < deadline, f"the scan never started\n{server.log()}"
        time.sleep(0.02)
    child = int(pid_file.read_text())
    time.sleep(0.3)  # deep in the match
    assert not gone(child)
    cancel = {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": 7, "reason": "user pressed stop"},
    }
    assert httpx.post(server.url, json=cancel, headers=session, timeout=30).is_success
    wait_gone(child, BOUND)
    answer = httpx.post(server.url, json=HELLO_CALL, headers=session, timeout=30)
    assert '"text":"hello"' in answer.text
