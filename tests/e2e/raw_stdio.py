"""A line-level JSON-RPC client for the example server over stdio, for raw and hostile input."""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import subprocess
import time
from pathlib import Path
from typing import Any

from .e2e_support import REPO_ROOT, server_command, server_env

PROTOCOL_VERSION = "2025-06-18"


class RawStdioServer:
    """The example server over stdio; lines in, lines out, stderr to ``log_file``."""

    def __init__(
        self,
        log_file: Path,
        *args: str,
        command: list[str] | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        """Start the example server with ``args`` (or ``command``) and extra ``env``."""
        self.log_file = log_file
        with log_file.open("wb") as sink:
            self.process = subprocess.Popen(
                command or server_command(*args),
                env=server_env(env),
                cwd=REPO_ROOT,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=sink,
            )
        assert self.process.stdout is not None
        self._buffer = b""
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.process.stdout, selectors.EVENT_READ)

    def send_line(self, line: str | bytes) -> None:
        data = line.encode() if isinstance(line, str) else line
        assert self.process.stdin is not None
        self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_line(json.dumps(message))

    def receive(self, timeout: float = 30.0) -> dict[str, Any] | None:
        """The next message from the server, or None when none comes within ``timeout``."""
        assert self.process.stdout is not None
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not self._selector.select(left):
                return None
            chunk = os.read(self.process.stdout.fileno(), 65536)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        message: dict[str, Any] = json.loads(line)
        return message

    def reply_to(self, request_id: object, timeout: float = 30.0) -> dict[str, Any]:
        """The server's answer to ``request_id`` (notifications before it are skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            message = self.receive(max(0.0, deadline - time.monotonic()))
            assert message is not None, f"no reply to {request_id!r}\n{self.log()}"
            if message.get("id") == request_id and "method" not in message:
                return message

    def request(self, request_id: int, method: str, params: dict[str, Any]) -> None:
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})

    def initialize(self) -> None:
        self.request(
            0,
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        )
        assert "result" in self.reply_to(0)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(self, request_id: int, tool: str, arguments: object) -> None:
        self.request(request_id, "tools/call", {"name": tool, "arguments": arguments})

    def close_stdin(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()

    def log(self) -> str:
        return self.log_file.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=10)
        self._selector.close()
        assert self.process.stdout is not None
        self.process.stdout.close()
        if self.process.stdin is not None and not self.process.stdin.closed:
            with contextlib.suppress(BrokenPipeError):
                self.process.stdin.close()
