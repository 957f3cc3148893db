"""Helpers for the end-to-end tests: the example server as a real subprocess."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.client.client import Client
from mcp_common.testing import http_client
from mcp_common.testing.client import ConnectMode

TESTS_DIR = Path(__file__).resolve().parents[1]
REPO_ROOT = TESTS_DIR.parent
SERVER_MODULE = "example_server"
STARTUP_TIMEOUT = 30.0


def server_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for an example server: ``tests/`` importable, no inherited server
    settings, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXAMPLE_SERVER_")}
    path = env.get("PYTHONPATH")
    env["PYTHONPATH"] = str(TESTS_DIR) + (os.pathsep + path if path else "")
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


def server_command(*args: str, module: str = SERVER_MODULE) -> list[str]:
    """The command line that starts the example server (or another test server module)."""
    return [sys.executable, "-m", module, *args]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class RunningServer:
    """An example server listening on HTTP."""

    process: subprocess.Popen[bytes]
    port: int
    log_file: Path
    scheme: str = "http"
    token: str | None = None
    """The bearer token requests need (None with --no-auth)."""

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}/mcp"

    @property
    def auth(self) -> dict[str, str]:
        """The header that authorizes a request (empty with --no-auth)."""
        return {"authorization": f"Bearer {self.token}"} if self.token else {}

    @property
    def headers(self) -> dict[str, str]:
        """A raw streamable-HTTP client's headers, authorized."""
        return {**HEADERS, **self.auth}

    def log(self) -> str:
        return self.log_file.read_text(encoding="utf-8", errors="replace")


def wait_until_listening(process: subprocess.Popen[bytes], port: int, log_file: Path) -> None:
    """Return once ``port`` accepts connections; fail with the log if the process ends first."""
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"server exited with {process.returncode}:\n{log_file.read_text(errors='replace')}"
            )
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"server not listening after {STARTUP_TIMEOUT}s:\n{log_file.read_text()}")


def stop(process: subprocess.Popen[bytes]) -> None:
    """Terminate a server process and reap it (kill when it does not stop in time)."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def token_file(runtime_dir: Path, port: int, server: str = "example-server") -> Path:
    """Where a server started with ``XDG_RUNTIME_DIR=runtime_dir`` writes its token."""
    return runtime_dir / "mcp-tools" / f"{server}-{port}.token"


@asynccontextmanager
async def sdk_client(
    running: RunningServer, mode: ConnectMode = "legacy", **options: Any
) -> AsyncIterator[Client]:
    """The Python SDK client over streamable HTTP to ``running``, sending its token."""
    async with http_client(running.url, token=running.token, mode=mode, **options) as client:
        yield client


def printed_token(stderr: str) -> str:
    """The generated token a server printed on stderr."""
    prefix = "  token: "
    return next(line[len(prefix) :] for line in stderr.splitlines() if line.startswith(prefix))


class HttpServers:
    """Starts example servers on free ports; every one is stopped at teardown.

    A server gets a private ``XDG_RUNTIME_DIR`` and, as by default, generates its bearer
    token, which is read from the token file it writes there (unless the test passes
    ``--no-auth`` or its own ``EXAMPLE_SERVER_AUTH_TOKEN``). ``module`` starts another test
    server than the example server."""

    def __init__(self, tmp_path: Path) -> None:
        self._tmp = tmp_path
        self._started: list[subprocess.Popen[bytes]] = []
        self.runtime_dir = tmp_path / "runtime"
        self.runtime_dir.mkdir(mode=0o700, exist_ok=True)

    def start(
        self,
        transport: str,
        *args: str,
        env: dict[str, str] | None = None,
        scheme: str = "http",
        module: str = SERVER_MODULE,
    ) -> RunningServer:
        port = free_port()
        log_file = self._tmp / f"server-{port}.log"
        command = server_command(
            "--transport", transport, "--port", str(port), *args, module=module
        )
        environment = {"XDG_RUNTIME_DIR": str(self.runtime_dir), **(env or {})}
        with log_file.open("wb") as sink:
            process = subprocess.Popen(
                command,
                env=server_env(environment),
                cwd=REPO_ROOT,
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
            )
        self._started.append(process)
        wait_until_listening(process, port, log_file)
        prefix = module.upper() + "_"  # example_server: EXAMPLE_SERVER_AUTH_TOKEN
        token = environment.get(f"{prefix}AUTH_TOKEN")
        unauthenticated = "--no-auth" in args or environment.get(f"{prefix}NO_AUTH")
        if token is None and not unauthenticated:
            written = token_file(self.runtime_dir, port, module.replace("_", "-"))
            if written.exists():
                token = written.read_text(encoding="utf-8").strip()
            else:  # it could not be written: the server printed it on stderr only
                token = printed_token(log_file.read_text(encoding="utf-8"))
        return RunningServer(process, port, log_file, scheme, token)

    def stop_all(self) -> None:
        for process in self._started:
            stop(process)


def run_cli(
    args: Sequence[str], env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the example server's command line to completion (for flags that exit)."""
    return subprocess.run(
        server_command(*args),
        env=server_env(env),
        cwd=REPO_ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


# a raw streamable-HTTP client's headers (RunningServer.headers adds the token) and
# handshake, for tests that speak HTTP by hand
HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": "2025-06-18",
}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}
