"""Issue 9, replayed as an attacker would: the real ``uniqueness-server`` over stdio.

Each attack asserts the exact harm did not happen (no ``pwned`` table, no row of an outside
file, no secret in an answer or in the log), that the refusal is a tool error naming the rule,
and that the server keeps serving afterwards.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import mcp_types as types
import psycopg
import pytest
from mcp.client.client import Client
from uniqueness_testkit import stdio_server, text_of

pytestmark = [pytest.mark.e2e]

CHECK = Path(sys.executable).parent / "uniqueness-check"
POSTGRES_URL = os.environ.get("MCP_TOOLS_TEST_POSTGRES_URL")
# the attack of issue 9: the hand-written lexer did not know E'' strings, and a parameterless
# execute ran every statement; the query closes the engine's wrapping and opens its own
POSTGRES_ATTACK = (
    r"SELECT E'\'' AS id) q; COMMIT; BEGIN READ WRITE; CREATE TABLE {table}(x int); COMMIT; "
    r"SELECT * FROM (SELECT 1 AS id, E'\'' AS z"
)
SQLITE_ATTACK = "SELECT 1 AS id) q; CREATE TABLE pwned(x int); SELECT * FROM (SELECT 1 AS id"
YAML_SECRET = "Hunter2SecretValue"


def everything(result: types.CallToolResult) -> str:
    """All a client reads of an answer: its text and its structured content."""
    return text_of(result) + json.dumps(result.structured_content or {})


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
    """``tool`` on ``arguments`` (uniqueness_check also gets ``columns``: id)."""
    if tool == "uniqueness_check":
        arguments = {"columns": ["id"], **arguments}
    return await client.call_tool(tool, arguments)


async def refused(
    client: Client, tool: str, arguments: dict[str, Any], rule: str
) -> types.CallToolResult:
    result = await call(client, tool, arguments)
    assert result.is_error, text_of(result)
    assert rule in text_of(result), text_of(result)
    return result


async def still_serving(client: Client, arguments: dict[str, Any]) -> None:
    result = await call(client, "uniqueness_check", arguments)
    assert not result.is_error, text_of(result)
    assert result.structured_content is not None
    assert result.structured_content["unique"] is True


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    root.mkdir()
    with sqlite3.connect(root / "shop.db") as connection:
        connection.execute("CREATE TABLE orders (id INTEGER, customer TEXT)")
        connection.executemany("INSERT INTO orders VALUES (?, ?)", [(1, "a"), (2, "b")])
    connection.close()
    return root


def sqlite_tables(path: Path) -> list[str]:
    with sqlite3.connect(path) as connection:
        rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        names = sorted(name for (name,) in rows)
    connection.close()
    return names


@pytest.mark.anyio
async def test_sqlite_queries_cannot_write(shop: Path, tmp_path: Path) -> None:
    log_file = tmp_path / "server.log"
    database = f"shop=sqlite:///{shop / 'shop.db'}"
    attacks = [
        (SQLITE_ATTACK, "query is not one valid SQLite SELECT statement"),
        ("SELECT 1 AS id; CREATE TABLE pwned(x int)", "only one SQL statement"),
        ("CREATE TABLE pwned AS SELECT 1 AS id", "only SELECT queries are allowed"),
        ("SELECT 1 AS id INTO pwned", "only SELECT queries are allowed"),
        ("ATTACH DATABASE 'pwned.db' AS pwned", "only SELECT queries are allowed"),
        ("PRAGMA query_only = OFF", "only SELECT queries are allowed"),
        (
            "WITH w AS (INSERT INTO orders VALUES (9, 'z') RETURNING id) SELECT id FROM w",
            "only SELECT queries are allowed",
        ),
    ]
    async with stdio_server(shop, log_file, [database]) as client:
        for query, rule in attacks:
            for tool in ("list_columns", "uniqueness_check"):
                await refused(client, tool, {"database": "shop", "query": query}, rule)
            await still_serving(client, {"database": "shop", "table": "orders"})
    assert sqlite_tables(shop / "shop.db") == ["orders"]
    assert not (shop / "pwned.db").exists()
    with sqlite3.connect(shop / "shop.db") as connection:
        assert connection.execute("SELECT COUNT(*) FROM orders").fetchone() == (2,)
    connection.close()


@pytest.fixture
def postgres() -> tuple[str, str]:
    """A database URL and a table name nobody has created."""
    if not POSTGRES_URL:
        pytest.skip("MCP_TOOLS_TEST_POSTGRES_URL is not set: no PostgreSQL server")
    return POSTGRES_URL, f"written_{uuid.uuid4().hex[:10]}"


def postgres_has(url: str, table: str) -> bool:
    with psycopg.connect(url, autocommit=True) as connection:
        found = connection.execute("SELECT to_regclass(%s)", (f"public.{table}",)).fetchone()
    return found is not None and found[0] is not None


@pytest.mark.anyio
async def test_postgresql_queries_cannot_write(
    postgres: tuple[str, str], shop: Path, tmp_path: Path
) -> None:
    url, table = postgres
    password = psycopg.conninfo.conninfo_to_dict(url).get("password")
    oid = 3_000_000_000 + uuid.uuid4().int % 1_000_000
    log_file = tmp_path / "server.log"
    attacks = [
        (POSTGRES_ATTACK.format(table=table), "query is not one valid PostgreSQL SELECT"),
        (f"SELECT 1 AS id; CREATE TABLE {table}(x int)", "only one SQL statement"),
        (f"SELECT 1 AS id INTO {table}", "only SELECT queries are allowed"),
        (f"CREATE TABLE {table} AS SELECT 1 AS id", "only SELECT queries are allowed"),
        ("SELECT 1 AS id FROM pg_class FOR UPDATE", "only SELECT queries are allowed"),
        ("COMMIT", "only SELECT queries are allowed"),
        # one SELECT that tries to switch its transaction to read-write: the session refuses
        (
            "SELECT set_config('transaction_read_only', 'off', false) AS id",
            "read-write mode must be set before any query",
        ),
    ]
    async with stdio_server(shop, log_file, [f"pg={url}"]) as client:
        for query, rule in attacks:
            for tool in ("list_columns", "uniqueness_check"):
                result = await refused(client, tool, {"database": "pg", "query": query}, rule)
                if password:
                    assert password not in everything(result)
            await still_serving(client, {"database": "pg", "query": "SELECT 1 AS id"})
        # a writing function PostgreSQL allows in a READ ONLY transaction (large objects):
        # nothing is ever committed, so its effect is rolled back with the call
        await call(
            client, "list_columns", {"database": "pg", "query": f"SELECT lo_create({oid}) AS id"}
        )
        await still_serving(client, {"database": "pg", "query": "SELECT 1 AS id"})
    assert not postgres_has(url, table)
    with psycopg.connect(url, autocommit=True) as connection:
        kept = connection.execute(
            "SELECT COUNT(*) FROM pg_largeobject_metadata WHERE oid = %s", (oid,)
        ).fetchone()
    assert kept == (0,)
    if password:
        assert password not in log_file.read_text(encoding="utf-8")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def globbed(tmp_path: Path) -> Path:
    """Files whose names DuckDB would read as patterns, next to a symlink leading outside."""
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    _write(outside / "x.csv", "id\nOUTSIDE1\nOUTSIDE2\n")
    _write(outside / "x.json", '[{"id": "OUTSIDE1"}]')
    _write(root / "bad" / "a.csv", "id\nDECOY_A\n")
    _write(root / "bad" / "b.csv", "id\nDECOY_B\n")
    _write(root / "bad" / "[ab].csv", "id\nLITERAL\n")
    _write(root / "bad" / "q?.csv", "id\nQUESTION\n")
    _write(root / "bad" / "qx.csv", "id\nDECOY_Q\n")
    _write(root / "d*" / "x.csv", "id\nINSIDE\n")
    _write(root / "d*" / "x.json", '[{"id": "INSIDE"}]')
    (root / "dx").symlink_to(outside, target_is_directory=True)
    (root / "dy").symlink_to(outside, target_is_directory=True)
    return root


@pytest.mark.anyio
async def test_a_file_name_is_a_file_name(globbed: Path, tmp_path: Path) -> None:
    log_file = tmp_path / "server.log"
    literal = {
        "bad/[ab].csv": ["LITERAL"],
        "bad/q?.csv": ["QUESTION"],
        "d*/x.csv": ["INSIDE"],
        "d*/x.json": ["INSIDE"],
    }
    async with stdio_server(globbed, log_file) as client:
        for path, values in literal.items():
            columns = await call(client, "list_columns", {"path": path})
            assert not columns.is_error, text_of(columns)
            assert columns.structured_content is not None
            assert columns.structured_content["rows"] == len(values)
            check = await call(client, "uniqueness_check", {"path": path})
            assert check.structured_content is not None
            assert check.structured_content["rows"] == len(values)
            keys = await call(client, "find_keys", {"path": path})
            for answer in (columns, check, keys):
                assert "OUTSIDE" not in everything(answer)
                assert "DECOY" not in everything(answer)
            assert values[0] in everything(columns)
        for path in ("dx/x.csv", "d?/x.csv", "d[xy]/x.csv"):
            outside = await call(client, "list_columns", {"path": path})
            assert outside.is_error
            assert "OUTSIDE" not in everything(outside)
        denied = await refused(
            client,
            "list_columns",
            {"path": "dx/x.csv"},
            "symlink leads outside the allowed directories",
        )
        assert "OUTSIDE" not in everything(denied)
        for remote in ("s3://bucket/x.csv", "http://127.0.0.1:9/x.csv", "hf://datasets/x/y.csv"):
            await refused(client, "list_columns", {"path": remote}, "does not exist")
        await still_serving(client, {"path": "bad/a.csv"})
    assert "OUTSIDE" not in log_file.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", ["bad/[ab].csv", "bad/q?.csv", "d*/x.csv"])
def test_the_pipeline_command_reads_file_names_literally(globbed: Path, path: str) -> None:
    done = subprocess.run(
        [str(CHECK), path, "id", "--json"],
        cwd=globbed,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["rows"] == 1
    assert "OUTSIDE" not in done.stdout
    assert "DECOY" not in done.stdout


@pytest.mark.anyio
async def test_a_malformed_yaml_file_does_not_echo_its_password(tmp_path: Path) -> None:
    root = tmp_path / "data"
    _write(root / "config.yaml", f'rows:\n  - id: 1\n password: "{YAML_SECRET}"\n   x: [\n')
    _write(root / "ok.csv", "id\n1\n2\n")
    log_file = tmp_path / "server.log"
    async with stdio_server(root, log_file) as client:
        for tool in ("list_columns", "uniqueness_check", "find_keys"):
            result = await refused(client, tool, {"path": "config.yaml"}, "is not valid YAML")
            assert YAML_SECRET not in everything(result)
        await still_serving(client, {"path": "ok.csv"})
    log = log_file.read_text(encoding="utf-8")
    assert "is not valid YAML" in log
    assert YAML_SECRET not in log
