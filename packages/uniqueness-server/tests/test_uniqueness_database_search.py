"""The one key search on SQL databases: exact, and with no limit on the number of columns.

SQLite always, PostgreSQL when ``MCP_TOOLS_TEST_POSTGRES_URL`` names a server. The search reads
the table's rows coded as integers: all of them when they fit the memory budget, else a sample
whose surviving candidates the database then checks with ``GROUP BY`` (the budget is lowered
here to take that path too). Answers are compared with brute force on random tables in both
nulls modes, and tables of 1,500 columns (more than 1,000,000 combinations of up to 2 columns,
which the search refused before) are searched through the tool.
"""

from __future__ import annotations

import os
import random
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
import uniqueness_server.engine.keys as key_search
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_uniqueness_wide_search import reference_keys
from uniqueness_server.engine import DatabaseRegistry, Nulls, find_keys
from uniqueness_testkit import call, tools_for

POSTGRES_URL = os.environ.get("MCP_TOOLS_TEST_POSTGRES_URL")
Value = int | str | float | None
Rows = list[tuple[Value, ...]]


def fill(url: str, schema: str, width: int, rows: Rows) -> None:
    """Create table ``t`` (``c0..``, no declared type in SQLite, text in PostgreSQL) holding
    ``rows``, in ``schema`` when given."""
    writer = sa.create_engine(url)
    prefix = f'"{schema}".' if schema else ""
    postgres = writer.dialect.name == "postgresql"
    kind = " TEXT" if postgres else ""
    marker = "%s" if postgres else "?"
    try:
        with writer.begin() as connection:
            if schema:
                connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
            columns = ", ".join(f"c{p}{kind}" for p in range(width))
            connection.exec_driver_sql(f"CREATE TABLE {prefix}t ({columns})")
            values = ", ".join([marker] * width)
            for row in rows:
                shown = tuple(None if v is None else str(v) for v in row) if postgres else row
                connection.exec_driver_sql(f"INSERT INTO {prefix}t VALUES ({values})", shown)
    finally:
        writer.dispose()


def postgres_url() -> str:
    assert POSTGRES_URL
    return (
        sa.make_url(POSTGRES_URL)
        .set(drivername="postgresql+psycopg")
        .render_as_string(hide_password=False)
    )


def keys_in(registry: DatabaseRegistry, table: str, max_columns: int, nulls: Nulls) -> Any:
    opened = registry.open("db", table=table)
    try:
        return find_keys(opened, max_columns=max_columns, nulls=nulls)
    finally:
        opened.close()


def found(search: Any) -> set[frozenset[int]]:
    return {frozenset(int(name[1:]) for name in key.columns) for key in search.keys}


def random_rows(rng: random.Random, width: int, count: int) -> Rows:
    """Few values a column (some missing), SQLite's mixed types among them: 1 and 1.0 are
    one value there, 1 and '1' two."""
    cards = [rng.choice([1, 2, 3, 5, 30]) for _ in range(width)]
    rows: Rows = []
    for _ in range(count):
        row: list[Value] = []
        for card in cards:
            v = rng.randrange(card)
            roll = rng.random()
            row.append(
                None if roll < 0.1 else float(v) if roll < 0.2 else str(v) if roll < 0.3 else v
            )
        rows.append(tuple(row))
    return rows + [rows[rng.randrange(count)] for _ in range(rng.randrange(2))]


def as_compared(rows: Rows, postgres: bool) -> list[tuple[str | None, ...]]:
    """The values as the database compares them: text in PostgreSQL; in SQLite numbers by
    value (1 = 1.0), a text never equal to a number."""
    if postgres:
        return [tuple(None if v is None else str(v) for v in row) for row in rows]
    return [
        tuple(
            None if v is None else f"n{float(v)!r}" if isinstance(v, (int, float)) else f"t{v}"
            for v in row
        )
        for row in rows
    ]


@pytest.fixture(params=["whole", "sampled"])
def budget(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """``sampled``: the codes of every row do not fit, so 7 rows are coded and the database
    checks what they leave."""
    if request.param == "sampled":
        monkeypatch.setattr(key_search, "REMOTE_CELLS", 1)
        monkeypatch.setattr(key_search, "SAMPLE_ROWS", 7)
    return str(request.param)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(0, 2**32 - 1),
    st.integers(1, 7),
    st.integers(1, 30),
    st.sampled_from(list(Nulls)),
    st.integers(1, 3),
    st.booleans(),
)
def test_sqlite_keys_match_brute_force(
    seed: int, width: int, count: int, nulls: Nulls, max_columns: int, sampled: bool
) -> None:
    rows = random_rows(random.Random(seed), width, count)
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        if sampled:
            patch.setattr(key_search, "REMOTE_CELLS", 1)
            patch.setattr(key_search, "SAMPLE_ROWS", 7)
        url = f"sqlite:///{Path(folder) / 'r.db'}"
        fill(url, "", width, rows)
        search = keys_in(DatabaseRegistry.from_options([f"db={url}"]), "t", max_columns, nulls)
    expected = reference_keys(as_compared(rows, postgres=False), range(width), max_columns, nulls)
    assert found(search) == expected


@pytest.fixture
def postgres_schema() -> Iterator[str]:
    if not POSTGRES_URL:
        pytest.skip("MCP_TOOLS_TEST_POSTGRES_URL is not set: no PostgreSQL server")
    schema = f"k_{uuid.uuid4().hex[:10]}"
    yield schema
    writer = sa.create_engine(postgres_url())
    with writer.begin() as connection:
        connection.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    writer.dispose()


@pytest.mark.parametrize("nulls", [Nulls.EQUAL, Nulls.DISTINCT])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_postgres_keys_match_brute_force(
    postgres_schema: str, budget: str, nulls: Nulls, seed: int
) -> None:
    rng = random.Random(seed)
    width, count = 6, 12 + 6 * seed
    rows = random_rows(rng, width, count)
    fill(postgres_url(), postgres_schema, width, rows)
    registry = DatabaseRegistry.from_options([f"db={postgres_url()}"])
    search = keys_in(registry, f"{postgres_schema}.t", 3, nulls)
    expected = reference_keys(as_compared(rows, postgres=True), range(width), 3, nulls)
    assert found(search) == expected
    if budget == "sampled":
        assert search.full_checks < search.candidates_checked or not expected


def wide_rows(width: int) -> Rows:
    """30 rows of ``width`` columns: ``c0`` numbers the rows, ``(c1, c2)`` is (row % 6,
    row // 6), every other column has 2 to 4 values (a few missing). By pigeonhole no other
    column or pair tells 30 rows apart (at most 6 x 4 = 24 value pairs), so the keys of up
    to two columns are exactly ``c0`` and ``(c1, c2)``."""
    rng = random.Random(11)
    cards = [2 + p % 3 for p in range(width)]
    return [
        (i, i % 6, i // 6, *(None if rng.random() < 0.05 else rng.randrange(c) for c in cards[3:]))
        for i in range(30)
    ]


def search_wide(tools: dict[str, Any], source: dict[str, Any], nulls: str) -> set[tuple[str, ...]]:
    result = call(tools["find_keys"], {**source, "maxColumns": 2, "nulls": nulls, "limit": 100})
    answer = result.structured
    assert answer is not None
    assert answer["page"]["nextOffset"] is None
    return {tuple(key["columns"]) for key in answer["keys"]}


@pytest.mark.parametrize("nulls", ["equal", "distinct"])
def test_a_wide_sqlite_table_is_searched_whole(tmp_path: Path, nulls: str) -> None:
    # 1,500 columns: 1,125,750 combinations of up to 2, which the old search refused
    width = 1_500
    rows = wide_rows(width)
    fill(f"sqlite:///{tmp_path / 'wide.db'}", "", width, rows)
    header = ",".join(f"c{p}" for p in range(width))
    lines = [",".join("" if v is None else str(v) for v in row) for row in rows]
    (tmp_path / "wide.csv").write_text("\n".join([header, *lines]) + "\n", encoding="utf-8")
    tools = tools_for(tmp_path, [f"db=sqlite:///{tmp_path / 'wide.db'}"])
    got = search_wide(tools, {"database": "db", "table": "t"}, nulls)
    assert got == {("c0",), ("c1", "c2")}
    assert search_wide(tools, {"path": "wide.csv"}, nulls) == got


@pytest.mark.parametrize("nulls", ["equal", "distinct"])
def test_a_wide_postgres_table_is_searched_whole(
    postgres_schema: str, nulls: str, tmp_path: Path
) -> None:
    width = 1_500
    fill(postgres_url(), postgres_schema, width, wide_rows(width))
    tools = tools_for(tmp_path, [f"db={postgres_url()}"])
    got = search_wide(tools, {"database": "db", "table": f"{postgres_schema}.t"}, nulls)
    assert got == {("c0",), ("c1", "c2")}
