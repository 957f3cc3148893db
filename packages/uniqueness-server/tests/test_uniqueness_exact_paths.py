"""The fast paths answer exactly what brute force over the rows answers.

Wide searches decide column pairs in bulk from integer codes (counting bounds, samples,
colliding row pairs of a pivot column, a sort when the pivot collides too often), and the
check reads totals and a page of duplicate groups from one aggregation pass; each is compared
here with a plain Python reference on generated tables that reach every stage.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import pytest
from test_uniqueness_keys_oracle import Row, brute_force_keys, csv_text, search_rows
from uniqueness_server.engine import Nulls, check_uniqueness, codes, find_keys, open_file
from uniqueness_server.engine.check import ROWS_PER_GROUP
from uniqueness_server.engine.codes import SAMPLE_ROWS
from uniqueness_server.engine.stats import EXACT_DISTINCT_COLUMNS, column_stats


def _pair_paths_table(seed: int) -> tuple[int, list[Row]]:
    """A table wider than EXACT_DISTINCT_COLUMNS, longer than two samples, whose pairs need
    every stage: (x, y) is a full grid (unique, but x and y each repeat so often that only a
    sort decides it), y2 is y with one late repeat, z is unique but for one pair of rows,
    and the rest are noise of 2 to 5,000 values with some missing values."""
    rng = random.Random(seed)
    count = 3 * SAMPLE_ROWS[-1] // 2
    side = int(count**0.5) + 1
    width = EXACT_DISTINCT_COLUMNS + 4
    rows: list[Row] = []
    for i in range(count):
        x, y = i % side, i // side
        row: list[str | None] = [str(x), str(y), str(y), str(i)]
        for k in range(width - 4):
            card = [2, 7, 60, 400, 5000][k % 5]
            value = str(rng.randrange(card))
            row.append(None if k % 3 == 1 and rng.random() < 0.04 else value)
        rows.append(tuple(row))
    last = list(rows[-1])
    last[2] = rows[-1 - side][2]  # y2 repeats once, in rows that also share x
    last[3] = rows[0][3]  # z repeats once, between the first and the last row
    rows[-1] = tuple(last)
    return width, rows


@pytest.mark.parametrize("nulls", [Nulls.EQUAL, Nulls.DISTINCT])
def test_wide_pair_search_matches_brute_force(tmp_path: Path, nulls: Nulls) -> None:
    width, rows = _pair_paths_table(seed=len(nulls.value))
    _, got = search_rows(tmp_path / "wide.csv", width, rows, max_columns=2, nulls=nulls)
    expected = brute_force_keys(rows, range(width), 2, nulls)
    assert got == expected
    assert frozenset({0, 1}) in got  # the grid: decided by a sort of the combined codes
    assert frozenset({0, 2}) not in got  # its one repeat shares x
    assert frozenset({3}) not in got


def test_wide_source_too_large_to_code_falls_back_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # past the cell budget the search uses the head-sample bounds and SQL checks instead
    monkeypatch.setattr(codes, "MAX_CELLS", 1_000)
    width, rows = _pair_paths_table(seed=5)
    rows = rows[:600]
    path = tmp_path / "wide.csv"
    path.write_text(csv_text(width, rows), encoding="utf-8")
    table = open_file(path, label="wide.csv")
    try:
        stats = column_stats(table, range(width))
        search = find_keys(table, max_columns=2)
    finally:
        table.close()
    assert stats.codes is None
    expected = brute_force_keys(rows, range(width), 2, Nulls.EQUAL)
    assert {frozenset(int(n[1:]) for n in key.columns) for key in search.keys} == expected


def test_wide_search_of_three_columns_matches_brute_force(tmp_path: Path) -> None:
    # (k0, k1, k2) is a 10 x 10 x 3 grid: unique, though no two of them are; noise besides
    rng = random.Random(3)
    width = EXACT_DISTINCT_COLUMNS + 2
    rows: list[Row] = [
        (
            str(i % 10),
            str(i // 10 % 10),
            str(i // 100),
            *(
                None if rng.random() < 0.03 else str(rng.randrange([2, 3, 5, 11][k % 4]))
                for k in range(width - 3)
            ),
        )
        for i in range(300)
    ]
    path = tmp_path / "wide3.csv"
    path.write_text(csv_text(width, rows), encoding="utf-8")
    for nulls in Nulls:
        table = open_file(path, label="wide3.csv")
        try:
            search = find_keys(table, max_columns=3, nulls=nulls)
        finally:
            table.close()
        expected = brute_force_keys(rows, range(width), 3, nulls)
        got = {frozenset(int(name[1:]) for name in key.columns) for key in search.keys}
        assert got == expected
        assert frozenset({0, 1, 2}) in got


def _reference_groups(
    rows: Sequence[Row], columns: Sequence[int], nulls: Nulls
) -> tuple[list[tuple[tuple[str | None, ...], list[int]]], int, int]:
    """Duplicate groups in first-occurrence order with all their 1-based row numbers, the
    number of distinct keys and the rows with a missing key value."""
    numbers: dict[tuple[str | None, ...], list[int]] = defaultdict(list)
    missing = 0
    for n, row in enumerate(rows, start=1):
        key = tuple(row[c] for c in columns)
        missing += None in key
        numbers[key].append(n)
    duplicates = [
        (key, found)
        for key, found in numbers.items()
        if len(found) > 1 and not (nulls is Nulls.DISTINCT and None in key)
    ]
    duplicates.sort(key=lambda group: group[1][0])
    distinct = sum(
        len(found) if nulls is Nulls.DISTINCT and None in key else 1
        for key, found in numbers.items()
    )
    return duplicates, distinct, missing


@pytest.mark.parametrize("nulls", [Nulls.EQUAL, Nulls.DISTINCT])
def test_duplicate_pages_carry_totals_and_row_numbers(tmp_path: Path, nulls: Nulls) -> None:
    rng = random.Random(11)
    rows: list[Row] = []
    for i in range(2_000):
        a = None if rng.random() < 0.02 else str(rng.randrange(40))
        b = str(rng.randrange(60)) if i % 3 else "hot"  # "hot" keys repeat many times
        rows.append((str(i), a, b))
    path = tmp_path / "dups.csv"
    path.write_text(csv_text(3, rows), encoding="utf-8")
    duplicates, distinct, missing = _reference_groups(rows, (1, 2), nulls)
    assert any(len(found) > ROWS_PER_GROUP for _, found in duplicates)
    pages = []
    table = open_file(path, label="dups.csv")
    try:
        for offset in range(0, len(duplicates) + 7, 7):
            result = check_uniqueness(
                table, ["k1", "k2"], nulls=nulls, better_options=False, limit=7, offset=offset
            )
            assert not result.unique
            assert result.rows == len(rows)
            assert result.duplicate_groups == len(duplicates)
            assert result.duplicate_rows == sum(len(found) for _, found in duplicates)
            assert result.distinct_keys == distinct
            assert result.rows_with_missing == missing
            pages += [(g.values, g.count, g.rows) for g in result.examples]
    finally:
        table.close()
    assert pages == [(key, len(found), tuple(found[:ROWS_PER_GROUP])) for key, found in duplicates]


@pytest.mark.parametrize(
    ("fmt", "count", "options"),
    [
        ("parquet", 200_000, "(FORMAT parquet, ROW_GROUP_SIZE 1000)"),
        ("csv", 1_200_000, "(HEADER true)"),
        ("jsonl", 400_000, "(FORMAT json)"),
    ],
)
def test_row_numbers_follow_the_file_when_read_in_parallel(
    tmp_path: Path, fmt: str, count: int, options: str
) -> None:
    # 200 row groups of 1,000 rows (Parquet), the blocks of a CSV of 1.2 million rows and of
    # JSON Lines (read with its columns given explicitly) are scanned by several threads at
    # once (every case fails with DuckDB's preserve_insertion_order off); the duplicate
    # groups' row numbers must still be the rows' positions in the file
    import duckdb

    path = tmp_path / f"parallel.{fmt}"
    # every 1,009th row from the 100,000th on repeats the key of row (i % 5,000); rows whose
    # i is a multiple of 4,999 have no key
    key = (
        "CASE WHEN i % 4999 = 0 THEN NULL WHEN i >= 100000 AND i % 1009 = 0 "
        "THEN 'k' || (i % 5000) ELSE 'k' || i END"
    )
    with duckdb.connect() as con:
        con.execute("SET threads = 2")
        con.execute(
            f"COPY (SELECT CAST(i AS VARCHAR) AS id, {key} AS k, repeat('p', 30) AS pad "
            f"FROM range({count}) t(i) ORDER BY i) TO '{path}' {options}"
        )
    rows: list[Row] = []
    for i in range(count):
        if i % 4999 == 0:
            k = None
        elif i >= 100_000 and i % 1009 == 0:
            k = f"k{i % 5000}"
        else:
            k = f"k{i}"
        rows.append((str(i), k))
    duplicates, distinct, missing = _reference_groups(rows, (1,), Nulls.EQUAL)
    assert len(duplicates) > 50
    table = open_file(path, label=path.name)
    try:
        result = check_uniqueness(table, ["k"], better_options=False, limit=50, offset=3)
    finally:
        table.close()
    assert (result.rows, result.distinct_keys, result.rows_with_missing) == (
        count,
        distinct,
        missing,
    )
    assert result.duplicate_groups == len(duplicates)
    assert [(g.values, g.count, g.rows) for g in result.examples] == [
        (key, len(found), tuple(found[:ROWS_PER_GROUP])) for key, found in duplicates[3:53]
    ]


@pytest.mark.parametrize("late_duplicates", [False, True])
@pytest.mark.parametrize("nulls", [Nulls.EQUAL, Nulls.DISTINCT])
def test_duplicates_only_at_the_end_match_brute_force(
    tmp_path: Path, nulls: Nulls, late_duplicates: bool
) -> None:
    # (k1, k2) is unique over the first 3,000 rows, some with a missing k1; with
    # late_duplicates the last 150 rows repeat keys of the first rows, missing ones included,
    # so nothing in the head of the file hints at a duplicate
    rows: list[Row] = [
        (str(i), None if i % 97 == 0 else f"r{i % 50}", f"d{i // 50}") for i in range(3_000)
    ]
    if late_duplicates:
        rows += [(str(3_000 + j), *rows[j * 7 % 300][1:]) for j in range(150)]
    path = tmp_path / "late.csv"
    path.write_text(csv_text(3, rows), encoding="utf-8")
    duplicates, distinct, missing = _reference_groups(rows, (1, 2), nulls)
    assert bool(duplicates) == late_duplicates
    table = open_file(path, label="late.csv")
    try:
        result = check_uniqueness(
            table, ["k1", "k2"], nulls=nulls, better_options=False, limit=1_000
        )
    finally:
        table.close()
    assert result.unique is not late_duplicates
    assert (result.rows, result.distinct_keys, result.rows_with_missing) == (
        len(rows),
        distinct,
        missing,
    )
    assert result.duplicate_groups == len(duplicates)
    assert result.duplicate_rows == sum(len(found) for _, found in duplicates)
    assert [(g.values, g.count, g.rows) for g in result.examples] == [
        (key, len(found), tuple(found[:ROWS_PER_GROUP])) for key, found in duplicates
    ]


def test_unique_and_empty_sources_report_no_groups(tmp_path: Path) -> None:
    unique = tmp_path / "unique.csv"
    unique.write_text("id,v\n1,\n2,\n3,x\n", encoding="utf-8")
    empty = tmp_path / "empty.csv"
    empty.write_text("id,v\n", encoding="utf-8")
    answers = []
    for path in (unique, empty):
        table = open_file(path, label=path.name)
        try:
            result = check_uniqueness(table, ["id", "v"], better_options=False)
        finally:
            table.close()
        answers.append((result.unique, result.rows, result.distinct_keys, result.rows_with_missing))
    assert answers == [(True, 3, 3, 2), (True, 0, 0, 0)]


@pytest.mark.parametrize("nulls", [Nulls.EQUAL, Nulls.DISTINCT])
@pytest.mark.parametrize("offset", [0, 7_000, 11_990, 12_100])
def test_pages_of_a_duplicate_heavy_key_match_a_reference(
    tmp_path: Path, nulls: Nulls, offset: int
) -> None:
    # 12,000 keys repeated only after 40,000 unique ones (and some missing values): more
    # repeated keys than the page is ranked directly for, found in a prefix of the rows that
    # must grow several times before it holds the page
    unique_rows, repeated = 40_000, 12_000
    keys: list[str | None] = [f"u{i}" for i in range(unique_rows)]
    keys += [None if i % 997 == 0 else f"r{(i * 7919) % repeated}" for i in range(2 * repeated)]
    path = tmp_path / "heavy.csv"
    path.write_text("k,v\n" + "".join(f"{k or ''},{i}\n" for i, k in enumerate(keys)))
    table = open_file(path, label="heavy.csv")
    try:
        result = check_uniqueness(
            table, ["k"], nulls=nulls, better_options=False, limit=20, offset=offset
        )
    finally:
        table.close()
    where: dict[str | None, list[int]] = {}
    for i, k in enumerate(keys, start=1):
        if k is not None or nulls is Nulls.EQUAL:
            where.setdefault(k, []).append(i)
    groups = sorted((rows_of for rows_of in where.values() if len(rows_of) > 1), key=min)
    assert result.duplicate_groups == len(groups) > 10_000
    page = groups[offset : offset + 20]
    assert [g.count for g in result.examples] == [len(g) for g in page]
    assert [g.rows for g in result.examples] == [tuple(g[:10]) for g in page]
