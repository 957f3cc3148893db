"""Adapter overhead: a trivial tool through our adapter vs the same tool on the raw SDK.

Both servers run as real subprocesses and are measured side by side in one run, in
alternating rounds, over stdio and stateless HTTP:

- ``ours``: ``mcp_common.adapter.serve`` with one ``McpTool`` (pydantic arguments, worker thread,
  result translation, output guard, failure handling, the middleware for malformed arguments);
- ``raw``: the SDK's low-level ``Server`` with hand-written async handlers returning the same
  answer, served with the SDK's own ``stdio_server`` / ``streamable_http_app`` + uvicorn.

Prints calls per second, p50 and p95 latency of each and the ratios. Target: ours within 10%
of raw. Run: ``uv run python benchmarks/adapter_overhead.py`` (``--help`` for the knobs).
"""

from __future__ import annotations

import argparse
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

TOOL_NAME = "echo"
INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"text": {"type": "string", "description": "Text to echo back."}},
    "required": ["text"],
    "additionalProperties": False,
}
DESCRIPTION = "Echo the given text back."


PID_FILE_VARIABLE = "ADAPTER_BENCH_PID_FILE"


# ---------------------------------------------------------------------------- the servers
def _announce_pid() -> None:
    """Tell the benchmark our pid (the stdio client spawns us), so it can read our CPU time."""
    target = os.environ.get(PID_FILE_VARIABLE)
    if target:
        Path(target).write_text(str(os.getpid()))


def serve_ours(transport: str, port: int) -> None:
    from mcp_common import (
        Arguments,
        McpTool,
        ServerSettings,
        Str,
        ToolAnnotations,
        ToolContext,
        ToolDefinition,
        ToolResult,
    )
    from mcp_common.adapter import ServerApp, serve
    from pydantic import Field
    from pydantic_settings import SettingsConfigDict

    class EchoArguments(Arguments):
        text: Str = Field(description="Text to echo back.")

    class Echo:
        definition = ToolDefinition(
            name=TOOL_NAME,
            description=DESCRIPTION,
            arguments=EchoArguments,
            annotations=ToolAnnotations.read_only_tool(),
        )

        def call(self, arguments: EchoArguments, context: ToolContext) -> ToolResult:
            return ToolResult.success(arguments.text)

    class BenchSettings(ServerSettings):
        model_config = SettingsConfigDict(env_prefix="BENCH_OURS_")

    def tools(_settings: BenchSettings) -> Sequence[McpTool]:
        _announce_pid()
        return [Echo()]

    app = ServerApp(
        name="bench-ours",
        distribution="mcp-tools-common",
        description="benchmark server",
        epilog="",
        settings=BenchSettings,
        build_tools=tools,
    )
    # --no-auth: the raw SDK server it is compared with checks no token either
    argv = ["--transport", transport, "--port", str(port), "--log-level", "WARNING"]
    serve(app, [*argv, "--no-auth"] if transport != "stdio" else argv)


def serve_raw(transport: str, port: int) -> None:
    import mcp_types as types
    from mcp.server import Server
    from mcp.server.context import ServerRequestContext

    tool = types.Tool(
        name=TOOL_NAME,
        description=DESCRIPTION,
        input_schema=INPUT_SCHEMA,
        annotations=types.ToolAnnotations(
            read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
        ),
    )

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool])

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        text = str((params.arguments or {}).get("text", ""))
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    # configured as well as our adapter configures it (the schema lookup spares the
    # 2026-07-28 HTTP path a tools/list per call), so the comparison isolates the adapter
    server: Server[Any] = Server(
        "bench-raw",
        version="1",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        get_tool_input_schema={TOOL_NAME: INPUT_SCHEMA}.get,
    )
    _announce_pid()
    if transport == "stdio":
        from mcp.server.stdio import stdio_server

        async def main() -> None:
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())

        anyio.run(main)
    else:
        import uvicorn

        app = server.streamable_http_app(stateless_http=True, host="127.0.0.1")
        uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


# ---------------------------------------------------------------------------- the client
@dataclass
class Sample:
    latencies: list[float]
    elapsed: float
    server_cpu: float
    """CPU seconds (user + system, every thread) the server spent on the measured calls."""

    @property
    def cpu_per_call(self) -> float:
        return self.server_cpu / len(self.latencies)

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.elapsed


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _server_command(kind: str, transport: str, port: int) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--serve", kind, "--transport",
            transport, "--port", str(port)]  # fmt: skip


def _wait_listening(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited early with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("server did not start listening")


_TICKS = os.sysconf("SC_CLK_TCK")


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS


async def _measure(client: Any, calls: int, warmup: int, pid_file: Path) -> Sample:
    for _ in range(warmup):
        await client.call_tool(TOOL_NAME, {"text": "warm"})
    pid = int(pid_file.read_text())
    cpu_before = _cpu_seconds(pid)
    latencies: list[float] = []
    begin = time.perf_counter()
    for i in range(calls):
        start = time.perf_counter()
        result = await client.call_tool(TOOL_NAME, {"text": f"call {i}"})
        latencies.append(time.perf_counter() - start)
        if result.is_error:
            raise RuntimeError(f"call failed: {result.content}")
    elapsed = time.perf_counter() - begin
    return Sample(latencies, elapsed, _cpu_seconds(pid) - cpu_before)


async def run_stdio(kind: str, calls: int, warmup: int, mode: str, pid_file: Path) -> Sample:
    from mcp.client.client import Client
    from mcp.client.stdio import StdioServerParameters

    command = _server_command(kind, "stdio", 0)
    env = {**os.environ, PID_FILE_VARIABLE: str(pid_file)}
    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    async with Client(params, mode=mode) as client:
        return await _measure(client, calls, warmup, pid_file)


async def run_http(kind: str, calls: int, warmup: int, mode: str, pid_file: Path) -> Sample:
    from mcp.client.client import Client

    port = _free_port()
    process = subprocess.Popen(
        _server_command(kind, "stateless-http", port),
        env={**os.environ, PID_FILE_VARIABLE: str(pid_file)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_listening(port, process)
        async with Client(f"http://127.0.0.1:{port}/mcp", mode=mode) as client:
            return await _measure(client, calls, warmup, pid_file)
    finally:
        process.terminate()
        process.wait(timeout=20)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f}"


def benchmark(transport: str, rounds: int, calls: int, warmup: int, mode: str) -> dict[str, Any]:
    runner = run_stdio if transport == "stdio" else run_http
    samples: dict[str, list[Sample]] = {"ours": [], "raw": []}
    with tempfile.TemporaryDirectory() as scratch:
        pid_file = Path(scratch) / "server.pid"
        for round_index in range(rounds):
            order = ("ours", "raw") if round_index % 2 == 0 else ("raw", "ours")
            for kind in order:
                samples[kind].append(anyio.run(runner, kind, calls, warmup, mode, pid_file))
    summary: dict[str, Any] = {}
    for kind, runs in samples.items():
        merged = sorted(x for s in runs for x in s.latencies)
        summary[kind] = {
            "rate": statistics.median(s.rate for s in runs),
            "p50": merged[len(merged) // 2],
            "p95": merged[min(len(merged) - 1, round(0.95 * (len(merged) - 1)))],
            "cpu": statistics.median(s.cpu_per_call for s in runs),
        }
    return summary


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--serve", choices=["ours", "raw"], help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--transport", choices=["stdio", "stateless-http", "both"], default="both")
    parser.add_argument("--rounds", type=int, default=6, help="alternating rounds per server")
    parser.add_argument("--calls", type=int, default=500, help="measured calls per round")
    parser.add_argument("--warmup", type=int, default=50, help="unmeasured calls per round")
    parser.add_argument(
        "--mode", default="auto", help="client protocol mode: auto (2026-07-28) or legacy"
    )
    options = parser.parse_args(argv)
    if options.serve:
        (serve_ours if options.serve == "ours" else serve_raw)(options.transport, options.port)
        return

    transports = ["stdio", "stateless-http"] if options.transport == "both" else [options.transport]
    print(
        f"adapter overhead: {options.rounds} alternating rounds x {options.calls} sequential calls "
        f"(+{options.warmup} warm-up), client mode {options.mode}"
    )
    print(
        f"machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    )
    print()
    print("| transport | server | calls/s | p50 ms | p95 ms | server CPU µs/call |")
    print("|---|---|---|---|---|---|")
    ratios: list[tuple[str, float, float, float]] = []
    for transport in transports:
        result = benchmark(transport, options.rounds, options.calls, options.warmup, options.mode)
        for kind in ("raw", "ours"):
            r = result[kind]
            label = "raw SDK low-level server" if kind == "raw" else "our adapter"
            print(
                f"| {transport} | {label} | {r['rate']:.0f} | {_ms(r['p50'])} | {_ms(r['p95'])} "
                f"| {r['cpu'] * 1e6:.0f} |"
            )
        ours, raw = result["ours"], result["raw"]
        ratios.append(
            (
                transport,
                ours["rate"] / raw["rate"],
                ours["p50"] / raw["p50"],
                ours["cpu"] / raw["cpu"],
            )
        )
    print()
    for transport, rate_ratio, p50_ratio, cpu_ratio in ratios:
        checks = [
            f"calls/s {rate_ratio:.3f} ({_verdict(rate_ratio >= 0.90)})",
            f"p50 latency {p50_ratio:.3f} ({_verdict(p50_ratio <= 1.10)})",
            f"server CPU per call {cpu_ratio:.3f} ({_verdict(cpu_ratio <= 1.10)})",
        ]
        print(f"{transport}, ours/raw: " + ", ".join(checks))


def _verdict(ok: bool) -> str:
    return "within 10%" if ok else "OUTSIDE 10%"


if __name__ == "__main__":
    main()
