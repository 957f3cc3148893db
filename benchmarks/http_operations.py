"""HTTP operations: worker scaling, a soak, and abandoned sessions, on the e2e example server.

Three measurements, each against real server subprocesses on loopback only, with bounded loops:

- ``workers``: stateless-HTTP calls/s of ``echo`` with ``--workers 1`` and ``--workers 2`` under
  32 concurrent clients, the two servers alternating round by round in one run (target: two
  workers >= 1.6x one on two cores);
- ``soak``: 50 clients calling for 60 s over stateless HTTP and over streamable HTTP (one
  session each), server RSS at start (after a warm-up), at the end of the load and after it;
- ``abandoned``: 10,000 streamable-HTTP sessions opened and never closed (a client that never
  sends DELETE), RSS as they pile up against ``--max-sessions``, then a new client is served.

The load generator is a minimal raw HTTP/1.1 client on asyncio (one keep-alive connection per
client, a pre-built request) so it costs the shared CPUs as little as possible.
Run: ``uv run python benchmarks/http_operations.py [workers|soak|abandoned|all]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ACCEPT = "application/json, text/event-stream"


TOKEN = "benchmark-token"  # noqa: S105 - a throwaway token for a local benchmark server


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    def rss_kib(self) -> int:
        """Resident memory of the server and its worker processes, in KiB."""
        pids = [self.process.pid, *_children(self.process.pid)]
        total = 0
        for pid in pids:
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
            except OSError:
                continue
        return total

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def start(transport: str, *args: str, log_dir: Path) -> Server:
    port = _free_port()
    log = log_dir / f"server-{port}.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXAMPLE_SERVER_")}
    env["PYTHONPATH"] = str(REPO / "tests")
    env["EXAMPLE_SERVER_AUTH_TOKEN"] = TOKEN  # served as users serve it: with a token
    command = [sys.executable, "-m", "example_server", "--transport", transport]
    command += ["--port", str(port), "--log-level", "WARNING", *args]
    with log.open("wb") as sink:
        process = subprocess.Popen(
            command, env=env, cwd=REPO, stdin=subprocess.DEVNULL, stdout=sink, stderr=sink
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited:\n{log.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return Server(process, port, log)
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("server did not start")


# ----------------------------------------------------------------------- a minimal client
class Connection:
    """One keep-alive HTTP/1.1 connection speaking just enough to post MCP messages."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.session: str | None = None
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self._reader, self._writer = await asyncio.open_connection("127.0.0.1", self.port)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()

    async def post(self, message: dict[str, object]) -> tuple[int, dict[str, str], bytes]:
        assert self._reader is not None
        assert self._writer is not None
        body = json.dumps(message).encode()
        head = (
            f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nAccept: {ACCEPT}\r\n"
            f"Content-Type: application/json\r\nMCP-Protocol-Version: 2025-06-18\r\n"
            f"Authorization: Bearer {TOKEN}\r\n"
            f"Content-Length: {len(body)}\r\n"
        )
        if self.session:
            head += f"Mcp-Session-Id: {self.session}\r\n"
        self._writer.write(head.encode() + b"\r\n" + body)
        status_line = await self._reader.readline()
        status = int(status_line.split()[1])
        headers: dict[str, str] = {}
        while True:
            line = await self._reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            content = await self._reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding") == "chunked":
            parts = []
            while True:
                size = int((await self._reader.readline()).strip(), 16)
                if size == 0:
                    await self._reader.readline()
                    break
                parts.append(await self._reader.readexactly(size))
                await self._reader.readline()
            content = b"".join(parts)
        else:
            content = b""
        return status, headers, content

    async def initialize(self) -> int:
        status, headers, _ = await self.post(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "bench", "version": "1"},
                },
            }
        )
        self.session = headers.get("mcp-session-id")
        if self.session:
            await self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return status


ECHO = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "echo", "arguments": {"text": "hello"}},
}


@dataclass
class Load:
    calls: int = 0
    errors: int = 0
    latencies: list[float] = field(default_factory=list)


async def drive(port: int, clients: int, seconds: float, sessions: bool) -> Load:
    """``clients`` concurrent clients calling ``echo`` back to back for ``seconds``."""
    load = Load()
    stop_at = time.monotonic() + seconds

    async def client() -> None:
        connection = Connection(port)
        await connection.open()
        try:
            if sessions:
                await connection.initialize()
            while time.monotonic() < stop_at:
                started = time.perf_counter()
                status, _, content = await connection.post(ECHO)
                if status == 200 and b'"isError":false' in content:
                    load.calls += 1
                    load.latencies.append(time.perf_counter() - started)
                else:
                    load.errors += 1
        finally:
            connection.close()

    await asyncio.gather(*(client() for _ in range(clients)))
    return load


def _loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


# ---------------------------------------------------------------------------- measurements
def workers(log_dir: Path, rounds: int, seconds: float, clients: int) -> None:
    servers = {n: start("stateless-http", "--workers", str(n), log_dir=log_dir) for n in (1, 2)}
    try:
        for server in servers.values():
            asyncio.run(drive(server.port, clients, 2.0, sessions=False))  # warm-up
        rates: dict[int, list[float]] = {1: [], 2: []}
        for index in range(rounds):
            for n, server in servers.items():
                load = asyncio.run(drive(server.port, clients, seconds, sessions=False))
                rate = load.calls / seconds
                rates[n].append(rate)
                print(
                    f"round {index + 1}: {n} worker(s): {rate:7.1f} calls/s "
                    f"({load.errors} errors, load average {_loadavg()})"
                )
        one, two = (sum(rates[n]) / len(rates[n]) for n in (1, 2))
        print(
            f"mean: 1 worker {one:.1f} calls/s, 2 workers {two:.1f} calls/s, ratio {two / one:.2f}"
        )
        # each round's two measurements ran back to back, so their ratio is the least
        # disturbed by the load of other jobs drifting over the run
        paired = [b / a for a, b in zip(rates[1], rates[2], strict=True) if a]
        print(
            "per-round ratios: "
            + ", ".join(f"{r:.2f}" for r in paired)
            + f"; median {statistics.median(paired):.2f} (target >= 1.6)"
        )
    finally:
        for server in servers.values():
            server.stop()


def soak(log_dir: Path, seconds: float, clients: int) -> None:
    for transport in ("stateless-http", "streamable-http"):
        server = start(transport, log_dir=log_dir)
        try:
            asyncio.run(drive(server.port, clients, 3.0, sessions=transport != "stateless-http"))
            before = server.rss_kib()
            load = asyncio.run(
                drive(server.port, clients, seconds, sessions=transport != "stateless-http")
            )
            after = server.rss_kib()
            time.sleep(5)
            rested = server.rss_kib()
            ordered = sorted(load.latencies)
            p50 = ordered[len(ordered) // 2] * 1000 if ordered else 0.0
            p99 = ordered[int(len(ordered) * 0.99)] * 1000 if ordered else 0.0
            print(
                f"{transport}: {clients} clients x {seconds:g} s: {load.calls} calls "
                f"({load.calls / seconds:.1f}/s, p50 {p50:.1f} ms, p99 {p99:.1f} ms), "
                f"{load.errors} errors; RSS {before / 1024:.1f} MiB after warm-up, "
                f"{after / 1024:.1f} MiB at the end, {rested / 1024:.1f} MiB 5 s later "
                f"(load average {_loadavg()})"
            )
        finally:
            server.stop()


def abandoned(log_dir: Path, sessions: int, max_sessions: int, concurrency: int) -> None:
    server = start("streamable-http", "--max-sessions", str(max_sessions), log_dir=log_dir)
    try:
        print(f"RSS at start: {server.rss_kib() / 1024:.1f} MiB")
        opened = 0
        refused = 0

        async def open_many(count: int) -> None:
            nonlocal opened, refused
            queue = iter(range(count))

            async def worker() -> None:
                nonlocal opened, refused
                connection = Connection(server.port)
                await connection.open()
                try:
                    for _ in queue:
                        connection.session = None
                        if await connection.initialize() == 200:
                            opened += 1
                        else:
                            refused += 1
                finally:
                    connection.close()

            await asyncio.gather(*(worker() for _ in range(concurrency)))

        started = time.monotonic()
        step = sessions // 5
        for _ in range(5):
            asyncio.run(open_many(step))
            print(
                f"{opened:6d} sessions opened and abandoned ({refused} refused): "
                f"RSS {server.rss_kib() / 1024:.1f} MiB"
            )
        elapsed = time.monotonic() - started

        async def newcomer() -> bool:
            connection = Connection(server.port)
            await connection.open()
            try:
                if await connection.initialize() != 200:
                    return False
                status, _, content = await connection.post(ECHO)
                return status == 200 and b'"isError":false' in content
            finally:
                connection.close()

        served = asyncio.run(newcomer())
        print(f"opened in {elapsed:.1f} s; a new client afterwards served: {served}")
        started = time.monotonic()
        server.stop()
        print(f"shutdown with {max_sessions} sessions open took {time.monotonic() - started:.2f} s")
    finally:
        if server.process.poll() is None:
            server.stop()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "what", choices=["workers", "soak", "abandoned", "all"], nargs="?", default="all"
    )
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (workers)")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per round (workers)")
    parser.add_argument("--soak-seconds", type=float, default=60.0)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--max-sessions", type=int, default=1000)
    options = parser.parse_args(argv)
    print(
        f"machine: {platform.platform()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}, load average {_loadavg()} (shared with other jobs)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        log_dir = Path(tmp)
        if options.what in ("workers", "all"):
            workers(log_dir, options.rounds, options.seconds, clients=32)
        if options.what in ("soak", "all"):
            soak(log_dir, options.soak_seconds, clients=50)
        if options.what in ("abandoned", "all"):
            abandoned(log_dir, options.sessions, options.max_sessions, concurrency=32)


if __name__ == "__main__":
    main()
