"""How soon a cancelled find_keys stops in the real server (issue 29: within 1 s at any level).

One ``uniqueness-server`` over stdio, two searches that run long uncancelled, each cancelled by
the client (the SDK sends ``notifications/cancelled``) at several moments:

- ``wide``: 100 columns of 6 values over 3,000 rows, ``maxColumns`` 5 (no key, millions of
  candidates; minutes of sampling): cancelled while the file is read and at growing delays
  into the search;
- ``tall``: 12 columns of 200 values over 1,000,000 rows, ``maxColumns`` 4 (no key; every
  level's candidates are checked against the rows; sampling rules out every pair): cancelled
  0.2 s after the progress message of each stage first arrives (sampling, then the levels of
  3 and 4 columns).

For each, the time from the cancel to the last moment the server process used CPU (its
``/proc`` CPU counters polled every 20 ms, until a whole second passes without any), and the
time until the next call (``list_columns`` on a 2-row file) is answered.

Run: ``uv run --locked python benchmarks/uniqueness_cancel.py [--repeat N] [--only wide|tall]``.
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
import numpy as np
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_common.testing import process_logging_to, until_idle

SERVER = shutil.which("uniqueness-server") or str(Path(sys.executable).parent / "uniqueness-server")
QUIET = 1.0
STAGE_DELAY = 0.2  # seconds into a stage (after its first progress message) to cancel
# when each search is cancelled: None, while the file is still being read; a number, that many
# seconds after the search starts (progress past reading); a text, STAGE_DELAY seconds after
# the first progress message holding it
Moment = float | str | None
SEARCHES: dict[str, tuple[int, list[Moment]]] = {
    "wide": (5, [None, 0.0, 1.0, 3.0, 6.0, 10.0]),
    "tall": (
        4,
        [
            "sampling row pairs",
            "candidate keys of 3 columns",
            "candidate keys of 4 columns",
        ],
    ),
}


def _write_files(root: Path, only: str | None) -> None:
    if only in (None, "wide"):
        rng = random.Random(2)
        lines = [",".join(f"c{i}" for i in range(100))]
        lines += [",".join(str(rng.randrange(6)) for _ in range(100)) for _ in range(3_000)]
        (root / "wide.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    if only in (None, "tall"):
        codes = np.random.default_rng(3).integers(0, 200, size=(1_000_000, 12))
        with (root / "tall.csv").open("w", encoding="utf-8") as out:
            out.write(",".join(f"c{i}" for i in range(12)) + "\n")
            np.savetxt(out, codes, fmt="%d", delimiter=",")
    (root / "small.csv").write_text("id,k\n1,a\n2,a\n", encoding="utf-8")


async def _one(
    client: Client, pid: int, name: str, max_columns: int, moment: Moment
) -> tuple[float, float, str]:
    searching = anyio.Event()
    reached = anyio.Event()
    stage = ["reading"]

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        if progress >= 40.0:
            searching.set()
        stage[0] = message or stage[0]
        if isinstance(moment, str) and moment in stage[0]:
            reached.set()

    async def search() -> None:
        await client.call_tool(
            "find_keys",
            {"path": f"{name}.csv", "maxColumns": max_columns},
            progress_callback=on_progress,
        )
        raise RuntimeError("the search ended before it was cancelled")

    async with anyio.create_task_group() as group:
        group.start_soon(search)
        if moment is None:
            await anyio.sleep(0.3)
        elif isinstance(moment, str):
            await reached.wait()
            await anyio.sleep(STAGE_DELAY)
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


async def _main(repeat: int, only: str | None) -> None:
    with tempfile.TemporaryDirectory(prefix="uniqueness-cancel-") as temp:
        root = Path(temp) / "data"
        root.mkdir()
        _write_files(root, only)
        log_file = Path(temp) / "server.log"
        params = StdioServerParameters(
            command=SERVER, args=["--allowed-dir", str(root), "--log-file", str(log_file)]
        )
        searches = {n: v for n, v in SEARCHES.items() if only in (None, n)}
        results: dict[tuple[str, Moment], list[tuple[float, float, str]]] = {
            (n, m): [] for n, (_, moments) in searches.items() for m in moments
        }
        async with Client(params) as client:
            pid = process_logging_to(log_file)
            await client.call_tool("list_columns", {"path": "small.csv"})  # warm
            for _ in range(repeat):
                for (name, moment), runs in results.items():
                    runs.append(await _one(client, pid, name, searches[name][0], moment))
    print(f"load average before/after: {os.getloadavg()}")
    print("| search | cancelled | where it was | cancel -> server idle (s) | next call (s) |")
    print("|---|---|---|---|---|")
    for (name, moment), runs in results.items():
        if moment is None:
            when = "while reading"
        elif isinstance(moment, str):
            when = f"{STAGE_DELAY:g} s into {moment!r}"
        else:
            when = f"{moment:g} s into the search"
        stops = ", ".join(f"{r[0]:.2f}" for r in runs)
        nexts = statistics.median(r[1] for r in runs)
        print(f"| {name} | {when} | {runs[-1][2]} | {stops} | {nexts:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2, help="runs of each moment")
    parser.add_argument("--only", choices=sorted(SEARCHES), help="one of the searches")
    options = parser.parse_args()
    print(f"load average: {os.getloadavg()}")
    anyio.run(_main, options.repeat, options.only)


if __name__ == "__main__":
    main()
