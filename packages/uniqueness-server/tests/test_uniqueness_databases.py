"""Database sources for real: a SQLite file always, PostgreSQL when a server is given."""

from __future__ import annotations

import os
import re
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import sqlalchemy as sa
from mcp_common import ErrorCode, ToolCancelledError, ToolContext, ToolError
from uniqueness_server.engine import (
    DatabaseRegistry,
    Nulls,
    check_uniqueness,
    find_keys,
    profile_columns,
)
from uniqueness_server.engine.backends.sql_database import read_only_query

POSTGRES_URL = os.environ.get("MCP_TOOLS_TEST_POSTGRES_URL")
ROWS = [(1, "Ann", "PL"), (2, "Bob", "US"), (3, "Cid", "PL"), (4, "Ann", None), (5, "Eve", None)]


@dataclass
class Backend:
    """A database holding table ``people`` (and ``odd"name``) for one test."""

    registry: DatabaseRegistry
    table: str  # qualified name of the people table
    odd_table: str
    count_rows: sa.Engine

    def people_count(self) -> int:
        with self.count_rows.connect() as connection:
            return int(
                connection.exec_driver_sql(f"SELECT COUNT(*) FROM {self.quoted}").scalar_one()
            )

    @property
    def quoted(self) -> str:
        preparer = self.count_rows.dialect.identifier_preparer
        return ".".join(preparer.quote_identifier(p) for p in self.table.split("."))


def _fill(engine: sa.Engine, schema: str | None) -> None:
    prefix = f'"{schema}".' if schema else ""
    with engine.begin() as connection:
        if schema:
            connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        connection.exec_driver_sql(
            f"CREATE TABLE {prefix}people (id INTEGER, name VARCHAR(20), country VARCHAR(2))"
        )
        connection.exec_driver_sql(f'CREATE TABLE {prefix}"odd""name" (v INTEGER)')
        for row in ROWS:
            connection.exec_driver_sql(
                f"INSERT INTO {prefix}people VALUES (%s, %s, %s)"
                if engine.dialect.name == "postgresql"
                else f"INSERT INTO {prefix}people VALUES (?, ?, ?)",
                row,
            )


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "sqlite":
        path = tmp_path / "shop.db"
        engine = sa.create_engine(f"sqlite:///{path}")
        _fill(engine, None)
        registry = DatabaseRegistry.from_options([f"shop=sqlite:///{path}"])
        yield Backend(registry, "people", 'odd"name', engine)
        engine.dispose()
        return
    if not POSTGRES_URL:
        pytest.skip("MCP_TOOLS_TEST_POSTGRES_URL is not set: no PostgreSQL server")
    url = sa.make_url(POSTGRES_URL)
    if url.drivername in ("postgresql", "postgres"):
        url = url.set(drivername="postgresql+psycopg")
    engine = sa.create_engine(url)
    schema = f"t_{uuid.uuid4().hex[:10]}"
    _fill(engine, schema)
    registry = DatabaseRegistry.from_options([f"shop={url.render_as_string(hide_password=False)}"])
    try:
        yield Backend(registry, f"{schema}.people", f'{schema}.odd"name', engine)
    finally:
        with engine.begin() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        engine.dispose()


def test_check_runs_in_the_database(backend: Backend) -> None:
    table = backend.registry.open("shop", table=backend.table)
    try:
        assert table.names == ("id", "name", "country")
        assert check_uniqueness(table, ["ID"]).unique
        by_name = check_uniqueness(table, ["name"])
        by_country = check_uniqueness(table, ["country"], nulls=Nulls.EQUAL)
        distinct = check_uniqueness(table, ["country", "name"], nulls=Nulls.DISTINCT)
    finally:
        table.close()
    assert not by_name.unique
    assert (by_name.rows, by_name.distinct_keys, by_name.duplicate_groups) == (5, 4, 1)
    assert by_name.examples[0].values == ("Ann",)
    assert by_name.examples[0].count == 2
    assert by_name.examples[0].rows == ()  # tables have no row order
    groups = {g.values: g.count for g in by_country.examples}
    assert groups == {("PL",): 2, (None,): 2}
    assert by_country.rows_with_missing == 2
    assert distinct.unique
    assert distinct.rows_with_missing == 2


def test_query_source_and_find_keys(backend: Backend) -> None:
    query = (
        f"-- people up to 4\nSELECT id, name FROM {backend.quoted} /* all */ "
        "WHERE id < 5 AND name LIKE '%' AND name <> ':name';"
    )
    table = backend.registry.open("shop", query=query)
    try:
        assert table.names == ("id", "name")
        assert not check_uniqueness(table, ["name"]).unique
        keys = find_keys(table, max_columns=2)
        profile = profile_columns(table)
    finally:
        table.close()
    assert [k.columns for k in keys.keys] == [("id",)]
    assert profile.rows == 4
    assert profile.columns[0].type == "integer"
    assert profile.columns[0].distinct_exact


@pytest.mark.parametrize(
    "statement",
    [
        "DELETE FROM {t}",
        "UPDATE {t} SET name = 'x'",
        "DROP TABLE {t}",
        "INSERT INTO {t} VALUES (9, 'Zed', 'DE')",
        "SELECT 1; DELETE FROM {t}",
        "ATTACH DATABASE 'x.db' AS x",
        "/* harmless */ DELETE FROM {t}",
        "PRAGMA query_only = OFF",
    ],
)
def test_write_statements_are_refused_before_they_run(backend: Backend, statement: str) -> None:
    with pytest.raises(ToolError) as caught:
        backend.registry.open("shop", query=statement.format(t=backend.quoted))
    assert caught.value.code is ErrorCode.INVALID_ARGUMENT
    assert backend.people_count() == len(ROWS)


def test_a_data_modifying_select_is_stopped_by_the_read_only_session(backend: Backend) -> None:
    if backend.count_rows.dialect.name != "postgresql":
        pytest.skip("sequences are PostgreSQL objects")
    schema = backend.table.split(".")[0]
    with backend.count_rows.begin() as connection:
        connection.exec_driver_sql(f'CREATE SEQUENCE "{schema}".seq')
    # a SELECT that writes (advances a sequence) passes the statement check; the read-only
    # session itself must refuse it
    table = backend.registry.open("shop", query=f"SELECT nextval('\"{schema}\".seq') AS n")
    try:
        with pytest.raises(ToolError, match="read-only transaction"):
            check_uniqueness(table, ["n"])
    finally:
        table.close()
    with backend.count_rows.connect() as connection:
        advanced = connection.exec_driver_sql(f'SELECT is_called FROM "{schema}".seq')
        assert advanced.scalar_one() is False


def test_table_names_are_quoted_never_pasted(backend: Backend) -> None:
    odd = backend.registry.open("shop", table=backend.odd_table)
    odd.close()
    with pytest.raises(ToolError, match="refused"):
        backend.registry.open("shop", table=f"{backend.table}; DROP TABLE {backend.quoted}")
    assert backend.people_count() == len(ROWS)


def test_unknown_connection_lists_the_configured_names(backend: Backend) -> None:
    with pytest.raises(ToolError, match="unknown database 'nope'; configured databases: shop"):
        backend.registry.open("nope", table="people")


def test_table_and_query_are_exclusive(backend: Backend) -> None:
    with pytest.raises(ToolError, match="exactly one of table or query"):
        backend.registry.open("shop", table="people", query="SELECT 1")


def test_missing_sqlite_file_is_an_error_and_is_not_created(tmp_path: Path) -> None:
    path = tmp_path / "absent.db"
    # at startup: the path tried, in full
    with pytest.raises(ValueError, match=f"the SQLite database {re.escape(str(path))} does not"):
        DatabaseRegistry.from_options([f"gone=sqlite:///{path}"])
    assert not path.exists()
    # removed after startup: the query is refused, and nothing creates the file
    sqlite3.connect(path).close()
    registry = DatabaseRegistry.from_options([f"gone=sqlite:///{path}"])
    path.unlink()
    with pytest.raises(ToolError, match="refused"):
        registry.open("gone", table="t")
    assert not path.exists()


def test_failed_connection_masks_the_password() -> None:
    registry = DatabaseRegistry.from_options(
        ["wh=postgresql+psycopg://admin:S3cretPw@127.0.0.1:9/warehouse?connect_timeout=2"]
    )
    with pytest.raises(ToolError) as caught:
        registry.open("wh", table="t")
    assert "S3cretPw" not in str(caught.value)


@pytest.mark.parametrize("value", ["nameonly", "=sqlite://", "bad name=sqlite://", "x=::nope"])
def test_malformed_database_options_are_refused(value: str) -> None:
    with pytest.raises(ValueError, match="--database"):
        DatabaseRegistry.from_options([value])


def test_cancellation_interrupts_a_running_database_query(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    sqlite3.connect(path).close()
    registry = DatabaseRegistry.from_options([f"db=sqlite:///{path}"])
    context = ToolContext()
    slow = (
        "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 300000000) "
        "SELECT i FROM r"
    )
    table = registry.open("db", query=slow, context=context)
    threading.Timer(0.5, context.cancel).start()
    started = time.monotonic()
    try:
        with pytest.raises(ToolCancelledError):
            check_uniqueness(table, ["i"], context=context)
    finally:
        table.close()
    assert time.monotonic() - started < 10


@pytest.mark.parametrize(
    ("query", "ok"),
    [
        ("select 1", True),
        ("  WITH a AS (SELECT 1) SELECT * FROM a ;; ", True),
        ("VALUES (1)", True),
        ("SELECT ';' AS semi", True),
        ("SELECT 1 -- ; DROP TABLE t", True),
        ("SELECT 1; SELECT 2", False),
        ("select 1 /* unterminated", False),
        ("EXPLAIN ANALYZE DELETE FROM t", False),
        ("", False),
    ],
)
@pytest.mark.parametrize("dialect", ["sqlite", "postgresql"])
def test_read_only_query_recognition(query: str, ok: bool, dialect: str) -> None:
    if ok:
        assert read_only_query(query, dialect)
    else:
        with pytest.raises(ToolError):
            read_only_query(query, dialect)
