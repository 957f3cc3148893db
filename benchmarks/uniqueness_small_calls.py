"""Small uniqueness calls against the protocol floor, and worker scaling of small calls.

Two measurements, real server subprocesses on loopback, side by side in one run:

- ``floor``: sequential warm calls over stdio of ``uniqueness_check`` and ``list_columns`` on a
  3-row CSV through ``uniqueness-server``, alternating round by round with the same number of
  ``echo`` calls to a bare MCP SDK low-level server (the floor: the protocol and the process
  hop, nothing else; ``adapter_overhead.py --serve raw``). Reports the p50 latency of each and
  the difference to the floor (target: within 5 ms), and the server CPU per call.
- ``workers``: stateless HTTP, ``uniqueness-server --workers 1`` and ``--workers 2`` under
  concurrent clients calling ``uniqueness_check`` on the same small file back to back,
  alternating round by round (target: two workers >= 1.6x one on two cores). The load
  generator is the minimal raw HTTP client of ``http_operations.py``; each round prints the
  CPU each serving process and the load generator used, so a round whose servers were not
  busy (the client, the network path or another job was the limit) shows as such.

Run: ``uv run python benchmarks/uniqueness_small_calls.py [floor|workers|all]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from adapter_overhead import PID_FILE_VARIABLE, _cpu_seconds
from http_operations import Connection, _children, _loadavg

SMALL_CSV = "id,name,country\n1,Ann,PL\n2,Bob,US\n3,Cid,PL\n"
CHECK = ("uniqueness_check", {"path": "small.csv", "columns": ["id"]})
LIST = ("list_columns", {"path": "small.csv"})
ECHO = ("echo", {"text": "hello"})
SERVER = shutil.which("uniqueness-server") or "uniqueness-server"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _pid_of(process_name: str, parent: int) -> int:
    """The pid of the server the stdio client spawned (a child of this process)."""
    for pid in _children(parent):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if process_name.encode() in command:
            return pid
    raise RuntimeError(f"no {process_name} child found")


async def _sequential(
    command: list[str], env: dict[str, str], calls: dict[str, tuple[str, dict[str, Any]]],
    count: int, warmup: int, marker: str,
) -> dict[str, tuple[list[float], float]]:  # fmt: skip
    """Per call kind: the latencies of ``count`` sequential calls and the server's CPU."""
    from mcp.client.client import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    out: dict[str, tuple[list[float], float]] = {}
    async with Client(params) as client:
        pid = _pid_of(marker, os.getpid())
        for kind, (tool, arguments) in calls.items():
            for _ in range(warmup):
                await client.call_tool(tool, arguments)
            before = _cpu_seconds(pid)
            latencies = []
            for _ in range(count):
                started = time.perf_counter()
                result = await client.call_tool(tool, arguments)
                latencies.append(time.perf_counter() - started)
                if result.is_error:
                    raise RuntimeError(f"{tool} failed: {result.content}")
            out[kind] = (latencies, (_cpu_seconds(pid) - before) / count)
    return out


def floor(data: Path, rounds: int, count: int, warmup: int) -> None:
    raw = [sys.executable, str(Path(__file__).with_name("adapter_overhead.py")), "--serve",
           "raw", "--transport", "stdio"]  # fmt: skip
    ours = [SERVER, "--allowed-dir", str(data), "--log-level", "WARNING"]
    env = {**os.environ, PID_FILE_VARIABLE: str(data / "pid")}
    samples: dict[str, list[float]] = {"floor": [], "check": [], "list": []}
    cpu: dict[str, list[float]] = {"floor": [], "check": [], "list": []}
    for index in range(rounds):
        order = ("ours", "raw") if index % 2 == 0 else ("raw", "ours")
        for side in order:
            if side == "raw":
                got = anyio.run(
                    _sequential, raw, env, {"floor": ECHO}, count, warmup, "adapter_overhead"
                )
            else:
                got = anyio.run(
                    _sequential, ours, env, {"check": CHECK, "list": LIST}, count, warmup,
                    "uniqueness-server",
                )  # fmt: skip
            for kind, (latencies, per_call) in got.items():
                samples[kind] += latencies
                cpu[kind].append(per_call)
        print(f"round {index + 1} done (load average {_loadavg()})", flush=True)
    p50 = {kind: statistics.median(values) for kind, values in samples.items()}
    print()
    print("| calls over stdio | p50 ms | p95 ms | server CPU ms/call | p50 - floor ms |")
    print("|---|---|---|---|---|")
    for kind, label in (
        ("floor", "echo, bare MCP SDK server (floor)"),
        ("check", "uniqueness_check, 3-row CSV"),
        ("list", "list_columns, 3-row CSV"),
    ):
        ordered = sorted(samples[kind])
        p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
        print(
            f"| {label} | {p50[kind] * 1000:.2f} | {p95 * 1000:.2f} | "
            f"{statistics.median(cpu[kind]) * 1000:.2f} | "
            f"{(p50[kind] - p50['floor']) * 1000:+.2f} |"
        )
    for kind in ("check", "list"):
        gap = (p50[kind] - p50["floor"]) * 1000
        verdict = "within" if gap <= 5.0 else "OVER"
        print(f"{kind}: {gap:.2f} ms above the floor ({verdict} the 5 ms target)")


def _start_http(data: Path, workers: int, log_dir: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = _free_port()
    log = log_dir / f"server-{port}.log"
    command = [SERVER, "--transport", "stateless-http", "--port", str(port), "--workers",
               str(workers), "--allowed-dir", str(data), "--log-level", "WARNING"]  # fmt: skip
    if "--no-auth" in subprocess.run([SERVER, "--help"], capture_output=True, text=True).stdout:
        command.append("--no-auth")
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=sink, stderr=sink)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited:\n{log.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return process, port
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("server did not start")


async def _drive(port: int, clients: int, seconds: float) -> tuple[int, int]:
    """``clients`` concurrent clients calling uniqueness_check back to back: (calls, errors)."""
    tool, arguments = CHECK
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": tool, "arguments": arguments}}  # fmt: skip
    counts = [0, 0]
    stop_at = time.monotonic() + seconds

    async def client() -> None:
        connection = Connection(port)
        await connection.open()
        try:
            while time.monotonic() < stop_at:
                status, _, content = await connection.post(message)
                ok = status == 200 and b'"isError":false' in content
                counts[0 if ok else 1] += 1
        finally:
            connection.close()

    await asyncio.gather(*(client() for _ in range(clients)))
    return counts[0], counts[1]


def workers(data: Path, rounds: int, seconds: float, clients: int) -> None:
    with tempfile.TemporaryDirectory(prefix="uniqueness-small-logs-") as logs:
        servers = {n: _start_http(data, n, Path(logs)) for n in (1, 2)}
        try:
            for _, port in servers.values():
                asyncio.run(_drive(port, clients, 3.0))  # warm every worker
            rates: dict[int, list[float]] = {1: [], 2: []}
            for index in range(rounds):
                order = (1, 2) if index % 2 == 0 else (2, 1)
                for n in order:
                    process = servers[n][0]
                    # the server and its children (with --workers 2: the two workers)
                    serving = [process.pid, *_children(process.pid)]
                    before = [_cpu_seconds(pid) for pid in serving]
                    client_before = time.process_time()
                    calls, errors = asyncio.run(_drive(servers[n][1], clients, seconds))
                    client_cpu = time.process_time() - client_before
                    used = [_cpu_seconds(pid) - b for pid, b in zip(serving, before, strict=True)]
                    rates[n].append(calls / seconds)
                    print(
                        f"round {index + 1}: {n} worker(s): {calls / seconds:7.1f} calls/s "
                        f"({errors} errors, load average {_loadavg()}); CPU over {seconds:g} s: "
                        f"server {' + '.join(f'{u:.2f}' for u in used)} s, "
                        f"load generator {client_cpu:.2f} s",
                        flush=True,
                    )
            paired = [b / a for a, b in zip(rates[1], rates[2], strict=True) if a]
            print(
                f"mean: 1 worker {statistics.mean(rates[1]):.1f} calls/s, 2 workers "
                f"{statistics.mean(rates[2]):.1f} calls/s; per-round ratios "
                + ", ".join(f"{r:.2f}" for r in paired)
                + f"; median {statistics.median(paired):.2f} (target >= 1.6)"
            )
        finally:
            for process, _ in servers.values():
                process.terminate()
                process.wait(timeout=30)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("what", choices=["floor", "workers", "all"], nargs="?", default="all")
    parser.add_argument("--rounds", type=int, default=4, help="alternating rounds")
    parser.add_argument("--calls", type=int, default=200, help="sequential calls per kind/round")
    parser.add_argument("--warmup", type=int, default=20, help="unmeasured calls per kind/round")
    parser.add_argument("--seconds", type=float, default=10.0, help="workers: seconds per round")
    parser.add_argument("--clients", type=int, default=8, help="workers: concurrent clients")
    options = parser.parse_args(argv)
    print(
        f"machine: {platform.platform()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}, load average {_loadavg()}"
    )
    with tempfile.TemporaryDirectory(prefix="uniqueness-small-") as scratch:
        data = Path(scratch)
        (data / "small.csv").write_text(SMALL_CSV, encoding="utf-8")
        # a data file is rarely checked within seconds of being written: past the server's
        # racy window (SourceCache.RACY_NANOSECONDS) its rows are kept between calls
        time.sleep(2.5)
        if options.what in ("floor", "all"):
            floor(data, options.rounds, options.calls, options.warmup)
        if options.what in ("workers", "all"):
            workers(data, options.rounds, options.seconds, options.clients)


if __name__ == "__main__":
    main()
