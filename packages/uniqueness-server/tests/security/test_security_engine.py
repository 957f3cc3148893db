"""Issue 9 below the tools: each layer holds on its own, even if the one above it failed.

- the driver runs exactly one statement even when handed several (the parser bypassed);
- the statement timeout stops a query, also one that switched the server-side limit off;
- whatever path the confinement accepts, DuckDB reads exactly that file.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
import time
import uuid
from pathlib import Path

import duckdb
import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_common import AllowedPaths, ToolContext, ToolError
from uniqueness_server.engine import (
    DatabaseRegistry,
    check_uniqueness,
    files,
    open_file,
    profile_columns,
)
from uniqueness_server.engine.backends.embedded import new_connection
from uniqueness_server.engine.backends.sql_database import SqlBackend, read_only_query
from uniqueness_server.tools.sources import SourceArguments, SourceOpener

POSTGRES_URL = os.environ.get("MCP_TOOLS_TEST_POSTGRES_URL")


def _sqlite(tmp_path: Path) -> tuple[str, Path]:
    path = tmp_path / "shop.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE orders (id INTEGER)")
    connection.close()
    return f"sqlite:///{path}", path


def _tables(path: Path) -> list[str]:
    with sqlite3.connect(path) as connection:
        names = [row[0] for row in connection.execute("SELECT name FROM sqlite_master")]
    connection.close()
    return names


def _runner(url: str, timeout: str = "60s") -> SqlBackend:
    registry = DatabaseRegistry.from_options([f"db={url}?statement_timeout={timeout}"])
    backend = registry.open("db", query="SELECT 1").backend
    assert isinstance(backend, SqlBackend)
    return backend


def test_sqlite_driver_runs_one_statement_only(tmp_path: Path) -> None:
    url, path = _sqlite(tmp_path)
    runner = _runner(url)
    try:
        with pytest.raises(ToolError, match="one statement at a time"):
            runner.fetchall("SELECT 1; CREATE TABLE pwned(x int)")
        # the session is read-only by itself too
        with pytest.raises(ToolError, match=r"readonly|read-only|query_only"):
            runner.fetchall("CREATE TABLE pwned(x int)")
    finally:
        runner.close()
    assert _tables(path) == ["orders"]


def test_sqlite_files_open_read_only_whatever_the_url_says(tmp_path: Path) -> None:
    _, path = _sqlite(tmp_path)
    runner = _runner(f"sqlite:///file:{path}?mode=rwc&uri=true")
    try:
        runner.fetchall("PRAGMA query_only = OFF")
        with pytest.raises(ToolError, match="readonly"):
            runner.fetchall("CREATE TABLE pwned(x int)")
    finally:
        runner.close()
    assert _tables(path) == ["orders"]


def test_postgresql_driver_runs_one_statement_only() -> None:
    if not POSTGRES_URL:
        pytest.skip("MCP_TOOLS_TEST_POSTGRES_URL is not set: no PostgreSQL server")
    table = f"pwned_{uuid.uuid4().hex[:10]}"
    runner = _runner(POSTGRES_URL)
    try:
        with pytest.raises(ToolError, match="cannot insert multiple commands"):
            runner.fetchall(
                f"SELECT 1; COMMIT; BEGIN READ WRITE; CREATE TABLE {table}(x int); COMMIT"
            )
    finally:
        runner.close()
    runner = _runner(POSTGRES_URL)
    try:
        with pytest.raises(ToolError, match="read-only transaction"):
            runner.fetchall(f"CREATE TABLE {table}(x int)")
    finally:
        runner.close()
    with psycopg.connect(POSTGRES_URL, autocommit=True) as connection:
        found = connection.execute("SELECT to_regclass(%s)", (table,)).fetchone()
    assert found == (None,)


def test_postgresql_statement_timeout_holds_even_after_set_config() -> None:
    if not POSTGRES_URL:
        pytest.skip("MCP_TOOLS_TEST_POSTGRES_URL is not set: no PostgreSQL server")
    runner = _runner(POSTGRES_URL, "1s")
    started = time.monotonic()
    try:
        # one statement turns the server-side limit off; the client-side deadline still holds
        assert runner.fetchall("SELECT set_config('statement_timeout', '0', false)") == [("0",)]
        with pytest.raises(ToolError, match="longer than the statement timeout of 1 s"):
            runner.fetchall("SELECT pg_sleep(20)")
    finally:
        runner.close()
    assert time.monotonic() - started < 15


def test_sqlite_statement_timeout_stops_a_runaway_query(tmp_path: Path) -> None:
    url, _ = _sqlite(tmp_path)
    registry = DatabaseRegistry.from_options([f"db={url}?statement_timeout=500ms"])
    slow = (
        "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 300000000) "
        "SELECT i FROM r"
    )
    table = registry.open("db", query=slow)
    started = time.monotonic()
    try:
        with pytest.raises(ToolError, match=r"longer than the statement timeout of 0\.5 s"):
            check_uniqueness(table, ["i"])
    finally:
        table.close()
    assert time.monotonic() - started < 15


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("shop=sqlite:///x.db?statement_timeout=soon", "statement_timeout must be a duration"),
        ("shop=sqlite:///x.db?statement_timeout=30", "statement_timeout must be a duration"),
        ("shop=sqlite:///x.db?statement_timeout=-1s", "statement_timeout must be a duration"),
        ("shop=mysql://u@h/db", "mysql is not supported"),
        ("shop=postgresql+psycopg2://u@h/db", "use the psycopg driver"),
    ],
)
def test_database_options_that_cannot_be_held_read_only_are_refused(
    option: str, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        DatabaseRegistry.from_options([option])


@pytest.mark.parametrize("dialect", ["sqlite", "postgresql"])
def test_a_query_too_deep_to_parse_is_refused_clearly(dialect: str) -> None:
    query = "SELECT " + "(" * 5000 + "1" + ")" * 5000 + " AS id"
    with pytest.raises(ToolError, match="nested too deeply"):
        read_only_query(query, dialect)


def test_statement_timeout_zero_means_no_limit(tmp_path: Path) -> None:
    url, _ = _sqlite(tmp_path)
    registry = DatabaseRegistry.from_options([f"db={url}?statement_timeout=0"])
    assert registry._connections["db"].timeout is None
    table = registry.open("db", table="orders")
    table.close()


# names DuckDB would read as patterns, plus quotes and backslashes for its string literals
_NAME = st.text(alphabet="ab*?[]{}!^-,.'\\ ", min_size=1, max_size=5).filter(
    lambda name: name not in (".", "..") and name.strip() == name
)
_DECOYS = ("a", "b", "ab", "x", *(f"{n}.{k}" for n in ("a", "b", "ab") for k in ("csv", "json")))


_CONTENT = {"csv": "id\n{}\n", "json": '[{{"id": "{}"}}]', "jsonl": '{{"id": "{}"}}\n'}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(directory=_NAME, name=_NAME, kind=st.sampled_from(sorted(_CONTENT)))
def test_duckdb_reads_exactly_the_file_the_confinement_accepted(
    directory: str, name: str, kind: str
) -> None:
    def content(value: str) -> str:
        return _CONTENT[kind].format(value)

    with tempfile.TemporaryDirectory() as temp:
        base = Path(temp)
        root, outside = base / "root", base / "outside"
        (root / directory).mkdir(parents=True)
        outside.mkdir()
        target = root / directory / f"{name}.{kind}"
        target.write_text(content("TARGET"), encoding="utf-8")
        (outside / target.name).write_text(content("OUTSIDE"), encoding="utf-8")
        for decoy in _DECOYS:
            (outside / decoy).write_text(content("OUTSIDE"), encoding="utf-8")
            if not (root / decoy).exists():
                (root / decoy).symlink_to(outside, target_is_directory=True)
            sibling = root / directory / decoy
            if not sibling.exists():
                sibling.write_text(content("DECOY"), encoding="utf-8")
        allowed = AllowedPaths([root])
        real = allowed.resolve(f"{directory}/{target.name}", kind="file")
        assert real == target.resolve()
        if "\\" in str(real) and any(c in str(real) for c in "*?["):
            with pytest.raises(ToolError, match="cannot be read literally"):
                open_file(real, label=name)
            return
        table = open_file(real, label=name)
        try:
            assert table.query("SELECT * FROM src") == [("TARGET",)]
        finally:
            table.close()


def test_a_file_swapped_for_a_symlink_after_the_check_is_not_read(tmp_path: Path) -> None:
    root, outside = tmp_path / "data", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "x.csv").write_text("id\nOUTSIDE\n")
    target = root / "x.csv"
    target.write_text("id\nINSIDE\n")
    allowed = AllowedPaths([root])
    real = allowed.resolve("x.csv", must_exist=True, kind="file")
    descriptor = allowed.open_descriptor(real)
    target.unlink()  # the swap a local writer could make between the check and the read
    target.symlink_to(outside / "x.csv")
    table = open_file(real, label="x.csv", descriptor=descriptor, confined_to=allowed.roots)
    try:
        samples = profile_columns(table).columns[0].samples
    finally:
        table.close()
    assert samples == ("INSIDE",)
    assert _links_left() == []
    with pytest.raises(OSError, match="Bad file descriptor"):
        os.fstat(descriptor)  # the table closed the descriptor it read through


def _links_left() -> list[Path]:
    """The links to descriptors this process still holds for its readers."""
    root = files._Through._root
    return [] if root is None else sorted(root[1].glob("*/*"))


def _confined_file(tmp_path: Path) -> tuple[AllowedPaths, Path]:
    root, outside = tmp_path / "data", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "in.csv").write_text("id\n1\n2\n")
    (outside / "secret.csv").write_text("id\nSECRET\n")
    (root / "link.csv").symlink_to(outside / "secret.csv")
    return AllowedPaths([root]), outside


def test_a_reused_duckdb_connection_reads_nothing_outside_and_writes_nothing(
    tmp_path: Path,
) -> None:
    """Calls share one DuckDB database per set of allowed directories (a connection each):
    after a call, that database still refuses any file outside them, by its own check of the
    real path, and no statement that writes runs through a table, whatever built it."""
    allowed, outside = _confined_file(tmp_path)
    opener = SourceOpener(allowed, DatabaseRegistry())
    for _ in range(2):  # the second call reuses the database the first one made
        table = opener.open(SourceArguments(path="in.csv"), ToolContext())
        try:
            assert check_uniqueness(table, ["id"]).unique
            for sql in (
                f"SELECT * FROM read_csv('{outside / 'secret.csv'}')",
                f"SELECT * FROM read_csv('{allowed.roots[0] / 'link.csv'}')",  # symlink out
                "SELECT * FROM read_text('/etc/passwd')",
            ):
                with pytest.raises(ToolError, match="disabled by configuration"):
                    table.query(sql)
            for sql in (
                f"COPY (SELECT 1) TO '{allowed.roots[0] / 'written.csv'}'",
                f"COPY (SELECT 1) TO '{outside / 'written.csv'}'",
                f"ATTACH '{outside / 'x.db'}'",
                "SET enable_external_access = true",
                "INSTALL httpfs",
                "LOAD httpfs",
                "SELECT 1; COPY (SELECT 1) TO 'written.csv'",
            ):
                with pytest.raises(ToolError, match="the engine only reads"):
                    table.query(sql)
        finally:
            table.close()
    raw = new_connection(allowed.roots)  # even below the statement check
    try:
        for sql in (
            f"SELECT * FROM read_csv('{outside / 'secret.csv'}')",
            f"COPY (SELECT 1) TO '{outside / 'written.csv'}'",
        ):
            with pytest.raises(duckdb.PermissionException):
                raw.execute(sql)
        for sql in ("SET enable_external_access = true", "SET allowed_directories = ['/']"):
            with pytest.raises(duckdb.InvalidInputException):
                raw.execute(sql)
    finally:
        raw.close()
    assert sorted(p.name for p in outside.iterdir()) == ["secret.csv"]
    assert sorted(p.name for p in allowed.roots[0].iterdir()) == ["in.csv", "link.csv"]
    assert _links_left() == []


def test_one_call_never_sees_another_calls_relations(tmp_path: Path) -> None:
    allowed, _ = _confined_file(tmp_path)
    opener = SourceOpener(allowed, DatabaseRegistry())
    first = opener.open(SourceArguments(path="in.csv"), ToolContext())
    second = opener.open(SourceArguments(path="in.csv"), ToolContext())
    try:
        first.query("CREATE TEMP TABLE left_behind AS SELECT 1 AS x")
        with pytest.raises(ToolError, match="left_behind"):
            second.query("SELECT * FROM left_behind")
    finally:
        first.close()
    third = opener.open(SourceArguments(path="in.csv"), ToolContext())
    try:
        with pytest.raises(ToolError, match="left_behind"):
            third.query("SELECT * FROM left_behind")
        assert third.query(f"SELECT COUNT(*) FROM {third.relation}") == [(2,)]
    finally:
        second.close()
        third.close()
