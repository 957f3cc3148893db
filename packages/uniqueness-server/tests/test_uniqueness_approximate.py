"""Approximate mode of ``uniqueness_check`` on real files, SQLite and PostgreSQL.

Every source holds the same generated rows (``ROWS`` of them, more than the sketch keeps):

- ``id``: unique;
- ``grp``: seven values, so the first rows already repeat;
- ``late``: unique in the first 20,000 rows, then 180,000 rows over 150,000 values;
- ``pair``: unique except that the last row repeats the one before it;
- ``tag``: unique, but missing on every tenth row (unique only under ``nulls=distinct``).
"""

from __future__ import annotations

import math
import os
import sqlite3
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
import sqlalchemy as sa
from mcp_common import ErrorCode, ToolError
from uniqueness_server.engine import DatabaseRegistry, approximate_check
from uniqueness_server.engine.approximate import SKETCH_KEYS, kmv_bounds
from uniqueness_testkit import call, tools_for

POSTGRES_URL = os.environ.get("MCP_TOOLS_TEST_POSTGRES_URL")
ROWS = 200_000
TRUE_DISTINCT = {"id": ROWS, "grp": 7, "late": 170_000, "pair": ROWS - 1}
# one SELECT over integers i = 0..ROWS-1 that DuckDB and PostgreSQL both run
SELECT = (
    "SELECT i AS id, i % 7 AS grp, "
    "CASE WHEN i < 20000 THEN i ELSE 20000 + (i - 20000) % 150000 END AS late, "
    f"CASE WHEN i = {ROWS - 1} THEN i - 1 ELSE i END AS pair, "
    "CASE WHEN i % 10 = 0 THEN NULL ELSE i END AS tag"
)


def sqlite_rows() -> Iterator[tuple[Any, ...]]:
    for i in range(ROWS):
        yield (i, i % 7, i if i < 20000 else 20000 + (i - 20000) % 150000,
               i - 1 if i == ROWS - 1 else i, None if i % 10 == 0 else i)  # fmt: skip


@pytest.fixture(scope="module", params=["csv", "parquet", "sqlite", "postgresql"])
def source(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(the tools, the source arguments) for one kind of source holding the rows above."""
    root = tmp_path_factory.mktemp("approximate")
    kind = request.param
    if kind in ("csv", "parquet"):
        path = root / f"rows.{kind}"
        with duckdb.connect() as connection:
            connection.execute(
                f"COPY ({SELECT} FROM range({ROWS}) t(i)) TO '{path}' (FORMAT {kind})"
            )
        yield tools_for(root), {"path": path.name}
        return
    if kind == "sqlite":
        path = root / "rows.db"
        with sqlite3.connect(path) as connection:
            connection.execute("CREATE TABLE t (id, grp, late, pair, tag)")
            connection.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?)", sqlite_rows())
        connection.close()
        yield tools_for(root, [f"db=sqlite:///{path}"]), {"database": "db", "table": "t"}
        return
    if not POSTGRES_URL:
        pytest.skip("MCP_TOOLS_TEST_POSTGRES_URL is not set: no PostgreSQL server")
    url = sa.make_url(POSTGRES_URL).set(drivername="postgresql+psycopg")
    engine = sa.create_engine(url)
    schema = f"a_{uuid.uuid4().hex[:10]}"
    try:
        with engine.begin() as connection:
            connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
            # psycopg reads a lone % as a placeholder
            connection.exec_driver_sql(
                f'CREATE TABLE "{schema}".t AS {SELECT.replace("%", "%%")} '
                f"FROM generate_series(0, {ROWS - 1}) i"
            )
        yield (
            tools_for(root, [f"db={url.render_as_string(hide_password=False)}"]),
            {"database": "db", "table": f"{schema}.t"},
        )
    finally:
        with engine.begin() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        engine.dispose()


def check(source: tuple[dict[str, Any], dict[str, Any]], **arguments: Any) -> dict[str, Any]:
    tools, where = source
    result = call(tools["uniqueness_check"], {**where, **arguments})
    assert not result.is_error, result.text
    assert result.structured is not None
    return {**result.structured, "markdown": result.text}


def exact_and_approximate(
    source: tuple[dict[str, Any], dict[str, Any]], **arguments: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    exact = check(source, betterOptions=False, **arguments)
    approximate = check(source, approximate=True, **arguments)
    return exact, approximate


def same_answer(exact: dict[str, Any], approximate: dict[str, Any]) -> None:
    """The approximate answer is the exact one, labelled with how it was reached."""
    assert approximate["exact"] is True
    assert approximate["estimate"] is None
    assert approximate["method"].endswith("checked exactly")
    assert exact["method"] is None
    skip = {"method", "markdown", "minimal", "betterOptions"}
    assert {k: v for k, v in approximate.items() if k not in skip} == {
        k: v for k, v in exact.items() if k not in skip
    }


@pytest.mark.parametrize("column", ["grp", "late"])
def test_duplicates_are_confirmed_exactly_with_the_same_evidence(
    source: tuple[dict[str, Any], dict[str, Any]], column: str
) -> None:
    exact, approximate = exact_and_approximate(source, columns=[column])
    assert exact["verdict"] == "not unique"
    assert exact["distinctKeys"] == TRUE_DISTINCT[column]
    same_answer(exact, approximate)
    if column == "late" and source[1].get("table") == "t":  # SQLite: a Theta sketch's bound
        assert approximate["method"].startswith("the sketch estimates at most")
    assert "Approximate mode: " in approximate["markdown"]
    assert "NOT unique" in approximate["markdown"]


def test_duplicates_in_the_first_rows_are_found_by_the_head_sample(
    source: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    approximate = check(source, columns=["grp"], approximate=True)
    assert approximate["method"].startswith("the first 20,000 rows already repeat")


def test_a_unique_key_is_probably_unique_with_bounds_holding_the_true_count(
    source: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    answer = check(source, columns=["id"], approximate=True)
    assert (answer["verdict"], answer["unique"], answer["exact"]) == (
        "probably unique",
        True,
        False,
    )
    estimate = answer["estimate"]
    assert estimate["lowerBound"] <= ROWS <= estimate["upperBound"] == ROWS
    assert estimate["lowerBound"] <= estimate["distinctKeys"] <= ROWS
    # 3 sigma of a 65,536-key sketch: about 1.2 % either side
    assert estimate["lowerBound"] > ROWS * 0.97
    assert answer["rows"] == ROWS
    assert answer["minimal"] is None
    assert answer["betterOptions"] == []
    assert "sketch" in answer["method"]
    text = answer["markdown"]
    assert "# id: probably unique" in text
    assert estimate["confidence"] == "99.7 % (3 sigma)"
    assert f"at 99.7 % (3 sigma) confidence between {estimate['lowerBound']:,} and {ROWS:,}" in text
    assert "without `approximate` for the exact answer" in text


def test_one_late_duplicate_is_either_found_or_inside_the_bounds(
    source: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    exact, approximate = exact_and_approximate(source, columns=["pair"])
    assert exact["duplicateGroups"] == 1
    if approximate["exact"]:
        same_answer(exact, approximate)
    else:
        estimate = approximate["estimate"]
        assert estimate["lowerBound"] <= TRUE_DISTINCT["pair"] <= estimate["upperBound"]


def test_null_semantics_are_those_of_the_exact_check(
    source: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    exact, approximate = exact_and_approximate(source, columns=["tag"], nulls="equal")
    assert exact["verdict"] == "not unique"  # the missing values collide
    same_answer(exact, approximate)
    exact = check(source, columns=["tag"], nulls="distinct", betterOptions=False)
    approximate = check(source, columns=["tag"], nulls="distinct", approximate=True)
    assert exact["verdict"] == "unique"
    assert exact["distinctKeys"] == ROWS  # each row with a missing value is its own key
    assert approximate["verdict"] == "probably unique"
    assert approximate["rowsWithMissing"] == exact["rowsWithMissing"] == ROWS // 10
    estimate = approximate["estimate"]
    assert estimate["lowerBound"] <= ROWS <= estimate["upperBound"]
    assert estimate["lowerBound"] > ROWS // 10 + SKETCH_KEYS


def test_a_small_source_is_checked_exactly(tmp_path: Path) -> None:
    (tmp_path / "small.csv").write_text("id,v\n" + "".join(f"{i},x\n" for i in range(500)))
    tools = tools_for(tmp_path)
    answer = call(
        tools["uniqueness_check"], {"path": "small.csv", "columns": ["id"], "approximate": True}
    )
    assert answer.structured is not None
    assert answer.structured["verdict"] == "unique"
    assert answer.structured["exact"] is True
    assert answer.structured["method"].startswith("all 500 comparable rows fit in the sketch")


def test_better_options_with_approximate_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "small.csv").write_text("id,v\n1,x\n2,y\n")
    tools = tools_for(tmp_path)
    with pytest.raises(ToolError) as caught:
        call(
            tools["uniqueness_check"],
            {"path": "small.csv", "columns": ["id", "v"], "approximate": True,
             "betterOptions": True},
        )  # fmt: skip
    assert caught.value.code is ErrorCode.INVALID_ARGUMENT
    assert "betterOptions needs the exact check" in str(caught.value)
    assert "set approximate to false" in str(caught.value)
    # the default betterOptions, or false, goes with approximate
    answer = call(
        tools["uniqueness_check"],
        {"path": "small.csv", "columns": ["id", "v"], "approximate": True, "betterOptions": False},
    )
    assert answer.structured is not None
    assert answer.structured["unique"] is True


@pytest.mark.parametrize("seed", range(5))
def test_kmv_bounds_hold_the_true_count_of_generated_key_sets(seed: int) -> None:
    """The bound formula on DuckDB's own hashes: five sets of distinct keys of other sizes."""
    distinct = 100_000 + 37_000 * seed
    with duckdb.connect() as connection:
        (hashes,) = connection.execute(
            f"SELECT min(hash(i, {seed}), {SKETCH_KEYS}) FROM range({distinct}) t(i)"
        ).fetchone() or (None,)
    theta = sorted(hashes)[-1] / 2.0**64
    estimate, low, high = kmv_bounds(SKETCH_KEYS - 1, theta)
    assert low <= distinct <= high
    assert math.isclose(estimate, distinct, rel_tol=0.012)
    assert (high - low) / estimate < 0.025


def test_a_large_file_is_sketched_from_the_lowest_sixteenth_of_the_hashes(tmp_path: Path) -> None:
    """1.2 million rows: the pre-filtered pass alone fills the sketch (no second pass)."""
    rows = 1_200_000
    path = tmp_path / "large.parquet"
    with duckdb.connect() as connection:
        connection.execute(
            f"COPY (SELECT i AS id, CASE WHEN i < 600000 THEN i ELSE i - 500000 END AS half "
            f"FROM range({rows}) t(i)) TO '{path}' (FORMAT parquet)"
        )
    tools = tools_for(tmp_path)
    answer = call(
        tools["uniqueness_check"], {"path": "large.parquet", "columns": ["id"], "approximate": True}
    ).structured
    assert answer is not None
    assert answer["verdict"] == "probably unique"
    assert answer["estimate"]["lowerBound"] <= rows <= answer["estimate"]["upperBound"]
    assert answer["estimate"]["lowerBound"] > rows * 0.98
    exact = call(
        tools["uniqueness_check"], {"path": "large.parquet", "columns": ["half"]}
    ).structured
    approximate = call(
        tools["uniqueness_check"],
        {"path": "large.parquet", "columns": ["half"], "approximate": True},
    ).structured
    assert exact is not None
    assert approximate is not None
    assert exact["duplicateGroups"] == 500_000
    same_answer({**exact, "markdown": ""}, {**approximate, "markdown": ""})


def test_a_streamed_sqlite_sketch_stops_at_the_statement_timeout(tmp_path: Path) -> None:
    """300 million generated rows stream through the Theta sketch until the 0.5 s limit."""
    path = tmp_path / "empty.db"
    sqlite3.connect(path).close()
    registry = DatabaseRegistry.from_options([f"db=sqlite:///{path}?statement_timeout=500ms"])
    slow = (
        "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 300000000) "
        "SELECT i FROM r"
    )
    table = registry.open("db", query=slow)
    started = time.monotonic()
    try:
        with pytest.raises(ToolError, match=r"longer than the statement timeout of 0\.5 s"):
            approximate_check(table, ["i"])
    finally:
        table.close()
    assert time.monotonic() - started < 15
