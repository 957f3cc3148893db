"""Cancelling a long find_keys through the real server over stdio stops the search.

The client cancels the call (the SDK sends ``notifications/cancelled``) while the search runs;
the server process must then go idle (the search's thread stopped, not merely abandoned) and
answer the next call. How soon it stops is measured by ``benchmarks/uniqueness_cancel.py``.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from uniqueness_testkit import stdio_server, text_of

pytestmark = [pytest.mark.e2e]

IDLE_WINDOW = 1.0  # seconds of server CPU watched to call it idle
IDLE_CPU = 0.1  # at most this much CPU in the window: nothing is computing


def long_search_csv(path: Path) -> None:
    """100 columns of 6 values over 3,000 rows: no key of up to 5 columns, and millions of
    candidates to rule out (uncancelled, find_keys with maxColumns 5 runs for minutes)."""
    rng = random.Random(2)
    lines = [",".join(f"c{i}" for i in range(100))]
    lines += [",".join(str(rng.randrange(6)) for _ in range(100)) for _ in range(3_000)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def server_pid(log_file: Path) -> int:
    """The server process started with ``--log-file log_file``."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                arguments = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if str(log_file).encode() in arguments:
                return int(entry.name)
    raise AssertionError(f"no server process logs to {log_file}")


def cpu_seconds(pid: int) -> float:
    """User and system CPU the process has used, every thread of it."""
    fields = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def until_idle(pid: int) -> None:
    """Return once the process uses (almost) no CPU over a whole window."""
    while True:
        before = cpu_seconds(pid)
        await anyio.sleep(IDLE_WINDOW)
        if cpu_seconds(pid) - before <= IDLE_CPU:
            return


@pytest.mark.anyio
async def test_a_cancelled_find_keys_stops_and_the_server_answers_the_next_call(
    tmp_path: Path,
) -> None:
    root = tmp_path / "data"
    root.mkdir()
    long_search_csv(root / "wide.csv")
    (root / "small.csv").write_text("id,k\n1,a\n2,a\n", encoding="utf-8")
    log_file = tmp_path / "server.log"
    searching = anyio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        if progress >= 40.0:  # past reading the file: the key search itself runs
            searching.set()

    async with stdio_server(root, log_file) as client:
        pid = server_pid(log_file)
        outcome: list[types.CallToolResult] = []

        async def search() -> None:
            outcome.append(
                await client.call_tool(
                    "find_keys",
                    {"path": "wide.csv", "maxColumns": 5},
                    progress_callback=on_progress,
                )
            )

        async with anyio.create_task_group() as group:
            group.start_soon(search)
            with anyio.fail_after(120):
                await searching.wait()
            await anyio.sleep(2.0)  # deep in the search
            assert cpu_seconds(pid) > 0
            group.cancel_scope.cancel()
        assert not outcome, "the search finished before it could be cancelled"
        # a search left running would keep a core busy for minutes
        with anyio.fail_after(60):
            await until_idle(pid)
        listed = await client.call_tool("list_columns", {"path": "small.csv"})
        assert not listed.is_error, text_of(listed)
        assert listed.structured_content is not None
        assert [c["name"] for c in listed.structured_content["columns"]] == ["id", "k"]
    assert "find_keys: call cancelled" in log_file.read_text(encoding="utf-8")
