"""find_keys and better options are exact: compared with brute force on generated tables."""

from __future__ import annotations

import csv
import io
import itertools
import operator
import random
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from mcp_common import ToolCancelledError, ToolContext
from uniqueness_server.engine import Nulls, check_uniqueness, codes, find_keys, keys, open_file
from uniqueness_server.engine.backends.embedded import SourceCache
from uniqueness_server.engine.check import SUBSET_SAMPLE_ROWS
from uniqueness_server.engine.model import KeySearch
from uniqueness_server.engine.stats import EXACT_DISTINCT_COLUMNS

Row = tuple[str | None, ...]


def unique(rows: Sequence[Row], columns: Sequence[int], nulls: Nulls) -> bool:
    return _Columns(rows).unique(columns, nulls)


class _Columns:
    """The rows by column, for a plain-Python reference quick enough for tables of thousands
    of rows and hundreds of column sets (a set of tuples per set of columns took seconds).

    A set of two or more columns is told apart by one integer per row: each column's values
    numbered (the missing value one of them) and combined in mixed radix, equal exactly when
    every column's value is."""

    def __init__(self, rows: Sequence[Row]) -> None:
        self.count = len(rows)
        self.columns = list(zip(*rows, strict=True))
        self._numbered: dict[int, tuple[list[int], int]] = {}
        self._missing: dict[int, frozenset[int]] = {}

    def numbered(self, c: int) -> tuple[list[int], int]:
        if c not in self._numbered:
            numbers = dict(zip(dict.fromkeys(self.columns[c]), itertools.count()))
            self._numbered[c] = (list(map(numbers.__getitem__, self.columns[c])), len(numbers))
        return self._numbered[c]

    def missing(self, c: int) -> frozenset[int]:
        if c not in self._missing:
            column = self.columns[c]
            self._missing[c] = frozenset(i for i, v in enumerate(column) if v is None)
        return self._missing[c]

    def unique(self, columns: Sequence[int], nulls: Nulls) -> bool:
        if self.count < 2:
            return True
        keys: list[object]
        if len(columns) == 1:
            keys = list(self.columns[columns[0]])
        else:
            keys = [0] * self.count
            for c in columns:
                values, size = self.numbered(c)
                keys = list(
                    map(operator.add, map(operator.mul, keys, itertools.repeat(size)), values)
                )
        if nulls is Nulls.DISTINCT:
            missing = frozenset().union(*(self.missing(c) for c in columns))
            if missing:
                keys = [key for i, key in enumerate(keys) if i not in missing]
        return len(set(keys)) == len(keys)


def brute_force_keys(
    rows: Sequence[Row], universe: Sequence[int], max_size: int, nulls: Nulls
) -> set[frozenset[int]]:
    table = _Columns(rows)
    found: set[frozenset[int]] = set()
    for size in range(1, max_size + 1):
        for combo in itertools.combinations(universe, size):
            if any(k <= set(combo) for k in found):
                continue
            if table.unique(combo, nulls):
                found.add(frozenset(combo))
    return found


def csv_text(width: int, rows: Sequence[Row]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([f"k{i}" for i in range(width)])
    for row in rows:
        writer.writerow(["" if v is None else v for v in row])
    return buffer.getvalue()


def search_rows(
    path: Path, width: int, rows: Sequence[Row], **options: Any
) -> tuple[KeySearch, set[frozenset[int]]]:
    """``find_keys`` with ``options`` over ``rows`` written to ``path`` as CSV (columns ``k0``,
    ``k1``, ...): the search and its keys as sets of column numbers."""
    path.write_text(csv_text(width, rows), encoding="utf-8")
    table = open_file(path, label=path.name)
    try:
        search = find_keys(table, **options)
    finally:
        table.close()
    return search, {frozenset(int(name[1:]) for name in key.columns) for key in search.keys}


@st.composite
def tables(draw: st.DrawFn) -> tuple[int, list[Row]]:
    width = draw(st.integers(2, 5))
    cell = st.one_of(st.sampled_from(["a", "b", "c", "01", "1"]), st.none())
    rows = draw(st.lists(st.tuples(*[cell] * width), min_size=1, max_size=14))
    # a row of only missing values is a blank line in CSV; keep one value present
    rows = [r if any(v is not None for v in r) else ("z", *r[1:]) for r in rows]
    return width, rows


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.sampled_from(list(Nulls)), st.integers(1, 4))
@example(
    table_rows=(4, [("01", "a", "a", None), ("01", "a", "b", None), ("1", None, "a", None)]),
    nulls=Nulls.DISTINCT,
    max_columns=2,
)
def test_find_keys_matches_brute_force(
    table_rows: tuple[int, list[Row]], nulls: Nulls, max_columns: int
) -> None:
    width, rows = table_rows
    with tempfile.TemporaryDirectory() as folder:
        search, got = search_rows(
            Path(folder) / "t.csv", width, rows, max_columns=max_columns, nulls=nulls
        )
    expected = brute_force_keys(rows, range(width), max_columns, nulls)
    assert got == expected
    # ranked by plausibility first, then fewest columns: a column missing everywhere is a
    # key alone under nulls=distinct and may score below a pair (0.36 against 0.378)
    order = [(-k.score, len(k.columns)) for k in search.keys]
    assert order == sorted(order)
    # the report says "N combinations decided, M of them by a full scan"
    assert search.full_checks <= search.candidates_checked


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.sampled_from(list(Nulls)), st.integers(1, 4))
def test_find_keys_on_a_kept_source_matches_brute_force(
    table_rows: tuple[int, list[Row]], nulls: Nulls, max_columns: int
) -> None:
    # a small file kept between calls is searched from the codes kept with it (made by the
    # first call, shared read-only by the next): the first and a warm call both stay exact
    width, rows = table_rows
    expected = brute_force_keys(rows, range(width), max_columns, nulls)
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        patch.setattr(SourceCache, "RACY_NANOSECONDS", 0)
        path = Path(folder) / "t.csv"
        path.write_text(csv_text(width, rows), encoding="utf-8")
        for _ in range(2):
            table = open_file(path, label=path.name)
            try:
                kept = getattr(table.backend, "cached", None)
                assert kept is not None
                search = find_keys(table, max_columns=max_columns, nulls=nulls)
                assert kept.codes is not None
            finally:
                table.close()
            assert {frozenset(int(n[1:]) for n in key.columns) for key in search.keys} == expected


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.sampled_from(list(Nulls)))
def test_better_options_match_brute_force(table_rows: tuple[int, list[Row]], nulls: Nulls) -> None:
    width, rows = table_rows
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.csv"
        path.write_text(csv_text(width, rows), encoding="utf-8")
        table = open_file(path, label="t.csv")
        try:
            result = check_uniqueness(table, [f"k{i}" for i in range(width)], nulls=nulls)
        finally:
            table.close()
    assert result.unique == unique(rows, range(width), nulls)
    if result.unique:
        expected = brute_force_keys(rows, range(width), width - 1, nulls)
        got = {frozenset(int(name[1:]) for name in option) for option in result.better_options}
        assert got == expected
        assert result.minimal == (not expected)


# unique but for one late duplicate: the last row repeats the first's 0
_LATE_REPEAT = "CASE WHEN i = getvariable('last') THEN 0 ELSE i END"


def copy_range(path: Path, rows: int, columns: str) -> None:
    """Write ``columns`` (SQL over ``i``, 0 to ``rows`` - 1; ``getvariable('last')`` is the
    last ``i``) for every ``i`` to ``path`` as CSV with a header."""
    with duckdb.connect() as connection:
        connection.execute(f"SET VARIABLE last = {rows - 1}")
        connection.execute(
            f"COPY (SELECT {columns} FROM range({rows}) t(i)) TO '{path}' (HEADER true)"
        )


def test_large_table_uses_the_sample_and_stays_exact(tmp_path: Path) -> None:
    rows = 3 * SUBSET_SAMPLE_ROWS
    path = tmp_path / "big.csv"
    # a: unique; (b, c): unique together; d: unique but for one late duplicate (rows 1 and
    # last) that a sample is unlikely to hold, told apart by b or c; e: constant
    copy_range(path, rows, f"i AS a, i % 1000 AS b, i // 1000 AS c, {_LATE_REPEAT} AS d, 'x' AS e")
    table = open_file(path, label="big.csv")
    try:
        search = find_keys(table, max_columns=3)
    finally:
        table.close()
    assert {k.columns for k in search.keys} == {("a",), ("b", "c"), ("b", "d"), ("c", "d")}
    # sampled row pairs ruled out most of the 25 combinations before any check
    assert search.full_checks < (5 + 10 + 10) // 2  # sets of 1, 2 and 3 of 5 columns


def test_better_options_on_a_large_file_stay_exact(tmp_path: Path) -> None:
    rows = 3 * SUBSET_SAMPLE_ROWS
    path = tmp_path / "big.csv"
    copy_range(path, rows, f"i % 1000 AS b, i // 1000 AS c, {_LATE_REPEAT} AS d, i % 7 AS e")
    table = open_file(path, label="big.csv")
    try:
        result = check_uniqueness(table, ["b", "c", "d", "e"])
    finally:
        table.close()
    assert result.unique
    assert {frozenset(o) for o in result.better_options} == {
        frozenset({"b", "c"}),
        frozenset({"b", "d"}),
        frozenset({"c", "d"}),
        frozenset({"d", "e"}),  # d's one duplicate pair differs in e
    }


def test_cancelling_find_keys_interrupts_the_search(tmp_path: Path) -> None:
    path = tmp_path / "wide.csv"
    noise = ", ".join(f"hash(i * {k + 3}) % {50 + 400 * k} AS n{k}" for k in range(16))
    copy_range(path, 300_000, noise)
    context = ToolContext()
    table = open_file(path, label="wide.csv", context=context)
    threading.Timer(0.5, context.cancel).start()
    started = time.monotonic()
    try:
        with pytest.raises(ToolCancelledError):
            find_keys(table, max_columns=4, context=context)
    finally:
        table.close()
    assert time.monotonic() - started < 10


def _wide_rows(width: int, count: int, seed: int) -> list[Row]:
    """Columns of varied cardinality (2 up to near-unique), some with missing values, and a
    late duplicate in one near-unique column so only a full check can see it."""
    rng = random.Random(seed)
    rows: list[Row] = []
    for _ in range(count):
        row: list[str | None] = []
        for k in range(width):
            card = [2, 5, 30, 200, 5000, 10**9][k % 6]
            value = str(rng.randrange(card))
            row.append(None if k % 7 == 3 and rng.random() < 0.05 else value)
        rows.append(tuple(row))
    late = list(rows[-1])
    late[5] = rows[0][5]  # column k5 (near-unique) repeats only at the very end
    rows[-1] = tuple(late)
    return rows


@pytest.mark.parametrize(
    ("count", "nulls"),
    [(400, Nulls.EQUAL), (400, Nulls.DISTINCT), (21_000, Nulls.EQUAL), (21_000, Nulls.DISTINCT)],
)
def test_wide_tables_stay_exact(tmp_path: Path, count: int, nulls: Nulls) -> None:
    # wider than EXACT_DISTINCT_COLUMNS: head-sample bounds and vectorised code checks decide
    # (and, past HEAD_ROWS rows, the head is only the first part of the file)
    width = EXACT_DISTINCT_COLUMNS + 6
    rows = _wide_rows(width, count, seed=count)
    search, got = search_rows(tmp_path / "wide.csv", width, rows, max_columns=2, nulls=nulls)
    expected = brute_force_keys(rows, range(width), 2, nulls)
    assert got == expected
    assert ("k5",) not in {k.columns for k in search.keys}


def test_wide_source_too_large_to_code_whole_still_decides_single_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # too many cells for the statistics pass to code every column, so distinct counts are
    # estimates; the head leaves the near-unique columns open, and those (64 or more, few
    # enough cells) are coded and decided together
    rng = random.Random(5)
    count, near_unique, low = 21_000, 80, 30
    rows: list[Row] = [
        tuple(
            [str(rng.randrange(10**12)) for _ in range(near_unique)]
            + [str(rng.randrange(4)) for _ in range(low)]
        )
        for _ in range(count)
    ]
    late = list(rows[-1])
    late[0] = rows[0][0]  # k0 repeats only past the head
    rows[-1] = tuple(late)
    width = near_unique + low
    path = tmp_path / "wide.csv"
    path.write_text(csv_text(width, rows), encoding="utf-8")
    limit = count * (near_unique + 5)  # the open columns fit, the whole source does not
    monkeypatch.setattr(codes, "MAX_CELLS", limit)
    monkeypatch.setattr(keys, "MAX_CELLS", limit)
    table = open_file(path, label="wide.csv")
    try:
        search = find_keys(table, max_columns=1)
    finally:
        table.close()
    got = {frozenset(int(name[1:]) for name in key.columns) for key in search.keys}
    assert got == brute_force_keys(rows, range(width), 1, Nulls.EQUAL)
    assert frozenset({0}) not in got


def test_keys_are_ranked_by_plausibility_with_reasons(tmp_path: Path) -> None:
    # (sku, unit_price) is unique only because prices are nearly all different
    lines = ["order_number,line_no,sku,unit_price,note"]
    for order in range(40):
        for line in range(1, 4):
            sku = f"SKU-{(order * 3 + line) % 25:04d}"
            price = f"{(order * 37 + line * 101) % 997 + 0.25:.2f}"
            lines.append(f"SO-{order:05d},{line},{sku},{price},note {order} {line} of the order")
    path = tmp_path / "lines.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    table = open_file(path, label="lines.csv")
    try:
        every = find_keys(table, max_columns=2)
        plausible = find_keys(table, max_columns=2, plausible_only=True)
    finally:
        table.close()
    assert every.keys[0].columns == ("order_number", "line_no")
    assert every.keys[0].confidence == "high"
    price_keys = [k for k in every.keys if "unit_price" in k.columns]
    assert price_keys
    assert all(k.confidence == "low" for k in price_keys)
    assert any("unit_price holds numbers" in r for r in price_keys[0].reasons)
    note_keys = [k for k in every.keys if k.columns == ("note",)]
    assert note_keys[0].confidence == "low"
    assert all(k.confidence != "low" for k in plausible.keys)
    assert plausible.implausible_left_out == len(every.keys) - len(plausible.keys) > 0
    assert ("order_number", "line_no") in {k.columns for k in plausible.keys}


def test_a_column_nearly_unique_alone_halves_the_score_of_a_wider_key(tmp_path: Path) -> None:
    # serial repeats once in 20 rows: (serial, batch) is unique because batch tells the one
    # repeat apart, which is chance; id alone is a key and carries no such reason
    lines = ["id,serial,batch"] + [
        f"{i},{min(i, 19)},{'B' if i == 20 else 'A'}" for i in range(1, 21)
    ]
    path = tmp_path / "parts.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    table = open_file(path, label="parts.csv")
    try:
        search = find_keys(table, max_columns=2)
    finally:
        table.close()
    by_columns = {k.columns: k for k in search.keys}
    assert set(by_columns) == {("id",), ("serial", "batch")}
    assert by_columns["id",].reasons == ("id is an integer named like an identifier",)
    assert by_columns["id",].score == 1.0
    wider = by_columns["serial", "batch"]
    assert wider.reasons == (
        "serial is an integer named like an identifier",
        "serial is nearly unique on its own (95% distinct)",
        "batch is short text",
    )
    assert wider.score == round(1.0 * 0.5 * 0.6 * 0.9, 3)
    assert wider.confidence == "low"
