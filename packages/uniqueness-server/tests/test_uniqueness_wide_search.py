"""The wide search's bulk paths stay exact on the sources that reach their edges.

A wide search (more than EXACT_DISTINCT_COLUMNS columns) decides known candidates in bulk,
codes columns in one or several passes and decides its last level of pairs as arrays. Each
test builds a real file reaching one edge (a column subset, columns coded in separate
passes, codes past 16 bits, typed Parquet columns) and compares with a reference computed
over the rows in numpy.
"""

from __future__ import annotations

import itertools
import os
import random
import tempfile
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_uniqueness_keys_oracle import Row, csv_text, search_rows
from uniqueness_server.engine import (
    DatabaseRegistry,
    Nulls,
    check_uniqueness,
    codes,
    find_keys,
    keys,
    open_file,
    stats,
)
from uniqueness_server.engine.stats import EXACT_DISTINCT_COLUMNS

POSTGRES_URL = os.environ.get("MCP_TOOLS_TEST_POSTGRES_URL")


def reference_keys(
    rows: Sequence[Row], universe: Sequence[int], max_size: int, nulls: Nulls
) -> set[frozenset[int]]:
    """Every minimal unique set of up to ``max_size`` of ``universe``, from the rows (numpy
    codes, so tables of tens of thousands of rows stay quick)."""
    coded: dict[int, tuple[np.ndarray, int]] = {}
    for p in universe:
        values = [row[p] for row in rows]
        index = {v: i for i, v in enumerate(dict.fromkeys(v for v in values if v is not None))}
        missing = len(index)
        coded[p] = (np.array([index.get(v, missing) for v in values], np.int64), missing)
    found: set[frozenset[int]] = set()
    for size in range(1, max_size + 1):
        for combo in itertools.combinations(universe, size):
            if any(k <= set(combo) for k in found):
                continue
            key = np.zeros(len(rows), dtype=np.int64)
            lost = np.zeros(len(rows), dtype=np.bool_)
            for p in combo:
                column, missing = coded[p]
                key = key * (missing + 1) + column
                lost |= column == missing
            if nulls is Nulls.DISTINCT:
                key = key[~lost]
            if len(np.unique(key)) == len(key):
                found.add(frozenset(combo))
    return found


@pytest.mark.parametrize("nulls", [Nulls.EQUAL, Nulls.DISTINCT])
def test_wide_search_of_a_column_subset_matches_the_reference(tmp_path: Path, nulls: Nulls) -> None:
    # the statistics pass codes only the named columns, so the codes hold no column below
    # the first named one (the pair checks once indexed every position up to the largest)
    rng = random.Random(11)
    width = EXACT_DISTINCT_COLUMNS + 8
    rows: list[Row] = [
        tuple(
            None if rng.random() < 0.05 else str(rng.randrange([2, 3, 5, 11, 300][k % 5]))
            for k in range(width)
        )
        for _ in range(300)
    ]
    universe = range(3, width - 2)
    _, got = search_rows(
        tmp_path / "wide.csv",
        width,
        rows,
        columns=[f"k{p}" for p in universe],
        max_columns=2,
        nulls=nulls,
    )
    assert got == reference_keys(rows, universe, 2, nulls)
    assert got  # pairs of the 300-value columns are keys here


def test_columns_coded_in_separate_passes_are_decided_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # too many cells to code the whole source: the near-unique columns the head cannot
    # settle are coded together at the first level, the low ones (listed first) in a second
    # pass at the pairs level, so pairs of near-unique columns are checked over codes that
    # hold none of the first positions
    monkeypatch.setattr(stats, "HEAD_ROWS", 1_000)  # a short head keeps the file small
    rng = random.Random(5)
    count, low, near = 1_500, 10, 70
    rows: list[Row] = [
        tuple(
            [str(rng.randrange(4)) for _ in range(low)]
            + [str(rng.randrange(10**12)) for _ in range(near)]
        )
        for _ in range(count)
    ]
    last = list(rows[-1])
    for k in range(low, low + near):
        last[k] = rows[k % 2][k]  # past the head: even columns repeat row 0, odd ones row 1
    rows[-1] = tuple(last)
    width = low + near
    limit = count * (near + 5)  # either group of columns fits, both together do not
    monkeypatch.setattr(codes, "MAX_CELLS", limit)
    monkeypatch.setattr(keys, "MAX_CELLS", limit)
    _, got = search_rows(tmp_path / "wide.csv", width, rows, max_columns=2)
    assert got == reference_keys(rows, range(width), 2, Nulls.EQUAL)
    assert frozenset({low, low + 1}) in got  # one repeats row 0, the other row 1
    assert frozenset({low, low + 2}) not in got


@pytest.mark.parametrize("nulls", [Nulls.EQUAL, Nulls.DISTINCT])
def test_codes_past_sixteen_bits_mixed_with_narrow_ones_stay_exact(
    tmp_path: Path, nulls: Nulls
) -> None:
    # k0..k3 have 65,535 to 70,000 values, so their codes (the missing one included) need 16
    # or 32 bits: k1 repeats each value 66,000 rows later, told apart by k4 except where k1
    # is missing; k2 has 65,535 values and some missing ones (missing is code 65,535); k3 has
    # exactly 65,536 values
    count = 70_000
    width = EXACT_DISTINCT_COLUMNS + 2
    rng = random.Random(3)
    rows: list[Row] = []
    for i in range(count):
        row: list[str | None] = [
            f"u{i}",
            None if i in (5, 9, 70_000 - 7) else f"v{i % 66_000}",
            None if i % 10_000 == 17 else f"w{i % 65_535}",
            f"x{i % 65_536}",
            str(i // 66_000),
        ]
        row += [str(rng.randrange([2, 3, 7, 300][k % 4])) for k in range(width - 5)]
        rows.append(tuple(row))
    _, got = search_rows(tmp_path / "wide.csv", width, rows, max_columns=2, nulls=nulls)
    assert got == reference_keys(rows, range(width), 2, nulls)
    assert frozenset({0}) in got
    # k1's missing values repeat among rows with k4 = 0 only under nulls=equal
    assert (frozenset({1, 4}) in got) is (nulls is Nulls.DISTINCT)


def test_typed_parquet_columns_measure_the_same_lengths_wide_and_narrow(tmp_path: Path) -> None:
    # the wide search measures value lengths from the coded pass, the narrow one with SQL:
    # integers, decimals, dates and text must average the same text lengths either way
    path = tmp_path / "typed.parquet"
    noise = [f"(i * {k + 3}) % {7 * k + 5} AS n{k}" for k in range(EXACT_DISTINCT_COLUMNS)]
    typed = [
        "i AS id",
        "i * 0.5 AS half",
        "DATE '2020-01-01' + i::INTEGER AS day",
        "'t' || i AS name",
    ]
    with duckdb.connect() as connection:
        connection.execute(
            f"COPY (SELECT {', '.join(noise + typed)} FROM range(500) t(i)) "
            f"TO '{path}' (FORMAT parquet)"
        )
    names = ["id", "half", "day", "name"]
    lengths: list[dict[tuple[str, ...], float]] = []
    for columns in (None, [*names, "n0"]):
        table = open_file(path, label="typed.parquet")
        try:
            search = find_keys(table, columns=columns, max_columns=1)
        finally:
            table.close()
        lengths.append({key.columns: key.average_length for key in search.keys})
    wide, narrow = lengths
    assert set(narrow) == {(name,) for name in names}
    assert {key: wide[key] for key in narrow} == narrow
    assert narrow[("day",)] == 10.0  # 2020-01-01
    assert narrow[("id",)] == round(sum(len(str(i)) for i in range(500)) / 500, 2)


def _declared_rows(seed: int) -> list[Row]:
    """Rows where (a, b) is a grid, (c, d) is unique (repeats removed) and e, f repeat."""
    rng = random.Random(seed)
    rows: list[Row] = []
    pairs: set[tuple[str, str]] = set()
    for i in range(60):
        c, d = str(rng.randrange(9)), str(rng.randrange(9))
        while (c, d) in pairs:
            c, d = str(rng.randrange(9)), str(rng.randrange(9))
        pairs.add((c, d))
        e = None if rng.random() < 0.1 else str(rng.randrange(40))
        rows.append((str(i % 6), str(i // 6), c, d, e, str(rng.randrange(3))))
    return rows


@pytest.fixture(params=["sqlite", "postgresql"])
def declared_table(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Any, str]]:
    """A database (registry, table name) whose table ``t`` declares PRIMARY KEY (a, b) and
    UNIQUE (c, d) over :func:`_declared_rows`."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'keys.db'}"
        schema = ""
    else:
        if not POSTGRES_URL:
            pytest.skip("MCP_TOOLS_TEST_POSTGRES_URL is not set: no PostgreSQL server")
        url = (
            sa.make_url(POSTGRES_URL)
            .set(drivername="postgresql+psycopg")
            .render_as_string(hide_password=False)
        )
        schema = f"r_{uuid.uuid4().hex[:10]}"
    writer = sa.create_engine(url)
    prefix = f'"{schema}".' if schema else ""
    marker = "%s" if writer.dialect.name == "postgresql" else "?"
    with writer.begin() as connection:
        if schema:
            connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        connection.exec_driver_sql(
            f"CREATE TABLE {prefix}t (a TEXT NOT NULL, b TEXT NOT NULL, c TEXT NOT NULL, "
            "d TEXT NOT NULL, e TEXT, f TEXT, PRIMARY KEY (a, b), UNIQUE (c, d))"
        )
        for row in _declared_rows(seed=4):
            connection.exec_driver_sql(
                f"INSERT INTO {prefix}t VALUES ({', '.join([marker] * 6)})", row
            )
    try:
        yield DatabaseRegistry.from_options([f"db={url}"]), f"{schema}.t" if schema else "t"
    finally:
        if schema:
            with writer.begin() as connection:
                connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        writer.dispose()


@pytest.mark.parametrize("nulls", [Nulls.EQUAL, Nulls.DISTINCT])
@pytest.mark.parametrize("max_columns", [1, 2, 3, 4])
def test_declared_keys_recorded_before_the_search_keep_it_exact(
    declared_table: tuple[Any, str], nulls: Nulls, max_columns: int
) -> None:
    registry, name = declared_table
    table = registry.open("db", table=name)
    try:
        search = find_keys(table, max_columns=max_columns, nulls=nulls)
    finally:
        table.close()
    rows = _declared_rows(seed=4)
    expected = reference_keys(rows, range(6), max_columns, nulls)
    letters = "abcdef"
    got = {frozenset(letters.index(c) for c in key.columns) for key in search.keys}
    assert got == expected
    basis = {key.columns: key.basis for key in search.keys}
    if max_columns >= 2:
        assert basis[("a", "b")] == basis[("c", "d")] == "declared"


@st.composite
def wide_tables(draw: st.DrawFn) -> tuple[int, list[Row], list[int]]:
    """A table a little wider than EXACT_DISTINCT_COLUMNS, of few short values (some
    missing), and a searched subset of more than EXACT_DISTINCT_COLUMNS of its columns."""
    width = draw(st.integers(EXACT_DISTINCT_COLUMNS + 1, EXACT_DISTINCT_COLUMNS + 5))
    count = draw(st.integers(1, 40))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = random.Random(seed)
    cards = [rng.choice([1, 2, 3, 6, 40]) for _ in range(width)]
    rows: list[Row] = []
    for _ in range(count):
        row = [None if rng.random() < 0.08 else str(rng.randrange(c)) for c in cards]
        row[0] = row[0] or "z"  # a row of only missing values would be a blank line
        rows.append(tuple(row))
    rows += [rows[rng.randrange(count)] for _ in range(draw(st.integers(0, 2)))]
    left_out = draw(st.sets(st.integers(0, width - 1), max_size=width - 1 - EXACT_DISTINCT_COLUMNS))
    return width, rows, [p for p in range(width) if p not in left_out]


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wide_tables(), st.sampled_from(list(Nulls)), st.integers(1, 3))
def test_wide_find_keys_matches_the_reference(
    table_rows: tuple[int, list[Row], list[int]], nulls: Nulls, max_columns: int
) -> None:
    width, rows, universe = table_rows
    with tempfile.TemporaryDirectory() as folder:
        _, got = search_rows(
            Path(folder) / "wide.csv",
            width,
            rows,
            columns=[f"k{p}" for p in universe],
            max_columns=max_columns,
            nulls=nulls,
        )
    assert got == reference_keys(rows, universe, max_columns, nulls)


@pytest.mark.parametrize("nulls", [Nulls.EQUAL, Nulls.DISTINCT])
def test_better_options_decided_over_codes_match_the_reference(
    tmp_path: Path, nulls: Nulls
) -> None:
    # the check records the named set as unique, then searches every size below it: the 66
    # pairs of its 12 repeating columns are enough to code them (the first two columns of
    # the file are not named, so the codes hold no position below 2), and each later level
    # uses the codes
    width, count = 15, 3_000
    rng = random.Random(1)
    cards = [rng.choice([2, 3, 5, 20, 60]) for _ in range(width - 1)]
    rows: list[Row] = [
        (*(None if rng.random() < 0.03 else str(rng.randrange(c)) for c in cards), str(i))
        for i in range(count)
    ]
    path = tmp_path / "check.csv"
    path.write_text(csv_text(width, rows), encoding="utf-8")
    named = range(2, width)
    table = open_file(path, label="check.csv")
    try:
        result = check_uniqueness(table, [f"k{p}" for p in named], nulls=nulls)
    finally:
        table.close()
    assert result.unique
    got = {frozenset(int(name[1:]) for name in option) for option in result.better_options}
    expected = reference_keys(rows, named, len(named) - 1, nulls)
    assert got == expected
    assert frozenset({width - 1}) in got


@pytest.mark.parametrize("count", [0, 1, 2])
@pytest.mark.parametrize("nulls", [Nulls.EQUAL, Nulls.DISTINCT])
def test_wide_sources_of_no_one_or_two_rows(tmp_path: Path, count: int, nulls: Nulls) -> None:
    # coded whole with no group of rows at all, or one: every column of one row is a key;
    # two equal rows have none; k1 is missing everywhere
    width = EXACT_DISTINCT_COLUMNS + 3
    row: Row = tuple(None if p == 1 else str(p % 4) for p in range(width))
    rows = [row] * count
    search, got = search_rows(tmp_path / "wide.csv", width, rows, max_columns=2, nulls=nulls)
    assert search.rows == count
    assert got == (reference_keys(rows, range(width), 2, nulls) if count else set())
    if count == 1:
        assert len(got) == width
