"""The real commands as subprocesses: the MCP server over stdio, and ``uniqueness-check``."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import mcp_types as types
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from uniqueness_testkit import household_csv, write

pytestmark = [pytest.mark.e2e]

BIN = Path(sys.executable).parent
SERVER = BIN / "uniqueness-server"
CHECK = BIN / "uniqueness-check"


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(part.text for part in result.content if isinstance(part, types.TextContent))


@pytest.fixture
def data(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    write(root / "household.csv.gz", household_csv(), compress=True)
    with sqlite3.connect(root / "shop.db") as connection:
        connection.execute("CREATE TABLE orders (id INTEGER, customer TEXT)")
        connection.executemany("INSERT INTO orders VALUES (?, ?)", [(1, "a"), (2, "a")])
    connection.close()
    return root


@pytest.mark.anyio
async def test_stdio_server_answers_the_three_tools(data: Path, tmp_path: Path) -> None:
    assert SERVER.is_file(), f"{SERVER} is not installed; run uv sync"
    log_file = tmp_path / "server.log"
    params = StdioServerParameters(
        command=str(SERVER),
        args=["--allowed-dir", str(data), "--log-file", str(log_file)],
        env={
            **os.environ,
            "UNIQUENESS_SERVER_DATABASE": f"shop=sqlite:///{data / 'shop.db'}",
        },
        cwd=str(tmp_path),
    )
    async with Client(params) as client:
        assert client.server_info is not None
        assert client.server_info.name == "uniqueness-server"
        listed = await client.list_tools()
        assert [t.name for t in listed.tools] == ["uniqueness_check", "find_keys", "list_columns"]
        check = await client.call_tool(
            "uniqueness_check", {"path": "household.csv.gz", "columns": ["year1", "hlpi_name"]}
        )
        assert not check.is_error
        assert check.structured_content is not None
        assert check.structured_content["unique"] is True
        keys = await client.call_tool(
            "find_keys", {"database": "shop", "table": "orders", "maxColumns": 2}
        )
        assert keys.structured_content is not None
        assert [k["columns"] for k in keys.structured_content["keys"]] == [["id"]]
        columns = await client.call_tool("list_columns", {"path": "household.csv.gz"})
        assert columns.structured_content is not None
        assert columns.structured_content["rows"] == 70
        refused = await client.call_tool(
            "uniqueness_check", {"database": "shop", "query": "DROP TABLE orders", "columns": "id"}
        )
        assert refused.is_error
        assert text_of(refused).startswith(
            "uniqueness_check failed: only SELECT queries are allowed"
        )
    with sqlite3.connect(data / "shop.db") as connection:
        assert connection.execute("SELECT COUNT(*) FROM orders").fetchone() == (2,)
    connection.close()


def run_check(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CHECK), *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )


def test_cli_exit_status_tells_unique_from_not(data: Path) -> None:
    unique = run_check("household.csv.gz", "year1,hlpi_name", cwd=data)
    assert unique.returncode == 0, unique.stderr
    assert unique.stdout.startswith("year1, hlpi_name: unique (70 rows)")
    duplicate = run_check("household.csv.gz", "year1", "--json", cwd=data)
    assert duplicate.returncode == 1
    answer = json.loads(duplicate.stdout)
    assert answer["unique"] is False
    assert answer["duplicates"][0]["values"] == ["2008"]
    database = run_check(
        "--database",
        f"shop=sqlite:///{data / 'shop.db'}",
        "--table",
        "orders",
        "customer",
        cwd=data,
    )
    assert database.returncode == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["absent.csv", "id"], "absent.csv does not exist"),
        (["household.csv.gz", "nope"], "column 'nope' not found"),
        (["--header-row", "x", "household.csv.gz", "id"], "invalid int value"),
        (["household.csv.gz", "id", "--bogus"], "unrecognized arguments"),
        (["--bogus"], "the following arguments are required"),
        (["--database", "shop=sqlite:///x.db", "--query", "DELETE FROM t", "id"], "only SELECT"),
    ],
)
def test_cli_errors_exit_2_with_one_line_and_no_traceback(
    data: Path, args: list[str], message: str
) -> None:
    result = run_check(*args, cwd=data)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_cli_help_and_version(data: Path) -> None:
    helped = run_check("--help", cwd=data)
    assert helped.returncode == 0
    assert "exit status: 0 the columns are unique, 1 they are not, 2 an error" in helped.stdout
    assert "not confined" in helped.stdout
    version = run_check("--version", cwd=data)
    assert version.returncode == 0
    assert version.stdout.strip()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--database", "nonsense"], "--database expects NAME=URL"),
        (["--database", "x=notascheme"], "not a usable SQLAlchemy URL"),
        (["--allowed-dir", "/nonexistent/dir"], "allowed directory does not exist"),
    ],
)
def test_server_refuses_bad_settings_at_startup(
    tmp_path: Path, args: list[str], message: str
) -> None:
    result = subprocess.run(
        [str(SERVER), *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
