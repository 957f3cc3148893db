"""Cancelling a long find_keys through the real server over stdio stops the search.

The client cancels the call (the SDK sends ``notifications/cancelled``) while the search runs;
the server process must then go idle (the search's thread stopped, not merely abandoned) and
answer the next call. How soon it stops is measured by ``benchmarks/uniqueness_cancel.py``.
"""

from __future__ import annotations

import random
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp_common.testing import cpu_seconds, process_logging_to, until_idle
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
        pid = process_logging_to(log_file)
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
            await until_idle(pid, quiet=IDLE_WINDOW, allowance=IDLE_CPU)
        listed = await client.call_tool("list_columns", {"path": "small.csv"})
        assert not listed.is_error, text_of(listed)
        assert listed.structured_content is not None
        assert [c["name"] for c in listed.structured_content["columns"]] == ["id", "k"]
    assert "find_keys: call cancelled" in log_file.read_text(encoding="utf-8")
