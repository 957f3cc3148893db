"""The check path through the real ``uniqueness-server`` over stdio, as a client drives it.

One server process answers many calls: each must answer afresh (nothing of an earlier call's
temp tables, a failed call or a cancelled call may reach a later answer), leave nothing behind
in the temp directory, and turn every bad request into a tool error naming the argument.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import duckdb
import mcp_types as types
import pytest
from mcp.client.client import Client
from test_uniqueness_check_attacks import (
    COLUMN_SETS,
    Row,
    _as_read_from_csv,
    _csv,
    _expected,
    _rows,
)
from uniqueness_server.engine import Nulls
from uniqueness_testkit import stdio_server, text_of

pytestmark = [pytest.mark.e2e]


@asynccontextmanager
async def server(root: Path, temp: Path, databases: Sequence[str] = ()) -> AsyncIterator[Client]:
    """The installed server confined to ``root``, its temp directory ``temp``, logging to
    ``temp/../server.log``."""
    async with stdio_server(root, temp.parent / "server.log", databases, temp) as client:
        yield client


async def nothing_left_in(temp: Path) -> None:
    """The server's temp directory empties (a cancelled call's worker may still be closing)."""
    with anyio.fail_after(30):
        while list(temp.iterdir()):
            await anyio.sleep(0.1)


def answer(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    assert result.structured_content is not None
    return result.structured_content


def _facts(content: dict[str, Any]) -> tuple[Any, ...]:
    return (
        content["unique"],
        content["rows"],
        content["distinctKeys"],
        content["rowsWithMissing"],
        content["duplicateGroups"],
        content["duplicateRows"],
        [(tuple(d["values"]), d["count"], tuple(d["rows"])) for d in content["duplicates"]],
    )


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    root, temp = tmp_path / "data", tmp_path / "temp"
    root.mkdir()
    temp.mkdir()
    return root, temp


def _hostile_file(root: Path) -> list[Row]:
    """Write ``hostile.csv`` (300 rows of hostile values) into ``root``; its rows as read."""
    written = _rows(300)
    (root / "hostile.csv").write_text(_csv(written), encoding="utf-8")
    return _as_read_from_csv(written)


@pytest.mark.anyio
async def test_one_server_answers_every_check_afresh(dirs: tuple[Path, Path]) -> None:
    # column sets of different widths one after the other, on one file and one process, with
    # failing calls (a wrong column, a file with a ragged row near its end) in between
    root, temp = dirs
    rows = _hostile_file(root)
    body = "".join(f"{i},k{i % 7}\n" for i in range(5_000))
    (root / "ragged.csv").write_text(f"id,k\n{body}5000,k1,extra\n", encoding="utf-8")
    async with server(root, temp) as client:
        for i, (columns, nulls) in enumerate(
            (c, n) for c in COLUMN_SETS for n in (Nulls.EQUAL, Nulls.DISTINCT)
        ):
            result = await client.call_tool(
                "uniqueness_check",
                {
                    "path": "hostile.csv",
                    "columns": list(columns),
                    "nulls": nulls.value,
                    "limit": 100,
                    "betterOptions": False,
                },
            )
            distinct, missing, dup_groups, dup_rows, groups = _expected(rows, columns, nulls)
            expected = (dup_groups == 0, len(rows), distinct, missing, dup_groups, dup_rows)
            assert _facts(answer(result)) == (*expected, groups[:100]), (columns, nulls)
            if i % 4 == 1:
                wrong = await client.call_tool(
                    "uniqueness_check", {"path": "hostile.csv", "columns": [*columns, "nope"]}
                )
                assert wrong.is_error
                assert "column 'nope' not found" in text_of(wrong)
            if i % 4 == 3:
                ragged = await client.call_tool(
                    "uniqueness_check", {"path": "ragged.csv", "columns": ["k"]}
                )
                assert ragged.is_error
                assert "ragged row at line 5002" in text_of(ragged), text_of(ragged)
    await nothing_left_in(temp)


def _big_csv(path: Path, rows: int, keys: int) -> None:
    """``id`` unique, ``k`` = ``key-(id % keys)``, ``pad`` a long constant."""
    with duckdb.connect() as con:
        con.execute("SET threads = 1")
        con.execute(
            f"COPY (SELECT i AS id, 'key-' || (i % {keys}) AS k, repeat('p', 40) AS pad "
            f"FROM range({rows}) t(i) ORDER BY i) TO '{path}' (HEADER true)"
        )


@pytest.mark.anyio
async def test_a_cancelled_check_leaves_nothing_for_the_next_call(dirs: tuple[Path, Path]) -> None:
    root, temp = dirs
    rows, keys = 3_000_000, 1_000_000
    _big_csv(root / "big.csv", rows, keys)
    (root / "small.csv").write_text("id,k\n1,a\n2,a\n3,b\n", encoding="utf-8")
    started = anyio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        started.set()

    async with server(root, temp) as client:
        outcome: list[types.CallToolResult] = []

        async def check() -> None:
            outcome.append(
                await client.call_tool(
                    "uniqueness_check",
                    {"path": "big.csv", "columns": ["k", "pad"]},
                    progress_callback=on_progress,
                )
            )

        async with anyio.create_task_group() as group:
            group.start_soon(check)
            with anyio.fail_after(60):
                await started.wait()  # the scan is running
            group.cancel_scope.cancel()
        assert not outcome, "the call finished before it could be cancelled"
        # the next calls, on another file and on the same one with other columns, are whole
        small = answer(
            await client.call_tool("uniqueness_check", {"path": "small.csv", "columns": ["k"]})
        )
        assert _facts(small) == (False, 3, 2, 0, 1, 2, [(("a",), 2, (1, 2))])
        big = answer(
            await client.call_tool(
                "uniqueness_check",
                {"path": "big.csv", "columns": ["k"], "limit": 2, "offset": 1},
            )
        )
        per_key = rows // keys
        first_rows = [tuple(k + 1 + j * keys for j in range(per_key)) for k in (1, 2)]
        assert _facts(big) == (
            False,
            rows,
            keys,
            0,
            keys,
            rows,
            [((f"key-{k}",), per_key, first_rows[k - 1]) for k in (1, 2)],
        )
    await nothing_left_in(temp)
    log = (temp.parent / "server.log").read_text(encoding="utf-8")
    assert "uniqueness_check: call cancelled" in log


BAD_REQUESTS: list[tuple[dict[str, Any], Sequence[str]]] = [
    ({"columns": ["nope"]}, ["column 'nope' not found", "the columns are [id, k, K2]"]),
    ({"columns": []}, ["columns needs at least one value"]),
    ({"columns": ["k", "K"]}, ["column 'K' is requested twice"]),
    ({"columns": ["id", "id"]}, ["column 'id' is requested twice"]),
    ({"columns": ["id"], "nulls": "maybe"}, ["nulls must be one of equal, distinct"]),
    ({"columns": ["id"], "offset": "x"}, ["offset must be an integer"]),
    ({"columns": ["id"], "limit": 1.5}, ["limit must be an integer"]),
    ({"columns": ["nope"], "approximate": True}, ["column 'nope' not found"]),
    ({"columns": ["id"], "approximate": True, "verify": True}, ["verify", "approximate"]),
    ({"columns": ["id"], "approximate": True, "betterOptions": True}, ["betterOptions"]),
    ({"columns": ["id"], "table": "t"}, ["table and query go with database"]),
    ({"database": "shop", "table": "t", "columns": ["nope"]}, ["column 'nope' not found"]),
    (
        {"database": "shop", "table": "t", "columns": ["id"], "delimiter": ";"},
        ["delimiter applies to files"],
    ),
]


@pytest.mark.anyio
async def test_bad_requests_are_tool_errors_naming_the_argument(dirs: tuple[Path, Path]) -> None:
    root, temp = dirs
    (root / "d.csv").write_text("id,k,K2\n1,a,\n2,a,\n3,b,x\n", encoding="utf-8")
    with sqlite3.connect(root / "shop.db") as connection:
        connection.execute("CREATE TABLE t (id INTEGER, k TEXT)")
        connection.executemany("INSERT INTO t VALUES (?, ?)", [(i, f"k{i % 3}") for i in range(9)])
    connection.close()
    async with server(root, temp, [f"shop=sqlite:///{root / 'shop.db'}"]) as client:
        for arguments, said in BAD_REQUESTS:
            source = {} if "database" in arguments else {"path": "d.csv"}
            result = await client.call_tool("uniqueness_check", {**source, **arguments})
            assert result.is_error, (arguments, text_of(result))
            assert result.structured_content is None
            text = text_of(result)
            assert text.startswith("uniqueness_check failed"), text
            for part in said:
                assert part in text, (arguments, text)
        # pages out of range are clamped, never refused, and the totals stay whole
        past = answer(
            await client.call_tool(
                "uniqueness_check", {"path": "d.csv", "columns": ["k"], "offset": 7}
            )
        )
        assert _facts(past) == (False, 3, 2, 0, 1, 2, [])
        assert past["page"] == {
            "total": 1,
            "offset": 7,
            "limit": 5,
            "returned": 0,
            "nextOffset": None,
        }
        clamped = answer(
            await client.call_tool(
                "uniqueness_check",
                {"path": "d.csv", "columns": ["k"], "limit": 0, "offset": -4},
            )
        )
        assert clamped["page"] == {
            "total": 1,
            "offset": 0,
            "limit": 1,
            "returned": 1,
            "nextOffset": None,
        }
        # approximate mode on SQLite: a key whose every value the sketch kept is checked
        # exactly (this crashed on the sketch's API before)
        approximate = answer(
            await client.call_tool(
                "uniqueness_check",
                {"database": "shop", "table": "t", "columns": ["id"], "approximate": True},
            )
        )
        assert (approximate["verdict"], approximate["exact"], approximate["rows"]) == (
            "unique",
            True,
            9,
        )
        assert "the sketch kept every distinct key (9)" in approximate["method"]
    await nothing_left_in(temp)


@pytest.mark.anyio
async def test_concurrent_checks_in_one_server_do_not_mix(dirs: tuple[Path, Path]) -> None:
    # calls running at once on one file each get their own temp tables: answers for
    # different column sets, in flight together, are each the brute-force answer
    root, temp = dirs
    rows = _hostile_file(root)
    requests = [(c, n) for c in COLUMN_SETS[:6] for n in (Nulls.EQUAL, Nulls.DISTINCT)]
    got: dict[int, tuple[Any, ...]] = {}
    async with server(root, temp) as client:

        async def check(i: int) -> None:
            columns, nulls = requests[i]
            arguments = {
                "path": "hostile.csv",
                "columns": list(columns),
                "nulls": nulls.value,
                "limit": 100,
                "betterOptions": False,
            }
            got[i] = _facts(answer(await client.call_tool("uniqueness_check", arguments)))

        async with anyio.create_task_group() as group:
            for i in range(len(requests)):
                group.start_soon(check, i)
    for i, (columns, nulls) in enumerate(requests):
        distinct, missing, dup_groups, dup_rows, groups = _expected(rows, columns, nulls)
        expected = (dup_groups == 0, len(rows), distinct, missing, dup_groups, dup_rows)
        assert got[i] == (*expected, groups[:100]), (columns, nulls)
    await nothing_left_in(temp)
