"""A server configured by the standard OTEL_* variables exports tool-call traces and metrics
over OTLP/HTTP, to a real (minimal) collector on loopback, without argument values."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from .raw_stdio import RawStdioServer

SECRET_VALUE = "value-that-must-not-be-exported"


class Collector(ThreadingHTTPServer):
    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.received: list[tuple[str, bytes]] = []

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def bodies(self, path: str) -> bytes:
        return b"".join(body for where, body in self.received if where == path)


class _Handler(BaseHTTPRequestHandler):
    server: Collector

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        self.server.received.append((self.path, body))
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the test asserts on what arrived."""


@pytest.fixture
def collector() -> Iterator[Collector]:
    server = Collector()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def test_otlp_export_of_tool_calls(tmp_path: Path, collector: Collector) -> None:
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint, "OTEL_SERVICE_NAME": "e2e-otel"}
    server = RawStdioServer(tmp_path / "otel.log", env=env)
    try:
        server.initialize()
        server.call(1, "echo", {"text": SECRET_VALUE})
        assert not server.reply_to(1)["result"]["isError"]
        server.call(2, "boom", {})
        assert server.reply_to(2)["result"]["isError"]
        server.close_stdin()  # exporters flush when the process ends
        assert server.process.wait(timeout=60) == 0
    finally:
        server.stop()
    assert "exporting traces and metrics over OTLP" in server.log()
    traces = collector.bodies("/v1/traces")
    metrics = collector.bodies("/v1/metrics")
    for expected in (b"execute_tool echo", b"execute_tool boom", b"e2e-otel", b"mcp.tool.outcome"):
        assert expected in traces
    for expected in (b"mcp.tool.calls", b"mcp.tool.duration", b"mcp.tool.arguments.size"):
        assert expected in metrics
    assert SECRET_VALUE.encode() not in traces + metrics
