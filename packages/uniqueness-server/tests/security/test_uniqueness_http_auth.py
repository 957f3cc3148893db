"""Issue 23 item 6 replayed as it was found: the real ``uniqueness-server`` serves HTTP from
root with a root-only directory allowed, and another user of the machine (``nobody``) tries
to read a file of that directory through it.

Started without ``--auth-token``, the server generates a token and ``nobody`` gets 401 and
cannot read the token file (0600 in a 0700 directory, even where the runtime directory
itself is open to all). Started with ``--no-auth``, ``nobody`` reads the file (the harm the
default prevents, shown so this test can see it) and the log says so in plain words.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = [pytest.mark.e2e]

SERVER = Path(sys.executable).parent / "uniqueness-server"
SECRET = "Root-Only-Secret-4417"
NOBODY = 65534
NO_AUTH_WARNING = (
    "WARNING mcp_common.adapter: serving HTTP without authentication (--no-auth): every user "
    "of this machine can call the tools"
)
CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {
        "name": "uniqueness_check",
        "arguments": {"path": "secret.csv", "columns": ["note"]},
    },
}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "nobody", "version": "0"},
    },
}

if os.geteuid() != 0:
    pytest.skip("needs root: the attacker is another user of the machine", allow_module_level=True)


@dataclass
class Machine:
    """A machine as the issue found it: a root-only directory and a runtime directory."""

    vault: Path
    runtime: Path
    home: Path


@pytest.fixture
def machine() -> Iterator[Machine]:
    # not under pytest's tmp_path (0700): the other user must reach the runtime directory,
    # as on a machine whose runtime directory is open to all
    top = Path(tempfile.mkdtemp(prefix="mcp-tools-auth-"))
    top.chmod(0o755)
    vault = top / "vault"
    vault.mkdir(mode=0o700)
    (vault / "secret.csv").write_text(f"id,note\n1,{SECRET}\n2,{SECRET}\n", encoding="utf-8")
    runtime = top / "runtime"
    runtime.mkdir()
    runtime.chmod(0o777 | stat.S_ISVTX)
    home = top / "home"
    home.mkdir(mode=0o700)
    try:
        yield Machine(vault, runtime, home)
    finally:
        shutil.rmtree(top, ignore_errors=True)


@dataclass
class Served:
    process: subprocess.Popen[bytes]
    port: int
    log: Path
    stderr: Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.contextmanager
def serve(machine: Machine, transport: str, *flags: str) -> Iterator[Served]:
    assert SERVER.is_file(), f"{SERVER} is not installed; run uv sync"
    port = free_port()
    log = machine.home / f"{port}.log"
    stderr = machine.home / f"{port}.stderr"
    env = {k: v for k, v in os.environ.items() if not k.startswith("UNIQUENESS_SERVER_")}
    env.update(XDG_RUNTIME_DIR=str(machine.runtime), HOME=str(machine.home))
    env.pop("XDG_STATE_HOME", None)
    with stderr.open("wb") as sink:
        process = subprocess.Popen(
            [
                str(SERVER),
                *("--transport", transport, "--port", str(port)),
                *("--allowed-dir", str(machine.vault), "--log-file", str(log), *flags),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=sink,
            env=env,
            cwd=machine.home,
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, stderr.read_text(errors="replace")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            assert time.monotonic() < deadline, "the server did not start listening"
            time.sleep(0.05)
        yield Served(process, port, log, stderr)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def post(port: int, body: dict[str, object]) -> tuple[int, str]:
    """The status and body of one POST to /mcp over a bare socket (the standard library's
    HTTP client imports modules lazily, which another user cannot read under /root)."""
    data = json.dumps(body).encode()
    head = (
        "POST /mcp HTTP/1.1\r\n"
        f"Host: 127.0.0.1:{port}\r\n"
        "Accept: application/json, text/event-stream\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(data)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode()
    reply = b""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as raw:
        raw.sendall(head + data)
        while chunk := raw.recv(65536):
            reply += chunk
    status = int(reply.split(b" ", 2)[1])
    return status, reply.partition(b"\r\n\r\n")[2].decode(errors="replace")


def as_nobody(action: Callable[[], dict[str, object]]) -> dict[str, object]:
    """``action``'s answer, run in a forked process that became user ``nobody``."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            answer = json.dumps(action()).encode()
            while answer:
                answer = answer[os.write(write, answer) :]
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        answer = pipe.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the process as nobody failed"
    found: dict[str, object] = json.loads(answer)
    return found


def readable(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except PermissionError:
        return "permission denied"


@pytest.mark.parametrize("transport", ["streamable-http", "stateless-http"])
def test_another_user_is_refused_by_default(machine: Machine, transport: str) -> None:
    with serve(machine, transport) as served:
        token_file = machine.runtime / "mcp-tools" / f"uniqueness-server-{served.port}.token"
        token = token_file.read_text(encoding="utf-8").strip()
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        assert stat.S_IMODE(token_file.parent.stat().st_mode) == 0o700
        first = CALL if transport == "stateless-http" else INITIALIZE

        def attack() -> dict[str, object]:
            status, body = post(served.port, first)
            return {
                "direct": readable(machine.vault / "secret.csv"),
                "token": readable(token_file),
                "status": status,
                "body": body,
            }

        seen = as_nobody(attack)
        assert seen["direct"] == "permission denied"  # the file is root's alone
        assert seen["token"] == "permission denied"
        assert seen["status"] == 401
        assert SECRET not in str(seen["body"])
        assert token not in served.log.read_text(encoding="utf-8")
    assert not token_file.exists()  # removed with the server


def test_no_auth_lets_another_user_in_and_says_so_plainly(machine: Machine) -> None:
    with serve(machine, "stateless-http", "--no-auth") as served:

        def call() -> dict[str, object]:
            status, body = post(served.port, CALL)
            return {"status": status, "body": body}

        seen = as_nobody(call)
        assert seen["status"] == 200
        assert SECRET in str(seen["body"])  # the harm the generated token prevents
        log = served.log.read_text(encoding="utf-8")
    warning = next(line for line in log.splitlines() if "--no-auth" in line)
    assert warning.endswith(NO_AUTH_WARNING)
    assert "***" not in warning
    assert "token:" not in served.stderr.read_text(encoding="utf-8")
    assert not (machine.runtime / "mcp-tools" / f"uniqueness-server-{served.port}.token").exists()


def test_a_configuration_error_announces_no_token(machine: Machine) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("UNIQUENESS_SERVER_")}
    env.update(XDG_RUNTIME_DIR=str(machine.runtime), HOME=str(machine.home))
    done = subprocess.run(
        [
            str(SERVER),
            *("--transport", "streamable-http", "--port", str(free_port())),
            *("--allowed-dir", str(machine.home / "missing")),
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        "uniqueness-server: error: allowed directory does not exist or is not a directory: "
        f"{machine.home / 'missing'}"
    )
    assert "Bearer" not in done.stderr
    assert "token:" not in done.stderr
    assert not (machine.runtime / "mcp-tools").exists()
