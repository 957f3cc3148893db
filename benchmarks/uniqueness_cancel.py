"""How soon a cancelled find_keys stops in the real server (issue 29: within 1 s at any level).

One ``uniqueness-server`` over stdio; a search that runs for minutes uncancelled (100 columns
of 6 values over 3,000 rows, ``maxColumns`` 5: no key, millions of candidates) is cancelled by
the client (the SDK sends ``notifications/cancelled``) at several moments: while the file is
read and at growing delays into the search (sampling, then the levels of candidates). For each,
the time from the cancel to the last moment the server process used CPU (its ``/proc`` CPU
counters polled every 20 ms, until a whole second passes without any), and the time until the
next call (``list_columns`` on a 2-row file) is answered.

Run: ``uv run --locked python benchmarks/uniqueness_cancel.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_common.testing import process_logging_to, until_idle

SERVER = shutil.which("uniqueness-server") or str(Path(sys.executable).parent / "uniqueness-server")
QUIET = 1.0
# seconds after the search starts (progress past reading) at which the call is cancelled;
# None: while the file is still being read
MOMENTS: list[float | None] = [None, 0.0, 1.0, 3.0, 6.0, 10.0]


def _write_files(root: Path) -> None:
    rng = random.Random(2)
    lines = [",".join(f"c{i}" for i in range(100))]
    lines += [",".join(str(rng.randrange(6)) for _ in range(100)) for _ in range(3_000)]
    (root / "wide.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (root / "small.csv").write_text("id,k\n1,a\n2,a\n", encoding="utf-8")


async def _one(client: Client, pid: int, moment: float | None) -> tuple[float, float, str]:
    searching = anyio.Event()
    stage = ["reading"]

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        if progress >= 40.0:
            searching.set()
        stage[0] = message or stage[0]

    async def search() -> None:
        await client.call_tool(
            "find_keys", {"path": "wide.csv", "maxColumns": 5}, progress_callback=on_progress
        )
        raise RuntimeError("the search ended before it was cancelled")

    async with anyio.create_task_group() as group:
        group.start_soon(search)
        if moment is None:
            await anyio.sleep(0.3)
        else:
            await searching.wait()
            await anyio.sleep(moment)
        cancelled = time.monotonic()
        where = stage[0]
        group.cancel_scope.cancel()
    stopped = max(0.0, await until_idle(pid, quiet=QUIET) - cancelled)
    started = time.monotonic()
    answer = await client.call_tool("list_columns", {"path": "small.csv"})
    assert not answer.is_error
    return stopped, time.monotonic() - started, where


async def _main(repeat: int) -> None:
    with tempfile.TemporaryDirectory(prefix="uniqueness-cancel-") as temp:
        root = Path(temp) / "data"
        root.mkdir()
        _write_files(root)
        log_file = Path(temp) / "server.log"
        params = StdioServerParameters(
            command=SERVER, args=["--allowed-dir", str(root), "--log-file", str(log_file)]
        )
        results: dict[float | None, list[tuple[float, float, str]]] = {m: [] for m in MOMENTS}
        async with Client(params) as client:
            pid = process_logging_to(log_file)
            await client.call_tool("list_columns", {"path": "small.csv"})  # warm
            for _ in range(repeat):
                for moment in MOMENTS:
                    results[moment].append(await _one(client, pid, moment))
    print(f"load average before/after: {os.getloadavg()}")
    print("| cancelled | where the search was | cancel -> server idle (s) | next call (s) |")
    print("|---|---|---|---|")
    for moment, runs in results.items():
        when = "while reading" if moment is None else f"{moment:g} s into the search"
        stops = ", ".join(f"{r[0]:.2f}" for r in runs)
        nexts = statistics.median(r[1] for r in runs)
        print(f"| {when} | {runs[-1][2]} | {stops} | {nexts:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2, help="runs of each moment")
    options = parser.parse_args()
    print(f"load average: {os.getloadavg()}")
    anyio.run(_main, options.repeat)


if __name__ == "__main__":
    main()
