"""The server over the MCP protocol, in process: contract, golden, README, fuzz, calls."""

from __future__ import annotations

import re
import sqlite3
import time
from pathlib import Path

import anyio
import pytest
from mcp_common.testing import (
    assert_golden_tools_list,
    fetch_tools_list,
    fuzz_tools,
    in_process_client,
    result_text,
    run_contract_checks,
)
from uniqueness_server.engine.backend import running_queries
from uniqueness_server.server import APP
from uniqueness_testkit import household_csv, tools_for, write

REPO_ROOT = Path(__file__).resolve().parents[3]
README = Path(__file__).resolve().parents[1] / "README.md"

SOURCE = {"path": "household.csv", "headerRow": 1, "format": "csv", "delimiter": ","}
SAMPLES = {
    "uniqueness_check": [
        {
            **SOURCE,
            "columns": ["year1"],
            "nulls": "equal",
            "betterOptions": True,
            "limit": 2,
            "offset": 1,
        },
        {**SOURCE, "columns": ["year1", "hlpi_name"]},
        {"database": "shop", "table": "orders", "columns": ["id"]},
        {"database": "shop", "query": "SELECT id, id AS copy FROM orders", "columns": ["id"]},
        {**SOURCE, "columns": ["year1", "hlpi_name"], "approximate": True},
        {"database": "shop", "table": "orders", "columns": ["customer"], "approximate": True},
    ],
    "find_keys": [
        {
            **SOURCE,
            "columns": ["year1", "hlpi_name", "income"],
            "maxColumns": 2,
            "nulls": "distinct",
            "limit": 5,
            "offset": 0,
        },
        {"database": "shop", "table": "orders"},
        {"database": "shop", "query": "SELECT * FROM orders"},
    ],
    "list_columns": [
        {**SOURCE, "limit": 3, "offset": 1},
        {"database": "shop", "table": "orders"},
        {"database": "shop", "query": "SELECT id FROM orders"},
    ],
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    write(data / "household.csv", household_csv())
    with sqlite3.connect(data / "shop.db") as connection:
        connection.execute("CREATE TABLE orders (id INTEGER, customer TEXT)")
        connection.executemany("INSERT INTO orders VALUES (?, ?)", [(1, "a"), (2, "a")])
    connection.close()
    return data


def test_the_registry_meets_the_tool_contract(root: Path) -> None:
    tools = tools_for(root, [f"shop=sqlite:///{root / 'shop.db'}"])
    run_contract_checks(list(tools.values()), SAMPLES, min_tools=3)


def test_golden_tools_list(root: Path) -> None:
    tools = fetch_tools_list(APP, ["--allowed-dir", str(root)])
    assert [t["name"] for t in tools] == ["uniqueness_check", "find_keys", "list_columns"]
    assert_golden_tools_list(
        "uniqueness-server", tools, REPO_ROOT / "tests" / "golden", min_tools=3
    )


def test_readme_catalog_matches_the_registry(root: Path) -> None:
    text = README.read_text(encoding="utf-8")
    for tool in tools_for(root).values():
        definition = tool.definition
        section = re.search(rf"### `{definition.name}`\n(.*?)(?=\n### |\n## |\Z)", text, re.S)
        assert section is not None, f"README has no section for {definition.name}"
        documented = set(re.findall(r"^\| `(\w+)` \|", section.group(1), re.M))
        assert documented == set(definition.properties) | set(definition.deprecated_aliases)


def test_fuzzed_arguments_never_break_the_protocol_or_leak(root: Path) -> None:
    fuzz_tools(
        APP,
        ["--allowed-dir", str(root), "--database", f"shop=sqlite:///{root / 'shop.db'}"],
        forbidden=[str(root)],
        max_examples=40,
    )


@pytest.mark.anyio
async def test_calls_carry_text_structured_content_and_masked_errors(root: Path) -> None:
    argv = [
        "--allowed-dir",
        str(root),
        "--database",
        "wh=postgresql://admin:S3cretPw@127.0.0.1:9/warehouse?connect_timeout=2",
    ]
    async with in_process_client(APP, argv) as client:
        listed = await client.list_tools()
        assert all(t.annotations and t.annotations.read_only_hint for t in listed.tools)
        ok = await client.call_tool(
            "uniqueness_check", {"file": "household.csv", "columns_name": "income"}
        )
        assert not ok.is_error
        assert ok.structured_content is not None
        assert ok.structured_content["unique"] is True
        missing = await client.call_tool(
            "uniqueness_check", {"path": "household.csv", "columns": ["nonExistingColumn"]}
        )
        assert missing.is_error
        assert result_text(missing).startswith("uniqueness_check failed: column ")
        outside = await client.call_tool("list_columns", {"path": str(root.parent / "x.csv")})
        assert outside.is_error
        assert str(root) not in result_text(outside)
        unreachable = await client.call_tool("list_columns", {"database": "wh", "table": "t"})
        assert unreachable.is_error
        assert "S3cretPw" not in result_text(unreachable)


@pytest.mark.anyio
async def test_find_keys_reports_progress(root: Path) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with in_process_client(APP, ["--allowed-dir", str(root)]) as client:
        result = await client.call_tool(
            "find_keys", {"path": "household.csv", "maxColumns": 3}, progress_callback=on_progress
        )
    assert not result.is_error
    assert seen, "no progress notification arrived"
    values = [p for p, _, _ in seen]
    assert values == sorted(values)
    assert any(m and "candidate keys of 2 columns" in m for _, _, m in seen)


@pytest.mark.anyio
async def test_a_cancelled_call_stops_the_scan(root: Path) -> None:
    slow = (
        "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 500000000) "
        "SELECT i FROM r"
    )
    argv = ["--allowed-dir", str(root), "--database", f"shop=sqlite:///{root / 'shop.db'}"]
    async with in_process_client(APP, argv) as client:
        async with anyio.create_task_group() as group:
            group.start_soon(
                lambda: client.call_tool(
                    "uniqueness_check", {"database": "shop", "query": slow, "columns": "i"}
                )
            )
            with anyio.fail_after(10):
                while not running_queries():
                    await anyio.sleep(0.05)
            group.cancel_scope.cancel()
        deadline = time.monotonic() + 10
        while running_queries() and time.monotonic() < deadline:
            await anyio.sleep(0.05)
        assert not running_queries(), "the query kept running after the call was cancelled"
        after = await client.call_tool("list_columns", {"database": "shop", "table": "orders"})
        assert not after.is_error
