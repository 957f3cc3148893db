"""What an operator meets: a busy port, several worker processes, the session flags."""

from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path

import httpx
import pytest

from .e2e_support import HttpServers, run_cli

ECHO = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "echo", "arguments": {"text": "hi"}},
}


def test_a_port_in_use_is_one_error_line_before_any_serving_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run_cli(["--transport", "stateless-http", "--port", str(port)])
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"example-server: error: port {port} is already in use (127.0.0.1:{port})"
    ]  # not a usage error: no usage block
    assert "Traceback" not in done.stderr


def test_workers_need_stateless_http() -> None:
    done = run_cli(["--transport", "streamable-http", "--workers", "2"])
    assert done.returncode == 2
    assert "--workers needs --transport stateless-http" in done.stderr


def children_of(pid: int) -> set[int]:
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def test_workers_share_the_port_and_stop_together(http_servers: HttpServers) -> None:
    server = http_servers.start("stateless-http", "--workers", "2")
    with httpx.Client(timeout=30) as client:
        for _ in range(20):
            response = client.post(server.url, json=ECHO, headers=server.headers)
            assert response.status_code == 200
            assert '"text":"hi"' in response.text
    workers = children_of(server.process.pid)
    assert len(workers) == 2
    assert "with 2 worker processes" in server.log()
    # a stateless request is no session: the SDK's per-request termination line is dropped
    assert "Terminating session: None" not in server.log()
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(timeout=30) == 0
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{pid}").exists() for pid in workers):
        assert time.monotonic() < deadline, "a worker outlived its parent"
        time.sleep(0.1)


def test_a_worker_that_dies_stops_the_server(http_servers: HttpServers) -> None:
    server = http_servers.start("stateless-http", "--workers", "2")
    workers = children_of(server.process.pid)
    assert len(workers) == 2
    victim = min(workers)
    # SIGKILL: the worker cannot clean up; the parent notices and stops the other one
    os.kill(victim, signal.SIGKILL)
    assert server.process.wait(timeout=30) != 0
    assert "ended with status -9; stopping the others" in server.log()


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--max-sessions", "0", "argument --max-sessions:"),
        ("--session-idle-timeout", "-1", "argument --session-idle-timeout:"),
        ("--workers", "0", "argument --workers:"),
    ],
)
def test_session_and_worker_flags_refuse_nonsense(flag: str, value: str, message: str) -> None:
    done = run_cli([flag, value])
    assert done.returncode == 2
    assert message in done.stderr
